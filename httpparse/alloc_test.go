//go:build !race

// The race detector allocates on its own, so these run without it.

package httpparse

import "testing"

// TestParseAllocs holds Parse to its contract: nothing allocated once the
// Request has warmed up (AllocsPerRun's first, uncounted run grows Headers).
func TestParseAllocs(t *testing.T) {
	for _, tc := range []struct{ name, head string }{
		{"simple", simpleHead},
		{"browser650", browserHead},
		// A value with bytes >= 0x80 takes the UTF-8 check.
		{"utf-8 value", "GET / HTTP/1.1\r\nHost: h\r\nX: caf\xc3\xa9 \xe2\x82\xac\r\n\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := []byte(tc.head)
			var r Request
			allocs := testing.AllocsPerRun(100, func() {
				if n, err := Parse(buf, &r, nil); n != len(buf) || err != nil {
					t.Fatalf("Parse = %d, %v", n, err)
				}
			})
			if allocs != 0 {
				t.Errorf("Parse allocated %v times per run, want 0", allocs)
			}
		})
	}
}

// TestErrorAllocs checks that a rejected head costs no allocation either:
// errors are preallocated sentinels.
func TestErrorAllocs(t *testing.T) {
	buf := []byte("GET / HTTP/1.1\r\nHost: a b\r\n\r\n")
	var r Request
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := Parse(buf, &r, nil); err != ErrBadHost {
			t.Fatalf("Parse err = %v, want ErrBadHost", err)
		}
	})
	if allocs != 0 {
		t.Errorf("Parse allocated %v times per run, want 0", allocs)
	}
}

// TestParseResumeAllocs holds ParseResume to Parse's contract: a head
// arriving in pieces allocates nothing either.
func TestParseResumeAllocs(t *testing.T) {
	buf := []byte(browserHead)
	var r Request
	var pr Progress
	allocs := testing.AllocsPerRun(100, func() {
		for k := 1; k < len(buf); k += 7 {
			if n, err := ParseResume(buf[:k], &r, nil, &pr); n != 0 || err != nil {
				t.Fatalf("ParseResume of %d bytes = %d, %v", k, n, err)
			}
		}
		if n, err := ParseResume(buf, &r, nil, &pr); n != len(buf) || err != nil {
			t.Fatalf("ParseResume = %d, %v", n, err)
		}
	})
	if allocs != 0 {
		t.Errorf("ParseResume allocated %v times per run, want 0", allocs)
	}
}

// TestParseIPAllocs: an X-Forwarded-For entry is parsed per request.
func TestParseIPAllocs(t *testing.T) {
	for _, s := range []string{"192.0.2.1", "2001:db8:85a3::8a2e:370:7334", "::ffff:192.0.2.1", "not-an-address"} {
		b := []byte(s)
		if allocs := testing.AllocsPerRun(100, func() { ParseIP(b) }); allocs != 0 {
			t.Errorf("ParseIP(%q) allocated %v times per run, want 0", s, allocs)
		}
	}
}
