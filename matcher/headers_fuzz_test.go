package matcher

import (
	"bufio"
	"net/textproto"
	"strings"
	"testing"
)

// FuzzCheckHeader checks that a field CheckHeader accepts is one header
// line that a client reads back as that name and value, and cannot split
// an answer: whatever the config holds, the block stays one field.
func FuzzCheckHeader(f *testing.F) {
	for _, s := range [][2]string{{"Cache-Control", "max-age=3600"}, {"X-A", "a\r\nSet-Cookie: x"}, {"Bad Name", "v"},
		{"Link", `<https://e.example/>; rel="x"`}, {"content-length", "0"}, {"X", "\x00"}, {"X", " padded "}, {"X", "tab\there"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		block, err := headerBlock([]Header{{Name: name, Value: value}})
		if err != nil {
			return
		}
		if strings.Count(block, "\r\n") != 1 || strings.ContainsAny(strings.TrimSuffix(block, "\r\n"), "\r\n\x00") {
			t.Fatalf("%q: block %q is not one line", name, block)
		}
		h, err := textproto.NewReader(bufio.NewReader(strings.NewReader(block + "\r\n"))).ReadMIMEHeader()
		if err != nil {
			t.Fatalf("%q: block %q does not parse: %v", name, block, err)
		}
		if len(h) != 1 || h.Get(name) != value {
			t.Fatalf("%q: block %q reads back as %v", name, block, h)
		}
		for _, r := range reservedHeaders {
			if len(h.Values(r)) > 0 {
				t.Fatalf("%q: a field the server writes itself was accepted", name)
			}
		}
	})
}
