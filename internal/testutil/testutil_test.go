package testutil

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMetric(t *testing.T) {
	text := "# HELP a_total x\na_total 3\nb_total{reason=\"x\"} 1.5\nb_total 7\n"
	type got struct {
		V  float64
		OK bool
	}
	tests := []struct {
		name string
		want got
	}{
		{"a_total", got{3, true}},
		{`b_total{reason="x"}`, got{1.5, true}},
		{"b_total", got{7, true}},
		{"a", got{0, false}},
		{"c_total", got{0, false}},
	}
	for _, tt := range tests {
		v, ok := Metric(text, tt.name)
		if diff := cmp.Diff(tt.want, got{v, ok}); diff != "" {
			t.Errorf("Metric(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestFencedBlock(t *testing.T) {
	text := "## One\ntext\n```sh\nls\n```\n```toml\na = 1\n```\n<!-- example: x -->\n```\nplain\n```\n"
	tests := []struct{ marker, lang, want string }{
		{"## One\n", "toml", "a = 1\n"},
		{"## One\n", "", "ls\n"},
		{"<!-- example: x", "", "plain\n"},
	}
	for _, tt := range tests {
		if got := FencedBlock(t, text, tt.marker, tt.lang); got != tt.want {
			t.Errorf("FencedBlock(%q, %q) = %q, want %q", tt.marker, tt.lang, got, tt.want)
		}
	}
}

// TestEventually runs in a synctest bubble, whose clock moves only when
// every goroutine in it waits: the looks and the time they take are
// exact, whatever the machine's load.
func TestEventually(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		start := time.Now()
		if !Eventually(time.Second, func() bool { return n.Add(1) == 3 }) {
			t.Errorf("a condition that holds on the third look was not seen")
		}
		if took := time.Since(start); took != 2*pollEvery {
			t.Errorf("seen after %v, want %v: the third look", took, 2*pollEvery)
		}
		n.Store(0)
		start = time.Now()
		if Eventually(50*time.Millisecond, func() bool { n.Add(1); return false }) {
			t.Errorf("a condition that never holds was seen")
		}
		// Looks at 0, 5, ..., 50 ms, and at 55 ms, past the timeout.
		if took, looks := time.Since(start), n.Load(); took != 55*time.Millisecond || looks != 12 {
			t.Errorf("gave up after %v and %d looks, want 55ms and 12", took, looks)
		}
		n.Store(0)
		start = time.Now()
		if EventuallyEvery(time.Second, 300*time.Millisecond, func() bool { n.Add(1); return false }) {
			t.Errorf("a condition that never holds was seen")
		}
		if took, looks := time.Since(start), n.Load(); took != 1200*time.Millisecond || looks != 5 {
			t.Errorf("EventuallyEvery gave up after %v and %d looks, want 1.2s and 5", took, looks)
		}
	})
}

func TestLockedBuffer(t *testing.T) {
	var b LockedBuffer
	done := make(chan bool)
	for i := range 4 {
		go func() {
			fmt.Fprintf(&b, "%d", i)
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
	if len(b.String()) != 4 {
		t.Errorf("buffer holds %q, want four digits", b.String())
	}
}

func TestServe(t *testing.T) {
	addr := Serve(t, func(c net.Conn) {
		defer c.Close()
		line, _ := bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "echo "+line)
	})
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "hi\n")
		got, _ := io.ReadAll(c)
		c.Close()
		if string(got) != "echo hi\n" {
			t.Errorf("answer %q", got)
		}
	}
}
