package engine

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/matcher"
)

// feed runs the per-connection handler over data as gnet would deliver it
// in the given chunks: whatever serve leaves unconsumed is kept and the
// next chunk appended. It returns every byte written and whether the
// connection was closed.
func feed(s *Server, chunks [][]byte) ([]byte, bool) {
	cs := &conn{loop: newLoop(s, nil)}
	var pending, out []byte
	for _, ch := range chunks {
		pending = append(pending, ch...)
		used, res := cs.serve(pending, s)
		out = append(out, cs.loop.out...)
		pending = append([]byte(nil), pending[used:]...)
		if res != keepOpen {
			return out, true
		}
	}
	return out, false
}

// splitAt cuts data into chunks whose lengths are taken from cuts in turn
// (each 1 to 256 bytes).
func splitAt(data, cuts []byte) [][]byte {
	if len(cuts) == 0 {
		return [][]byte{data}
	}
	var chunks [][]byte
	for i := 0; len(data) > 0; i++ {
		n := min(int(cuts[i%len(cuts)])+1, len(data))
		chunks = append(chunks, data[:n])
		data = data[n:]
	}
	return chunks
}

type fuzzAnswer struct {
	status   int
	location string
	close    bool
}

// readAnswers parses the answers in out, to requests other than HEAD.
func readAnswers(t *testing.T, out []byte) []fuzzAnswer {
	var as []fuzzAnswer
	br := bufio.NewReader(bytes.NewReader(out))
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return as
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil {
			t.Fatalf("server wrote an answer net/http cannot read: %v\n%q", err, out)
		}
		io.Copy(io.Discard, resp.Body)
		as = append(as, fuzzAnswer{resp.StatusCode, resp.Header.Get("Location"), resp.Close})
	}
}

var fuzzRules = []matcher.Rule{
	{Kind: matcher.Exact, From: "/old", To: "https://example.com/new", Status: 301},
	{Kind: matcher.Prefix, From: "/docs/", To: "https://docs.example.com/", Status: 302},
	{Kind: matcher.Regex, From: `^/blog/(\d+)/(.*)$`, To: "/posts/$1/$2", Status: 308},
	{Kind: matcher.Exact, From: "/h", Host: "shop.example.com", To: "/shop", Status: 307},
}

// FuzzHandler feeds arbitrary bytes, split arbitrarily, through the
// per-connection handler. It checks that every answer is well-formed
// HTTP, that splitting does not change the answers, and that a request the
// handler answers as valid is read the same way by net/http's request
// reader, an independent implementation.
func FuzzHandler(f *testing.F) {
	for _, seed := range []string{
		"GET /old HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /old?x=1 HTTP/1.1\r\nHost: a\r\n\r\nGET /docs/a/b HTTP/1.1\r\nHost: a\r\n\r\nGET /blog/1/x HTTP/1.1\r\nHost: a\r\n\r\n",
		"POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhelloGET /h HTTP/1.1\r\nHost: shop.example.com\r\n\r\n",
		"POST /old HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET /old HTTP/1.0\r\n\r\n",
		"GET http://shop.example.com/h HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /old HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		"GET /a b HTTP/1.1\r\n\r\n",
		"\r\nGET /old HTTP/1.1\r\nHost: a\r\n\r\n",
	} {
		f.Add([]byte(seed), []byte{3, 17, 1})
	}
	s := New(Options{}, mustCompile(f, fuzzRules))
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		if len(data) > 8192 {
			return
		}
		whole, wholeClosed := feed(s, [][]byte{data})
		split, splitClosed := feed(s, splitAt(data, cuts))
		if bytes.Contains(data, []byte("HEAD")) {
			// A HEAD answer has no body, an error answer always has one,
			// and which a HEAD request gets depends on the parse: the
			// answers cannot be read back without the parser under test.
			if len(whole) > 0 && !bytes.HasPrefix(whole, []byte("HTTP/1.1 ")) {
				t.Fatalf("answer does not start with a status line: %q", whole)
			}
			return
		}
		wa, sa := readAnswers(t, whole), readAnswers(t, split)
		compareSplit(t, wa, sa, wholeClosed, splitClosed)
		if len(wa) > 0 {
			compareNetHTTP(t, s, data, wa[0])
		}
	})
}

// compareSplit checks that the answers to data fed whole and fed in pieces
// agree: the same answers in the same order, except that a body still on
// its way when a request was answered (only in the split feed) makes that
// answer close the connection early.
func compareSplit(t *testing.T, whole, split []fuzzAnswer, wholeClosed, splitClosed bool) {
	n := min(len(whole), len(split))
	for i := 0; i < n; i++ {
		w, s := whole[i], split[i]
		if w.status != s.status || w.location != s.location {
			t.Fatalf("answer %d differs when the input is split: whole %+v, split %+v", i, w, s)
		}
		if w.close != s.close && !(s.close && i == len(split)-1) {
			t.Fatalf("answer %d closes differently when split: whole %+v, split %+v", i, w, s)
		}
	}
	if len(split) > len(whole) {
		t.Fatalf("split input got %d answers, whole input %d", len(split), len(whole))
	}
	if len(split) < len(whole) && !splitClosed {
		// The split feed may only stop early when it closed, or when
		// the last chunk left a request incomplete, which cannot happen:
		// both feeds end with the same bytes.
		t.Fatalf("split input got %d answers, whole input %d, without closing", len(split), len(whole))
	}
	_ = wholeClosed
}

// compareNetHTTP checks the first answer against net/http's reading of the
// same bytes: when the handler treats the first request as valid (a
// redirect or a 404), net/http must read a request too, and the rule set
// looked up with net/http's host and target must give the same answer.
// The reverse is not checked: the handler is stricter than net/http on
// purpose (bare LF, obsolete folding, Host syntax, and more).
func compareNetHTTP(t *testing.T, s *Server, data []byte, first fuzzAnswer) {
	if first.status >= 400 && first.status != 404 {
		return
	}
	// Empty lines before a request are skipped as RFC 9112 2.2 allows;
	// net/http refuses them.
	for bytes.HasPrefix(data, []byte("\r\n")) {
		data = data[2:]
	}
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(data)))
	if err != nil {
		t.Fatalf("handler answered %d but net/http rejects the request: %v\n%q", first.status, err, data)
	}
	if !strings.HasPrefix(req.RequestURI, "/") {
		return // absolute-form and OPTIONS *: hosts are chosen differently
	}
	path, query, hasQuery := strings.Cut(req.RequestURI, "?")
	var m matcher.Match
	want := fuzzAnswer{status: 404}
	q := []byte(nil)
	if hasQuery {
		q = []byte(query)
	}
	if s.Rules().Lookup([]byte(req.Host), []byte(path), q, &m) {
		want = fuzzAnswer{status: m.Status(), location: string(m.AppendLocation(nil, q))}
	}
	if first.status != want.status || first.location != want.location {
		t.Fatalf("handler answered %d %q; net/http's reading gives %d %q\n%q", first.status, first.location, want.status, want.location, data)
	}
}

func mustCompile(tb testing.TB, rules []matcher.Rule) *matcher.Set {
	tb.Helper()
	set, err := matcher.Compile(rules)
	if err != nil {
		tb.Fatal(err)
	}
	return set
}
