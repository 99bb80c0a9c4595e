package accesslog

import (
	"encoding/json"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// redirect is the typical entry: a browser following a 301.
func redirect() Entry {
	return Entry{
		Time:      time.Date(2026, 11, 30, 5, 10, 14, 123456789, time.UTC),
		Client:    netip.MustParseAddr("203.0.113.7"),
		Method:    []byte("GET"),
		Target:    []byte("/old?x=1"),
		Path:      []byte("/old"),
		Query:     []byte("x=1"),
		Proto:     "HTTP/1.1",
		Scheme:    "http",
		Host:      []byte("Old.Example:8080"),
		UserAgent: []byte("curl/8.5.0"),
		Referer:   []byte("https://ref.example/"),
		Status:    301,
		Location:  []byte("https://new.example/page?x=1"),
		Bytes:     162,
		BodyBytes: 0, // an empty-bodied redirect
		Duration:  42 * time.Microsecond,
		Rule:      "rules.toml:12",
	}
}

func TestLine(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	tests := []struct {
		name           string
		edit           func(e *Entry)
		combined, json string
	}{{
		name:     "redirect",
		edit:     func(*Entry) {},
		combined: `203.0.113.7 - - [30/Nov/2026:05:10:14 +0000] "GET /old?x=1 HTTP/1.1" 301 0 "https://ref.example/" "curl/8.5.0" "https://new.example/page?x=1" 0.000042 "rules.toml:12" "Old.Example:8080"`,
		json:     `{"time":"2026-11-30T05:10:14.123Z","client":"203.0.113.7","host":"Old.Example:8080","method":"GET","target":"/old?x=1","status":301,"location":"https://new.example/page?x=1","upstream":"","bytes":162,"body_bytes":0,"duration_ms":0.042,"user_agent":"curl/8.5.0","referer":"https://ref.example/","rule":"rules.toml:12"}`,
	}, {
		name: "forwarded, no rule, local time, slow",
		edit: func(e *Entry) {
			e.Time = e.Time.In(paris)
			e.Location, e.Upstream, e.Rule = nil, "10.0.0.2:8080", ""
			e.Status, e.Bytes, e.BodyBytes, e.Duration = 200, 123456789, 123456000, 1500*time.Millisecond
		},
		combined: `203.0.113.7 - - [30/Nov/2026:05:10:14 +0000] "GET /old?x=1 HTTP/1.1" 200 123456000 "https://ref.example/" "curl/8.5.0" "10.0.0.2:8080" 1.500000 "-" "Old.Example:8080"`,
		json:     `{"time":"2026-11-30T05:10:14.123Z","client":"203.0.113.7","host":"Old.Example:8080","method":"GET","target":"/old?x=1","status":200,"location":"","upstream":"10.0.0.2:8080","bytes":123456789,"body_bytes":123456000,"duration_ms":1500.000,"user_agent":"curl/8.5.0","referer":"https://ref.example/","rule":""}`,
	}, {
		name: "empty fields",
		edit: func(e *Entry) {
			*e = Entry{Time: e.Time.Truncate(time.Second), Status: 400}
		},
		combined: `- - - [30/Nov/2026:05:10:14 +0000] "- -" 400 0 "-" "-" "-" 0.000000 "-" "-"`,
		json:     `{"time":"2026-11-30T05:10:14.000Z","client":"","host":"","method":"","target":"","status":400,"location":"","upstream":"","bytes":0,"body_bytes":0,"duration_ms":0.000,"user_agent":"","referer":"","rule":""}`,
	}, {
		name: "IPv6 and IPv4-mapped clients, negative duration",
		edit: func(e *Entry) {
			e.Client = netip.MustParseAddr("::ffff:198.51.100.1")
			e.Referer = []byte(netip.MustParseAddr("2001:db8::1").String())
			e.Duration = -time.Second
		},
		combined: `198.51.100.1 - - [30/Nov/2026:05:10:14 +0000] "GET /old?x=1 HTTP/1.1" 301 0 "2001:db8::1" "curl/8.5.0" "https://new.example/page?x=1" 0.000000 "rules.toml:12" "Old.Example:8080"`,
		json:     `{"time":"2026-11-30T05:10:14.123Z","client":"198.51.100.1","host":"Old.Example:8080","method":"GET","target":"/old?x=1","status":301,"location":"https://new.example/page?x=1","upstream":"","bytes":162,"body_bytes":0,"duration_ms":0.000,"user_agent":"curl/8.5.0","referer":"2001:db8::1","rule":"rules.toml:12"}`,
	}, {
		name: "hostile target: quotes, backslash, CR LF, NUL, forged line",
		edit: func(e *Entry) {
			e.Target = []byte("/a\"b\\c\r\n1.2.3.4 - - [x] \"GET /\" 200\x00\t\x7f")
		},
		combined: `203.0.113.7 - - [30/Nov/2026:05:10:14 +0000] "GET /a\x22b\x5Cc\x0D\x0A1.2.3.4 - - [x] \x22GET /\x22 200\x00\x09\x7F HTTP/1.1" 301 0 "https://ref.example/" "curl/8.5.0" "https://new.example/page?x=1" 0.000042 "rules.toml:12" "Old.Example:8080"`,
		json:     `{"time":"2026-11-30T05:10:14.123Z","client":"203.0.113.7","host":"Old.Example:8080","method":"GET","target":"/a\"b\\c\r\n1.2.3.4 - - [x] \"GET /\" 200\u0000\t\u007F","status":301,"location":"https://new.example/page?x=1","upstream":"","bytes":162,"body_bytes":0,"duration_ms":0.042,"user_agent":"curl/8.5.0","referer":"https://ref.example/","rule":"rules.toml:12"}`,
	}, {
		name: "non-ASCII and invalid UTF-8 in target and user agent",
		edit: func(e *Entry) {
			e.Target = []byte("/caf\xc3\xa9/\xff\xfe/\xe2\x82/\xed\xa0\x80")        // é, two bad bytes, a cut rune, a surrogate
			e.UserAgent = []byte("x\x1b[31m\xc2\x9b1m\xe2\x80\xa8\xf0\x9f\x98\x80") // ESC, C1 CSI, U+2028, U+1F600
		},
		combined: `203.0.113.7 - - [30/Nov/2026:05:10:14 +0000] "GET /caf\xC3\xA9/\xFF\xFE/\xE2\x82/\xED\xA0\x80 HTTP/1.1" 301 0 "https://ref.example/" "x\x1B[31m\xC2\x9B1m\xE2\x80\xA8\xF0\x9F\x98\x80" "https://new.example/page?x=1" 0.000042 "rules.toml:12" "Old.Example:8080"`,
		json:     `{"time":"2026-11-30T05:10:14.123Z","client":"203.0.113.7","host":"Old.Example:8080","method":"GET","target":"/café/\ufffd\ufffd/\ufffd\ufffd/\ufffd\ufffd\ufffd","status":301,"location":"https://new.example/page?x=1","upstream":"","bytes":162,"body_bytes":0,"duration_ms":0.042,"user_agent":"x\u001B[31m\u009B1m\u2028😀","referer":"https://ref.example/","rule":"rules.toml:12"}`,
	}, {
		name: "hostile location and method",
		edit: func(e *Entry) {
			e.Method = []byte("G\"ET")
			e.Location = []byte("https://x/\"\n")
		},
		combined: `203.0.113.7 - - [30/Nov/2026:05:10:14 +0000] "G\x22ET /old?x=1 HTTP/1.1" 301 0 "https://ref.example/" "curl/8.5.0" "https://x/\x22\x0A" 0.000042 "rules.toml:12" "Old.Example:8080"`,
		json:     `{"time":"2026-11-30T05:10:14.123Z","client":"203.0.113.7","host":"Old.Example:8080","method":"G\"ET","target":"/old?x=1","status":301,"location":"https://x/\"\n","upstream":"","bytes":162,"body_bytes":0,"duration_ms":0.042,"user_agent":"curl/8.5.0","referer":"https://ref.example/","rule":"rules.toml:12"}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := redirect()
			tt.edit(&e)
			for _, f := range []struct {
				format Format
				want   string
			}{{Combined, tt.combined}, {JSON, tt.json}} {
				lf := formatter{format: f.format}
				got := string(lf.appendLine(nil, &e))
				if diff := cmp.Diff(f.want+"\n", got); diff != "" {
					t.Errorf("%v line (-want +got):\n%s", f.format, diff)
				}
				if n := lf.maxLen(&e); len(got) > n {
					t.Errorf("%v line is %d bytes, maxLen said at most %d", f.format, len(got), n)
				}
			}
		})
	}
}

// TestJSONDecodes checks that every JSON line decodes to the entry's fields
// as encoding/json itself would have written them.
func TestJSONDecodes(t *testing.T) {
	e := redirect()
	e.Target = []byte("/\"\\\r\n\x00\x7f\xff\xc3\xa9\xc2\x9b\xe2\x80\xa9")
	e.UserAgent = []byte("\x1b]0;pwned\x07")
	lf := formatter{format: JSON}
	var got map[string]any
	if err := json.Unmarshal(lf.appendLine(nil, &e), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"time": "2026-11-30T05:10:14.123Z", "client": "203.0.113.7", "method": "GET",
		"target": roundTrip(t, e.Target), "status": 301.0,
		"host": "Old.Example:8080", "location": string(e.Location), "upstream": "", "bytes": 162.0, "body_bytes": 0.0, "duration_ms": 0.042,
		"user_agent": roundTrip(t, e.UserAgent), "referer": string(e.Referer), "rule": e.Rule,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded line (-want +got):\n%s", diff)
	}
}

// roundTrip returns s as encoding/json writes and reads it back: invalid
// UTF-8 becomes U+FFFD byte by byte.
func roundTrip(t *testing.T, s []byte) string {
	t.Helper()
	b, err := json.Marshal(string(s))
	if err != nil {
		t.Fatal(err)
	}
	var out string
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStampCache checks that a cached second is replaced when the second
// changes, in either direction, and that milliseconds never come from it.
func TestStampCache(t *testing.T) {
	e := redirect()
	lf := formatter{format: JSON}
	var got []string
	for _, d := range []time.Duration{0, 500 * time.Millisecond, time.Second, -time.Hour} {
		e.Time = redirect().Time.Add(d)
		line := lf.appendLine(nil, &e)
		got = append(got, string(line[9:33]))
	}
	want := []string{
		"2026-11-30T05:10:14.123Z",
		"2026-11-30T05:10:14.623Z",
		"2026-11-30T05:10:15.123Z",
		"2026-11-30T04:10:14.123Z",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("times (-want +got):\n%s", diff)
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in      string
		want    Format
		wantErr string
	}{
		{"", Combined, ""},
		{"combined", Combined, ""},
		{"json", JSON, ""},
		{"JSON", Format{}, `cannot parse access log format "JSON": accesslog: unknown format (want "combined", "json" or a layout of nginx log_format $variables)`},
		{"common", Format{}, `cannot parse access log format "common": accesslog: unknown format (want "combined", "json" or a layout of nginx log_format $variables)`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseFormat(tt.in)
			var gotErr string
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tt.wantErr, gotErr); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if err == nil && got.String() != tt.in && tt.in != "" {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}
