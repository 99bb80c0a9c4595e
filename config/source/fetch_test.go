package source

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// origin is a source served by a real HTTP server on loopback: it answers
// body with an ETag, 304 to a matching If-None-Match or If-Modified-Since,
// and records what each request carried.
type origin struct {
	mu       sync.Mutex
	body     []byte
	etag     string
	modified string
	status   int // when not 0, answered instead
	chunked  bool
	got      []http.Header
}

func (o *origin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, r.Header.Clone())
	if o.status != 0 {
		http.Error(w, "no\x01such\nbucket", o.status)
		return
	}
	if o.etag != "" {
		w.Header().Set("ETag", o.etag)
	}
	if o.modified != "" {
		w.Header().Set("Last-Modified", o.modified)
	}
	if o.etag != "" && r.Header.Get("If-None-Match") == o.etag || o.modified != "" && r.Header.Get("If-Modified-Since") == o.modified {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if o.chunked {
		w.WriteHeader(200)
		w.(http.Flusher).Flush() // no Content-Length: the limit must hold while reading
	} else {
		w.Header().Set("Content-Length", strconv.Itoa(len(o.body)))
	}
	w.Write(o.body)
}

func serve(t *testing.T, o *origin) string {
	srv := httptest.NewServer(o)
	t.Cleanup(srv.Close)
	return srv.URL
}

func fetch(t *testing.T, f *Fetcher, prev Validators) (*Fetched, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dir := t.TempDir()
	got, err := f.Fetch(ctx, dir, prev)
	return got, dir, err
}

