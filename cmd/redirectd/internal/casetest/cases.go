package casetest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
	"github.com/redirectd/redirectd/internal/shorten"
)

// The case files of `redirectd test`, one case a line:
//
//	case     = method 1*WS target *(1*WS header) 1*WS "->" 1*WS expect
//	method   = 1*( "A"-"Z" / DIGIT / "-" / "_" )    ; GET, HEAD, POST, M-SEARCH
//	target   = "/" *vchar                           ; any host
//	         / ( "http://" / "https://" ) host [ ":" port ] [ "/" *vchar ]
//	header   = field-name ":" *vchar               ; Accept-Language:de
//	expect   = "forward" / status [ 1*WS location ]
//	status   = 3DIGIT                               ; 100 to 599
//	location = 1*vchar                              ; compared byte for byte
//
// vchar is a visible ASCII character (0x21 to 0x7E); '#' is refused in a
// target since no client sends a fragment. A line that starts with '#'
// (after white space) is a comment, and blank lines are skipped. There
// are no comments at the end of a line: a Location may hold a '#'.

// maxCaseErrors bounds the errors reported for one run: a file of another
// format would otherwise print one error per line.
const maxCaseErrors = 20

// testCase is one line of a case file.
type testCase struct {
	File string
	Line int
	// Text is the line as written, trimmed.
	Text   string
	Method string
	// HTTPS is set for an https:// URL: the request says so with
	// X-Forwarded-Proto, as a TLS terminator in front would.
	HTTPS bool
	// Host is the URL's host[:port], "" for a path (any host).
	Host string
	// Target is the request target as sent: path and query.
	Target string
	Header []caseHeader
	Want   caseAnswer
}

// caseHeader is a header field a case sends.
type caseHeader struct{ Name, Value string }

// where is the case's "file:line".
func (c *testCase) where() string { return c.File + ":" + strconv.Itoa(c.Line) }

// caseAnswer is what a request got, or what a case expects.
type caseAnswer struct {
	// Forward: the marker upstream answered (the request was forwarded).
	Forward  bool
	Status   int
	Location string
	// Err says why there is no answer (the connection failed).
	Err string
}

// String is the answer as a case file writes it: "301 https://x/",
// "404", "forward".
func (a caseAnswer) String() string {
	switch {
	case a.Err != "":
		return "no answer (" + a.Err + ")"
	case a.Forward:
		return "forward"
	case a.Location == "":
		return strconv.Itoa(a.Status)
	}
	return strconv.Itoa(a.Status) + " " + a.Location
}

// framingHeaders may not be set by a case: they would change how the
// requests pipelined on a connection are told apart.
var framingHeaders = []string{"host", "content-length", "transfer-encoding", "connection", "upgrade", "expect"}

// parseCases reads a case file's text. name is how the file is named in
// errors, which are "name:line: what is wrong" lines, at most
// maxCaseErrors of them.
func parseCases(name string, data []byte) ([]testCase, error) {
	var cases []testCase
	var errs []error
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		c, err := parseCase(line)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", name, n+1, err))
			if len(errs) == maxCaseErrors {
				errs = append(errs, fmt.Errorf("%s: too many errors; is this a case file?", name))
				break
			}
			continue
		}
		c.File, c.Line = name, n+1
		cases = append(cases, c)
	}
	return cases, errors.Join(errs...)
}

// parseCase reads one trimmed, non-comment line.
func parseCase(line string) (testCase, error) {
	c := testCase{Text: line}
	f := strings.Fields(line)
	arrow := -1
	for i, w := range f {
		if w == "->" {
			if arrow >= 0 {
				return c, errors.New(`more than one "->"; write METHOD URL -> STATUS [LOCATION]`)
			}
			arrow = i
		}
	}
	switch {
	case arrow < 0:
		return c, fmt.Errorf(`no " -> " in %q; write METHOD URL -> STATUS [LOCATION], such as GET /old -> 301 https://example.com/new`, cutCase(line))
	case arrow < 2:
		return c, fmt.Errorf(`%q: a case needs a method and a URL before "->", such as GET /old -> 301 https://example.com/new`, cutCase(line))
	case arrow == len(f)-1:
		return c, errors.New(`nothing after "->": give a status (301 LOCATION, 404, 410) or forward`)
	}
	if err := c.setMethod(f[0]); err != nil {
		return c, err
	}
	if err := c.setTarget(f[1]); err != nil {
		return c, err
	}
	for _, h := range f[2:arrow] {
		if err := c.addHeader(h); err != nil {
			return c, err
		}
	}
	return c, c.setWant(f[arrow+1:])
}

