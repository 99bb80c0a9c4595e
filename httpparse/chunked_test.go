package httpparse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeAll runs a ChunkedDecoder over in fed in pieces of step bytes (as
// a connection delivers them) and returns the data and whether it ended.
func decodeAll(in string, step int) (string, bool, error) {
	var d ChunkedDecoder
	var out, pending []byte
	for pos := 0; pos < len(in) || len(pending) > 0; {
		if pos < len(in) {
			end := min(pos+step, len(in))
			pending = append(pending, in[pos:end]...)
			pos = end
		}
		for {
			data, n, done, err := d.Next(pending)
			if err != nil {
				return string(out), false, err
			}
			out = append(out, data...)
			pending = pending[n:]
			if done {
				return string(out), true, nil
			}
			if n == 0 {
				break
			}
		}
		if pos >= len(in) {
			break
		}
	}
	return string(out), false, nil
}

func TestChunkedDecoder(t *testing.T) {
	tests := []struct {
		in   string
		want string
		done bool
		err  bool
	}{
		{"5\r\nhello\r\n0\r\n\r\n", "hello", true, false},
		{"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world", true, false},
		{"A\r\n0123456789\r\n0\r\nX-Trailer: yes\r\n\r\n", "0123456789", true, false},
		{"5\r\nhel", "hel", false, false},
		{"5\r\nhelloXX0\r\n\r\n", "hello", false, true},
		{"z\r\nhello\r\n", "", false, true},
		{"5 \r\nhello\r\n0\r\n\r\n", "", false, true},
		{"5\nhello\r\n0\r\n\r\n", "", false, true},
		{"fffffffffffffffff\r\n", "", false, true},
		{"0\r\nbad trailer\r\n\r\n", "", false, true},
	}
	for _, tt := range tests {
		for _, step := range []int{1, 2, 3, 7, 1000} {
			got, done, err := decodeAll(tt.in, step)
			if (err != nil) != tt.err {
				t.Fatalf("%q step %d: error %v, want error %v", tt.in, step, err, tt.err)
			}
			if tt.err {
				continue
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || done != tt.done {
				t.Errorf("%q step %d: done %v (want %v), data diff:\n%s", tt.in, step, done, tt.done, diff)
			}
		}
	}
}

func FuzzChunkedDecoder(f *testing.F) {
	f.Add("5\r\nhello\r\n0\r\n\r\n", 3)
	f.Add("5;e\r\nhello\r\n1\r\n!\r\n0\r\nT: v\r\n\r\n", 1)
	f.Fuzz(func(t *testing.T, in string, step int) {
		if step <= 0 || step > 64 || len(in) > 4096 {
			return
		}
		whole, wdone, werr := decodeAll(in, len(in)+1)
		split, sdone, serr := decodeAll(in, step)
		if (werr != nil) != (serr != nil) || wdone != sdone || (werr == nil && whole != split) {
			t.Fatalf("%q: whole %q %v %v, in steps of %d %q %v %v", in, whole, wdone, werr, step, split, sdone, serr)
		}
	})
}
