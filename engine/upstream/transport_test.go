package upstream

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// TestTargetAndHostAsSet pins what asSet works around: without it,
// fasthttp v1.78.0 sends /x:// to internal.example for the first target,
// / for the second (its Host fails the URI parser), and the third without
// its empty query and fragment, to a lower-cased Host.
func TestTargetAndHostAsSet(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	heads := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		for {
			var head strings.Builder
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				head.WriteString(line)
				if line == "\r\n" {
					break
				}
			}
			heads <- head.String()
			c.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n"))
		}
	}()
	p := New(Config{Servers: []string{ln.Addr().String()}, MaxConnsPerServer: 1,
		ConnectTimeout: time.Second, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second}, nil)
	defer p.Close()
	for _, tc := range []struct{ target, host string }{
		{"//internal.example/x://", "public.example"},
		{"/p", "a%41"},
		{"/a/../b//c?#f", "Mixed.Case:8080"},
	} {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.Header.DisableNormalizing()
		req.SetRequestURI(tc.target)
		req.Header.SetHost(tc.host)
		if err := p.Servers()[0].Client.Do(req, resp); err != nil {
			t.Fatalf("%s: %v", tc.target, err)
		}
		want := "GET " + tc.target + " HTTP/1.1\r\nHost: " + tc.host + "\r\n\r\n"
		if got := <-heads; got != want {
			t.Errorf("sent %q, want %q", got, want)
		}
		fasthttp.ReleaseRequest(req)
		fasthttp.ReleaseResponse(resp)
	}
}
