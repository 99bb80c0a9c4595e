package casetest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// How the cases travel: testConns keep-alive connections, each sending
// its share of the cases in windows of testWindow pipelined requests
// written at once, then reading their answers. A window bounds what the
// server holds for a client that has not read yet (the engine closes one
// past 1 MiB of unread answers).
const (
	testConns    = 4
	testWindow   = 128
	testDeadline = 10 * time.Second // per window, so a server that hangs cannot hang the run
)

// run sends every case to the server and returns the answers, in the
// cases' order.
func (e *testEnv) run(cases []testCase, host string) []caseAnswer {
	got := make([]caseAnswer, len(cases))
	n := min(testConns, (len(cases)+testWindow-1)/testWindow)
	var wg sync.WaitGroup
	for i := range n {
		lo, hi := i*len(cases)/n, (i+1)*len(cases)/n
		wg.Go(func() { e.runConn(cases[lo:hi], got[lo:hi], host) })
	}
	wg.Wait()
	return got
}

// runConn sends cases on one connection, opening a new one when the
// server closes it (an answer with Connection: close) and resending what
// was not answered.
func (e *testEnv) runConn(cases []testCase, got []caseAnswer, host string) {
	var buf []byte
	for i := 0; i < len(cases); {
		c, err := net.DialTimeout("tcp", e.srv.Addr(), testDeadline)
		if err != nil {
			got[i].Err = err.Error()
			i++
			continue
		}
		br := bufio.NewReaderSize(c, 64<<10)
		fresh := true // nothing answered on c yet
		for open := true; open && i < len(cases); {
			end := min(i+testWindow, len(cases))
			buf = buf[:0]
			for j := i; j < end; j++ {
				buf = appendCaseRequest(buf, &cases[j], host)
			}
			c.SetDeadline(time.Now().Add(testDeadline))
			if _, err := c.Write(buf); err != nil && fresh {
				got[i].Err = err.Error()
				i++
				break
			}
			for ; i < end; i++ {
				a, closing, err := readAnswer(br, cases[i].Method)
				if err != nil {
					if fresh {
						// The first request on a new connection got no
						// answer: it is the case's answer, not a closed
						// keep-alive connection to retry.
						got[i].Err = err.Error()
						i++
					}
					open = false
					break
				}
				if !cases[i].HTTPS && a.Location != "" {
					a.Location = caseLocation(a.Location, caseHost(&cases[i], host), e.srv.Addr())
				}
				got[i], fresh = a, false
				if closing {
					i++
					open = false
					break
				}
			}
		}
		c.Close()
	}
}

// caseHost is the Host field c is sent with: its URL's host, else host
// (-host, for a case written as a path).
func caseHost(c *testCase, host string) string {
	if c.Host != "" {
		return c.Host
	}
	return host
}

// appendCaseRequest appends c's request to dst as a client sends it.
func appendCaseRequest(dst []byte, c *testCase, host string) []byte {
	host = caseHost(c, host)
	dst = append(dst, c.Method...)
	dst = append(dst, ' ')
	dst = append(dst, c.Target...)
	dst = append(dst, " HTTP/1.1\r\nHost: "...)
	dst = append(dst, host...)
	dst = append(dst, "\r\nUser-Agent: redirectd-test\r\n"...)
	if c.HTTPS {
		dst = append(dst, "X-Forwarded-Proto: https\r\n"...)
	}
	for _, h := range c.Header {
		dst = append(append(append(append(dst, h.Name...), ": "...), h.Value...), "\r\n"...)
	}
	return append(dst, "\r\n"...)
}

// maxAnswerBody bounds the body read of one answer; the server's own are
// a line long.
const maxAnswerBody = 1 << 20

// readAnswer reads the next answer from br, for a request of method, and
// reports whether the server closes the connection after it.
func readAnswer(br *bufio.Reader, method string) (caseAnswer, bool, error) {
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		return caseAnswer{}, false, err
	}
	n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswerBody+1))
	resp.Body.Close()
	if err != nil {
		return caseAnswer{}, false, err
	}
	if n > maxAnswerBody {
		return caseAnswer{}, false, errors.New("an answer body over 1 MiB")
	}
	a := caseAnswer{Status: resp.StatusCode, Location: resp.Header.Get("Location")}
	if resp.Header.Get(forwardMarker) == "forwarded" {
		a = caseAnswer{Forward: true, Status: resp.StatusCode}
	}
	return a, resp.Close, nil
}
