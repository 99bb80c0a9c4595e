package accesslog

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// nginxCombined is nginx's own combined format, written as a layout.
const nginxCombined = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`

// everyVariable names each variable once, so that a variable whose case
// is missing from appendTemplate fails TestTemplate.
const everyVariable = `$remote_addr|$remote_user|$time_local|$time_iso8601|$msec|$host|$http_host|$request|$request_method|` +
	`$request_uri|$uri|$document_uri|$args|$query_string|$is_args|$server_protocol|$scheme|$status|$body_bytes_sent|$bytes_sent|` +
	`$request_time|$upstream_addr|$upstream_status|$upstream_response_time|$http_user_agent|$http_referer|` +
	`$sent_http_location|$http_x_forwarded_for|${http_X_Request_Id}|$rule|$shadow_rule`

func TestTemplate(t *testing.T) {
	tests := []struct {
		name, layout, escape string
		edit                 func(e *Entry)
		want                 string
	}{{
		name:   "nginx combined",
		layout: nginxCombined,
		want:   `203.0.113.7 - - [30/Nov/2026:05:10:14 +0000] "GET /old?x=1 HTTP/1.1" 301 0 "https://ref.example/" "curl/8.5.0"`,
	}, {
		name:   "every variable, a redirect",
		layout: everyVariable,
		edit:   func(e *Entry) { e.Fields = [][]byte{[]byte("198.51.100.2, 10.0.0.1"), nil} },
		want: `203.0.113.7|-|30/Nov/2026:05:10:14 +0000|2026-11-30T05:10:14+00:00|1796015414.123|old.example|Old.Example:8080|GET /old?x=1 HTTP/1.1|GET|` +
			`/old?x=1|/old|/old|x=1|x=1|?|HTTP/1.1|http|301|0|162|` +
			`0.000|-|-|-|curl/8.5.0|https://ref.example/|` +
			`https://new.example/page?x=1|198.51.100.2, 10.0.0.1|-|rules.toml:12|-`,
	}, {
		name:   "every variable, forwarded",
		layout: everyVariable,
		edit: func(e *Entry) {
			e.Location, e.Rule, e.Upstream, e.UpstreamStatus, e.UpstreamTime = nil, "", "10.0.0.2:8080", 200, 1234567*time.Microsecond
			e.Status, e.BodyBytes, e.Bytes, e.Duration = 200, 5, 120, 1250*time.Millisecond
			e.Target, e.Path, e.Query = []byte("/a//b/./c/../%64?"), []byte("/a//b/./c/../%64"), []byte{}
			e.Host, e.Scheme, e.ShadowRule = []byte("[2001:DB8::1]:8443"), "https", "new.map:3"
		},
		want: `203.0.113.7|-|30/Nov/2026:05:10:14 +0000|2026-11-30T05:10:14+00:00|1796015414.123|[2001:db8::1]|[2001:DB8::1]:8443|GET /a//b/./c/../%64? HTTP/1.1|GET|` +
			`/a//b/./c/../%64?|/a/b/d|/a/b/d|-|-||HTTP/1.1|https|200|5|120|` +
			`1.250|10.0.0.2:8080|200|1.234|curl/8.5.0|https://ref.example/|` +
			`-|-|-|-|new.map:3`,
	}, {
		name:   "empty entry: absent is -",
		layout: everyVariable,
		edit:   func(e *Entry) { *e = Entry{Time: e.Time, Status: 400} },
		want: `-|-|30/Nov/2026:05:10:14 +0000|2026-11-30T05:10:14+00:00|1796015414.123|-|-|-|-|` +
			`-|-|-|-|-||-|-|400|0|0|` +
			`0.000|-|-|-|-|-|` +
			`-|-|-|-|-`,
	}, {
		name:   "hostile fields escaped as nginx does",
		layout: `"$request" "$http_user_agent" $host $uri`,
		edit: func(e *Entry) {
			e.Target, e.Path = []byte("/a\"b\r\n"), []byte("/a\"b%0a")
			e.UserAgent = []byte("x\x1b[31m\\")
			e.Host = []byte("EVIL\".example")
		},
		want: `"GET /a\x22b\x0D\x0A HTTP/1.1" "x\x1B[31m\x5C" evil\x22.example /a\x22b\x0A`,
	}, {
		name:   "escape=json",
		layout: `{"ua":"$http_user_agent","ref":"$http_referer","up":"$upstream_addr","t":$request_time,"uri":"$uri"}`,
		escape: "json",
		edit: func(e *Entry) {
			e.UserAgent, e.Referer = []byte("a\"b\n\x01\xff"), nil
			e.Path = []byte("/caf%C3%A9")
		},
		want: `{"ua":"a\"b\n\u0001\ufffd","ref":"","up":"","t":0.000,"uri":"/café"}`,
	}, {
		name:   "literal dollar-free text and braces",
		layout: `[${status}]${body_bytes_sent}b`,
		want:   `[301]0b`,
	}, {
		name:   "dot segments",
		layout: `$uri`,
		edit:   func(e *Entry) { e.Path = []byte("/a/b/../../../x/.") },
		want:   `/x/`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseFormatEscape(tt.layout, tt.escape)
			if err != nil {
				t.Fatal(err)
			}
			e := redirect()
			e.Path, e.Query, e.Proto, e.Scheme, e.Host = []byte("/old"), []byte("x=1"), "HTTP/1.1", "http", []byte("Old.Example:8080")
			if tt.edit != nil {
				tt.edit(&e)
			}
			lf := formatter{format: f}
			got := string(lf.appendLine(nil, &e))
			if diff := cmp.Diff(tt.want+"\n", got); diff != "" {
				t.Errorf("line (-want +got):\n%s", diff)
			}
			if n := lf.maxLen(&e); len(got) > n {
				t.Errorf("line is %d bytes, maxLen said at most %d", len(got), n)
			}
		})
	}
}

