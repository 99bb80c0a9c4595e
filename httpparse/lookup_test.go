package httpparse

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRequestHeader(t *testing.T) {
	buf := []byte("GET / HTTP/1.1\r\nHost: h\r\nX-Device: mobile\r\nx-forwarded-proto: https\r\n" +
		"Accept-Language: de\r\nACCEPT-LANGUAGE: fr\r\nEmpty:\r\n\r\n")
	var r Request
	if n, err := Parse(buf, &r, nil); n != len(buf) || err != nil {
		t.Fatalf("Parse = %d, %v", n, err)
	}
	for _, tt := range []struct {
		name string
		want []byte
	}{
		{"x-device", []byte("mobile")},
		{"X-Device", []byte("mobile")},
		{"X-Forwarded-Proto", []byte("https")},
		{"accept-language", []byte("de")}, // the first of two
		{"empty", []byte{}},
		{"cookie", nil},
		{"x-devic", nil},
		{"x-devices", nil},
	} {
		got := r.Header([]byte(tt.name))
		if diff := cmp.Diff(tt.want, got); diff != "" || (got == nil) != (tt.want == nil) {
			t.Errorf("Header(%q): -want +got\n%s (nil: %v)", tt.name, diff, got == nil)
		}
	}
	var names []string
	for i := range r.Headers {
		if h := &r.Headers[i]; h.Is("accept-language") {
			names = append(names, string(h.Name))
		}
	}
	if diff := cmp.Diff([]string{"Accept-Language", "ACCEPT-LANGUAGE"}, names); diff != "" {
		t.Errorf(`fields for which Is("accept-language"): -want +got\n%s`, diff)
	}
}

func TestSplitHostPort(t *testing.T) {
	for _, tt := range []struct{ in, name, port string }{
		{"", "", ""},
		{"example.com", "example.com", ""},
		{"Example.com:8080", "Example.com", "8080"},
		{"example.com:", "example.com", ""},
		{"127.0.0.1:80", "127.0.0.1", "80"},
		{"[::1]", "[::1]", ""},
		{"[::1]:443", "[::1]", "443"},
		{"[2001:db8::1]:", "[2001:db8::1]", ""},
	} {
		name, port := SplitHostPort(tt.in)
		bname, bport := SplitHostPort([]byte(tt.in))
		got := []string{name, port, string(bname), string(bport), HostName(tt.in)}
		if diff := cmp.Diff([]string{tt.name, tt.port, tt.name, tt.port, tt.name}, got); diff != "" {
			t.Errorf("SplitHostPort(%q) as string, []byte, then HostName: -want +got\n%s", tt.in, diff)
		}
		if tt.port == "" && bport != nil && tt.in[len(tt.in)-1] != ':' {
			t.Errorf("SplitHostPort(%q): port %q, want nil", tt.in, bport)
		}
	}
}

// FuzzSplitHostPort holds SplitHostPort to the code it replaced in the
// engine and the nginx emulation, on any bytes: the last ':' is the
// port's unless a ']' follows it.
func FuzzSplitHostPort(f *testing.F) {
	for _, s := range []string{"example.com:80", "[::1]:80", "[::1]", "a:b]c", "]:", ":", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		host := []byte(s)
		name, port := host, []byte(nil)
		if i := bytes.LastIndexByte(host, ':'); i >= 0 && bytes.IndexByte(host[i:], ']') < 0 {
			name, port = host[:i], host[i+1:]
		}
		gotName, gotPort := SplitHostPort(host)
		if !bytes.Equal(gotName, name) || !bytes.Equal(gotPort, port) {
			t.Errorf("SplitHostPort(%q) = %q, %q; want %q, %q", s, gotName, gotPort, name, port)
		}
	})
}

func TestLookupAllocs(t *testing.T) {
	buf := []byte(browserHead)
	var r Request
	if _, err := Parse(buf, &r, nil); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if r.Header([]byte("X-Absent-Field")) != nil || len(HostName(r.Host)) == 0 {
			t.Fatal("wrong answer")
		}
		for i := range r.Headers {
			_ = r.Headers[i].Is("user-agent")
		}
	})
	if allocs != 0 {
		t.Errorf("Header, Is and HostName allocated %v times per run, want 0", allocs)
	}
}