func (c *testCase) setMethod(m string) error {
	for i := 0; i < len(m); i++ {
		b := m[i]
		if !('A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '-' || b == '_') {
			return fmt.Errorf("method %q: write it in capitals, such as GET or HEAD", cutCase(m))
		}
	}
	c.Method = m
	return nil
}

func (c *testCase) setTarget(u string) error {
	if err := caseVisible("URL", u); err != nil {
		return err
	}
	if strings.IndexByte(u, '#') >= 0 {
		return fmt.Errorf("URL %q: a client sends no #fragment; leave it out", cutCase(u))
	}
	if u[0] == '/' {
		c.Target = u
		return nil
	}
	rest, ok := strings.CutPrefix(u, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(u, "https://"); !ok {
			return fmt.Errorf("URL %q: give a path (/old, for any host) or http://host/path", cutCase(u))
		}
		c.HTTPS = true
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	c.Host, c.Target = rest[:end], rest[end:]
	if c.Host == "" || strings.ContainsAny(c.Host, "@\\") {
		return fmt.Errorf("URL %q: the host is empty or holds user information", cutCase(u))
	}
	if c.Target == "" || c.Target[0] == '?' {
		c.Target = "/" + c.Target // http://host and http://host?x are for "/"
	}
	return nil
}

func (c *testCase) addHeader(h string) error {
	name, value, ok := strings.Cut(h, ":")
	if !ok || name == "" {
		return fmt.Errorf("%q between the URL and \"->\": only header fields go there, written Name:value with no space (Accept-Language:de)", cutCase(h))
	}
	if !ascii.IsToken(name) {
		return fmt.Errorf("header %q: a field name holds letters, digits and !#$%%&'*+-.^_`|~ only", cutCase(name))
	}
	for _, f := range framingHeaders {
		if strings.EqualFold(name, f) {
			return fmt.Errorf("header %s: a case may not set it (the host goes in the URL: http://host/path)", name)
		}
	}
	c.Header = append(c.Header, caseHeader{name, value})
	return nil
}

func (c *testCase) setWant(f []string) error {
	if f[0] == "forward" {
		if len(f) > 1 {
			return fmt.Errorf("%q after forward: a forwarded request has no Location to compare", cutCase(f[1]))
		}
		c.Want.Forward = true
		return nil
	}
	code, err := strconv.Atoi(f[0])
	if err != nil || len(f[0]) != 3 || code < 100 || code > 599 {
		return fmt.Errorf("status %q: give three digits from 100 to 599 (301, 404, 410), or forward", cutCase(f[0]))
	}
	c.Want.Status = code
	switch {
	case len(f) > 2:
		return fmt.Errorf("%q after the Location: a Location has no spaces (write them %%20)", cutCase(strings.Join(f[2:], " ")))
	case len(f) == 2:
		c.Want.Location = f[1]
	}
	return nil
}

// visible says what is wrong with s if it holds bytes other than visible
// ASCII, which no request line carries unescaped.
func caseVisible(what, s string) error {
	for i := 0; i < len(s); i++ {
		if !ascii.IsVisible(s[i]) {
			return fmt.Errorf("%s %q: byte %#x at %d is not visible ASCII; percent-encode it", what, cutCase(s), s[i], i)
		}
	}
	return nil
}

// cutCase shortens s for an error message to 80 bytes in all, the
// "..." included.
func cutCase(s string) string {
	if len(s) > 80 {
		return shorten.Text(s, 77)
	}
	return s
}
