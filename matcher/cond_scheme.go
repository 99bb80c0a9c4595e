package matcher

import (
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/internal/shorten"
)

// The when.scheme condition: "http" for plain requests only, "https" for
// requests over TLS only (Request.HTTPS: to the TLS listener, or marked
// so by a terminator the server trusts). The nginx import writes it for
// a server that listens on one kind of port. No Vary: a cache keys its
// entries by the whole URL, scheme included.
var schemeType = condType{key: "scheme", inWhen: true, inUnless: true,
	has:   func(w *When) bool { return w.Scheme != "" },
	count: checksOf[schemeCond],
	toml:  func(w *When, f TOMLForm) string { return f.Quote(w.Scheme) },
	unit:  schemeUnit{},
}

type schemeUnit struct{}

// schemeCond is a compiled when.scheme: whether it asks for TLS.
type schemeCond struct{ https bool }

func (schemeUnit) parse(w *When, v any, kind func(any) string) error {
	s, ok := v.(string)
	if ok && (s == "http" || s == "https") {
		w.Scheme = s
		return nil
	}
	got := kind(v)
	if ok {
		got = fmt.Sprintf("%q", shorten.Text(s, 80))
	}
	return fmt.Errorf("must be \"http\" (plain requests) or \"https\" (requests over TLS), not %s", got)
}

func (schemeUnit) compile(w *When, field string, key *strings.Builder) ([]condCheck, error) {
	switch w.Scheme {
	case "":
		return nil, nil
	case "http", "https":
	default:
		return nil, fieldErr(field+".scheme", "%q is not a scheme; write \"http\" (plain requests) or \"https\" (requests over TLS)", w.Scheme)
	}
	key.WriteString("s" + w.Scheme + "\x00")
	return []condCheck{schemeCond{https: w.Scheme == "https"}}, nil
}

func (c schemeCond) holds(m *Match) bool { return m.Req.HTTPS() == c.https }

func (schemeUnit) text(w *When) []string { return []string{"scheme = " + w.Scheme} }

func (schemeUnit) got(_ *When, _ int, m *Match) string { return "this URL is " + schemeOf(m.Req) }

func (schemeUnit) vary(*When) []string { return nil }

func schemeOf(req Request) string {
	if req.HTTPS() {
		return "https"
	}
	return "http"
}