func TestParseLayoutErrors(t *testing.T) {
	for _, tt := range []struct{ layout, escape, want string }{
		{"$remote_addr $bogus", "", "byte 14 of the format: unknown variable $bogus; known: $args, $body_bytes_sent,"},
		{"$http_", "", "byte 1 of the format: unknown variable $http_;"},
		{"100$ $status", "", `byte 4 of the format: "$" is not followed by a variable name`},
		{"${status", "", `byte 1 of the format: "${status" is missing its "}"`},
		{"${status}", "none", `escape "none": accesslog: escape is "default" or "json"`},
		{"json", "json", `escape "json" applies only to a format of $variables, not to "json"`},
	} {
		_, err := ParseFormatEscape(tt.layout, tt.escape)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want one holding %q", tt.layout, err, tt.want)
		}
	}
	_, err := ParseFormat("$nope")
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != 0 {
		t.Errorf("error %#v, want a *FormatError at 0", err)
	}
}

// TestFields checks which header fields a layout asks the server for, and
// how nginx's names match a request's.
func TestFields(t *testing.T) {
	f, err := ParseFormat(everyVariable + " $http_x_forwarded_for")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"x_forwarded_for", "x_request_id"}, f.Fields()); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if Combined.Fields() != nil || JSON.Fields() != nil {
		t.Error("a built-in format asks for fields")
	}
	for _, c := range []struct {
		name, want string
		ok         bool
	}{{"X-Forwarded-For", "x_forwarded_for", true}, {"x_forwarded_for", "x_forwarded_for", true}, {"X-Forwarded", "x_forwarded_for", false}, {"X-Forwarded-Fox", "x_forwarded_for", false}} {
		if got := FieldMatches([]byte(c.name), c.want); got != c.ok {
			t.Errorf("FieldMatches(%q, %q) = %v", c.name, c.want, got)
		}
	}
}

// FuzzParseFormat: any layout either compiles or is refused; a compiled
// one writes exactly one line per entry, within maxLen.
func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{nginxCombined, everyVariable, "$", "${", "${x}", "$$status", "a\nb $uri"} {
		f.Add(s, []byte("/a/%2e%2e/../b//c"))
	}
	f.Fuzz(func(t *testing.T, layout string, path []byte) {
		fm, err := ParseFormat(layout)
		if err != nil {
			return
		}
		e := redirect()
		e.Path, e.Target, e.Host = path, path, path
		lf := formatter{format: fm}
		line := lf.appendLine(nil, &e)
		if n := lf.maxLen(&e); len(line) > n {
			t.Fatalf("line is %d bytes, maxLen said at most %d", len(line), n)
		}
		if bytes.IndexByte(line[:len(line)-1], '\n') >= 0 && !strings.Contains(layout, "\n") {
			t.Fatalf("a request byte ended the line early: %q", line)
		}
	})
}