func TestFetchKinds(t *testing.T) {
	site := tarball(t, true, entry{name: "redirectd.toml", body: "[[map]]\nfile = \"a.map\"\n"}, entry{name: "a.map", body: "/a /b;\n"})
	tests := []struct {
		name      string
		path      string
		body      []byte
		wantEntry string
		wantFiles map[string]string
	}{
		{"archive", "/site.tar.gz", site, "redirectd.toml", map[string]string{"redirectd.toml": "[[map]]\nfile = \"a.map\"\n", "a.map": "/a /b;\n"}},
		{"archive whatever its name", "/latest", site, "redirectd.toml", nil},
		{"plain tar", "/site.tar", tarball(t, false, entry{name: "rules.toml", body: "x"}), "rules.toml", map[string]string{"rules.toml": "x"}},
		{"one folder", "/s.tgz", tarball(t, true, entry{name: "site/redirectd.toml", body: "x"}, entry{name: "site/other.toml", body: "y"}), "site/redirectd.toml", nil},
		{"toml", "/r/site.toml?sig=1", []byte("[[rule]]\n"), "redirectd.toml", map[string]string{"redirectd.toml": "[[rule]]\n"}},
		{"map", "/r/site.map", []byte("/a /b;\n"), "redirectd.toml", map[string]string{"rules.map": "/a /b;\n",
			"redirectd.toml": "# Written by redirectd for the single file at the source.\n[[map]]\nfile = \"rules.map\"\n"}},
		{"csv", "/r/site.CSV", []byte("/a,/b\n"), "redirectd.toml", map[string]string{"rules.csv": "/a,/b\n",
			"redirectd.toml": "# Written by redirectd for the single file at the source.\n[[csv]]\nfile = \"rules.csv\"\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := serve(t, &origin{body: tt.body, etag: `"v1"`})
			got, dir, err := fetch(t, &Fetcher{URL: url + tt.path}, Validators{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Entry != tt.wantEntry || got.ETag != `"v1"` || len(got.Hash) != HashLen {
				t.Errorf("Fetch = %+v, want entry %q, ETag \"v1\" and a hash", got, tt.wantEntry)
			}
			if tt.wantFiles != nil {
				if diff := cmp.Diff(tt.wantFiles, tree(t, dir)); diff != "" {
					t.Errorf("files (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestFetchConditional(t *testing.T) {
	o := &origin{body: tarball(t, true, entry{name: "redirectd.toml", body: "x"}), etag: `"v1"`, modified: "Tue, 01 Dec 2026 00:00:00 GMT"}
	f := &Fetcher{URL: serve(t, o) + "/s.tar.gz"}
	first, _, err := fetch(t, f, Validators{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := fetch(t, f, first.Validators); got != nil || err != nil {
		t.Fatalf("with the validators: %+v, %v; want nil, nil (304)", got, err)
	}
	if got, _, err := fetch(t, f, Validators{LastModified: first.LastModified}); got != nil || err != nil {
		t.Fatalf("with Last-Modified alone: %+v, %v; want 304", got, err)
	}
	o.mu.Lock()
	o.etag, o.modified = `"v2"`, ""
	o.body = tarball(t, true, entry{name: "redirectd.toml", body: "y"})
	o.mu.Unlock()
	second, _, err := fetch(t, f, first.Validators)
	if err != nil || second == nil || second.ETag != `"v2"` || second.Hash == first.Hash {
		t.Fatalf("after a change: %+v, %v; want v2 with a new hash", second, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	want := []string{"", `"v1"`, "", `"v1"`}
	for i, h := range o.got {
		if h.Get("If-None-Match") != want[i] {
			t.Errorf("request %d: If-None-Match %q, want %q", i, h.Get("If-None-Match"), want[i])
		}
	}
}

func TestFetchFails(t *testing.T) {
	big := make([]byte, 3000)
	tests := []struct {
		name    string
		o       *origin
		f       Fetcher
		prev    Validators
		reason  Reason
		errPart string
	}{
		{"not found", &origin{status: 404}, Fetcher{}, Validators{}, ReasonStatus, `404 Not Found; check [rules] source (body: "no such bucket")`},
		{"forbidden", &origin{status: 403}, Fetcher{}, Validators{}, ReasonStatus, "check [rules] source_header"},
		{"server error", &origin{status: 503}, Fetcher{}, Validators{}, ReasonStatus, "503"},
		{"304 unasked", &origin{status: 304}, Fetcher{}, Validators{}, ReasonStatus, "304"},
		{"too large by length", &origin{body: big}, Fetcher{MaxBytes: 1000}, Validators{}, ReasonTooLarge, "3000 bytes, more than the 1000"},
		{"too large while read", &origin{body: big, chunked: true}, Fetcher{MaxBytes: 1000}, Validators{}, ReasonTooLarge, "more than the 1000 bytes"},
		{"empty file", &origin{body: nil}, Fetcher{}, Validators{}, ReasonArchive, "empty"},
		{"archive without toml", &origin{body: tarball(t, true, entry{name: "a.map", body: "x"})}, Fetcher{}, Validators{}, ReasonArchive, "no rules TOML"},
		{"archive with two tomls", &origin{body: tarball(t, true, entry{name: "a.toml", body: "x"}, entry{name: "b.toml", body: "x"})}, Fetcher{}, Validators{}, ReasonArchive, "2 .toml files"},
		{"archive escaping", &origin{body: tarball(t, true, entry{name: "../../x.toml", body: "x"})}, Fetcher{}, Validators{}, ReasonArchive, "climbs out"},
		{"header file gone", &origin{body: []byte("x")}, Fetcher{Header: func() (string, string, error) { return "", "", os.ErrNotExist }}, Validators{}, ReasonNetwork, "source header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.f
			f.URL = serve(t, tt.o) + "/r.map"
			got, _, err := fetch(t, &f, tt.prev)
			var e *Error
			if got != nil || !errors.As(err, &e) || e.Reason != tt.reason || !strings.Contains(err.Error(), tt.errPart) {
				t.Fatalf("Fetch = %+v, %v; want a %s error with %q", got, err, tt.reason, tt.errPart)
			}
		})
	}
}

func TestFetchNetwork(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	_, _, err := fetch(t, &Fetcher{URL: url + "/s.tar.gz"}, Validators{})
	if ReasonOf(err) != ReasonNetwork || !strings.Contains(err.Error(), "cannot reach the source") {
		t.Fatalf("Fetch from a closed port = %v, want a network error", err)
	}
}

func TestFetchHeader(t *testing.T) {
	o := &origin{body: []byte("/a /b;\n")}
	f := &Fetcher{URL: serve(t, o) + "/r.map", Header: func() (string, string, error) { return "Authorization", "Bearer t0k", nil }}
	if _, _, err := fetch(t, f, Validators{}); err != nil {
		t.Fatal(err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if got := o.got[0].Get("Authorization"); got != "Bearer t0k" {
		t.Errorf("Authorization = %q, want the configured header", got)
	}
}

// TestFetchHeaderRedirects follows redirects from a real source: the
// configured header goes only to the configured scheme, host and port,
// whatever its name, and a redirect from https to http is refused.
func TestFetchHeaderRedirects(t *testing.T) {
	other := &origin{body: []byte("/a /b;\n")}
	otherURL := serve(t, other)
	home := &origin{body: []byte("/a /b;\n")}
	homeSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/r.map", http.StatusFound)
		case "/away":
			http.Redirect(w, r, otherURL+"/r.map", http.StatusFound)
		default:
			home.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(homeSrv.Close)
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, homeSrv.URL+"/r.map", http.StatusFound)
	}))
	t.Cleanup(tlsSrv.Close)
	header := func() (string, string, error) { return "X-Api-Key", "SECRET-TOKEN-123", nil }

	tests := []struct {
		name      string
		url       string
		client    *http.Client
		home, far string // the header each server saw on its last request
		farAsked  bool   // the other server was asked
		err       string
	}{
		{name: "same origin", url: homeSrv.URL + "/same", home: "SECRET-TOKEN-123"},
		{name: "another port", url: homeSrv.URL + "/away", farAsked: true},
		{name: "https to http", url: tlsSrv.URL + "/", client: tlsSrv.Client(), err: "redirected from https to http://"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, o := range []*origin{home, other} {
				o.mu.Lock()
				o.got = nil
				o.mu.Unlock()
			}
			f := &Fetcher{URL: tc.url, Header: header, Client: tc.client}
			_, _, err := fetch(t, f, Validators{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				home.mu.Lock()
				defer home.mu.Unlock()
				if len(home.got) != 0 {
					t.Errorf("the http URL was asked after a downgrade: %v", home.got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			last := func(o *origin) string {
				o.mu.Lock()
				defer o.mu.Unlock()
				if len(o.got) == 0 {
					return ""
				}
				return o.got[len(o.got)-1].Get("X-Api-Key")
			}
			other.mu.Lock()
			asked := len(other.got) > 0
			other.mu.Unlock()
			if asked != tc.farAsked {
				t.Errorf("the other server was asked: %v, want %v", asked, tc.farAsked)
			}
			if got := []string{last(home), last(other)}; !cmp.Equal(got, []string{tc.home, tc.far}) {
				t.Errorf("X-Api-Key seen by the configured origin, the other = %q, want %q", got, []string{tc.home, tc.far})
			}
		})
	}
}
