package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// Answer is what a raw read of one HTTP/1.1 response found.
type Answer struct {
	Status   int
	Location string
	Body     int  // bytes of body read
	Close    bool // Connection: close
}

var errBadAnswer = errors.New("malformed answer")

// readAnswer reads one response from br: the status line, the headers
// (names without case), and the body by Content-Length or chunked. It
// allocates only for Location, which the load generator does not ask for.
func readAnswer(br *bufio.Reader, wantLocation bool) (Answer, error) {
	var a Answer
	line, err := br.ReadSlice('\n')
	if err != nil {
		return a, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return a, fmt.Errorf("%w: status line %q", errBadAnswer, line)
	}
	a.Status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return a, fmt.Errorf("%w: status line %q", errBadAnswer, line)
	}
	length, chunked := -1, false
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return a, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return a, fmt.Errorf("%w: header line %q", errBadAnswer, line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			length, err = strconv.Atoi(string(value))
			if err != nil {
				return a, fmt.Errorf("%w: Content-Length %q", errBadAnswer, value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			a.Close = bytes.EqualFold(value, []byte("close"))
		case wantLocation && bytes.EqualFold(name, []byte("Location")):
			a.Location = string(value)
		}
	}
	switch {
	case chunked:
		for {
			line, err = br.ReadSlice('\n')
			if err != nil {
				return a, err
			}
			size, err := strconv.ParseInt(string(bytes.TrimRight(line, "\r\n")), 16, 64)
			if err != nil {
				return a, fmt.Errorf("%w: chunk size %q", errBadAnswer, line)
			}
			if _, err := br.Discard(int(size) + 2); err != nil {
				return a, err
			}
			a.Body += int(size)
			if size == 0 {
				return a, nil
			}
		}
	case length >= 0:
		n, err := br.Discard(length)
		a.Body = n
		return a, err
	case a.Close:
		n, err := io.Copy(io.Discard, br)
		a.Body = int(n)
		return a, err
	}
	return a, nil
}

// check compares an answer with what the request wants.
func check(r Req, a Answer) error {
	if a.Status != r.Want.Status || (r.Want.Location != "" && a.Location != r.Want.Location) {
		return fmt.Errorf("GET %s: got %d %q, want %d %q", r.Path, a.Status, a.Location, r.Want.Status, r.Want.Location)
	}
	if r.Want.Body != 0 && a.Body != r.Want.Body {
		return fmt.Errorf("GET %s: got a body of %d bytes, want %d", r.Path, a.Body, r.Want.Body)
	}
	return nil
}

// verify sends every distinct request of sc to addr the way the scenario
// does (one keep-alive connection, a connection each, or pipelined
// batches) and checks every answer: a server that fails is not timed.
func verify(addr string, sc Scenario) error { return verifyTLS(addr, sc, nil) }

// verifyTLS is verify; a TLS scenario is sent over TLS with f's
// certificate, which the server must present.
func verifyTLS(addr string, sc Scenario, f *TLSFiles) error {
	if sc.TLS && f == nil {
		return fmt.Errorf("%s: a TLS scenario with no certificate to check", sc.Name)
	}
	deadline := time.Now().Add(60 * time.Second)
	if sc.Sitemap { // up to 10 ms a request in nginx and HAProxy
		deadline = time.Now().Add(3 * time.Minute)
	}
	dial := func() (net.Conn, *bufio.Reader, error) {
		if sc.TLS {
			return dialTLS(addr, f, deadline)
		}
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			return nil, nil, err
		}
		c.SetDeadline(deadline)
		return c, bufio.NewReaderSize(c, 64<<10), nil
	}
	if sc.Churn {
		for _, r := range sc.Reqs {
			if err := verifyClose(dial, r); err != nil {
				return err
			}
		}
		return nil
	}
	c, br, err := dial()
	if err != nil {
		return err
	}
	defer c.Close()
	batch := max(1, sc.Pipeline)
	for i := 0; i < len(sc.Reqs); i += batch {
		group := sc.Reqs[i:min(i+batch, len(sc.Reqs))]
		var buf []byte
		for _, r := range group {
			buf = append(buf, r.Raw...)
		}
		if _, err := c.Write(buf); err != nil {
			return err
		}
		for _, r := range group {
			a, err := readAnswer(br, true)
			if err != nil {
				return fmt.Errorf("GET %s: %w", r.Path, err)
			}
			if err := check(r, a); err != nil {
				return err
			}
			if a.Close {
				return fmt.Errorf("GET %s: the server closed a keep-alive connection", r.Path)
			}
		}
	}
	return nil
}

// verifyClose sends r with Connection: close on a new connection: the
// answer must be right and the server must close after it.
func verifyClose(dial func() (net.Conn, *bufio.Reader, error), r Req) error {
	c, br, err := dial()
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := io.WriteString(c, r.Raw); err != nil {
		return err
	}
	a, err := readAnswer(br, true)
	if err != nil {
		return fmt.Errorf("GET %s: %w", r.Path, err)
	}
	if err := check(r, a); err != nil {
		return err
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		// %v: err is nil when a byte came instead of the close.
		return fmt.Errorf("GET %s with Connection: close: the server did not close the connection (%v)", r.Path, err)
	}
	return nil
}

// waitReady polls addr with r until it is answered correctly, and returns
// the time from launch to that answer. It gives up when the process exits
// or after limit.
func waitReady(p *Proc, addr string, r Req, limit time.Duration) (time.Duration, error) {
	var last error
	for time.Since(p.Started) < limit {
		if p.Exited() {
			return 0, fmt.Errorf("%s exited at start: %s", p.Name, p.LogTail())
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.SetDeadline(time.Now().Add(5 * time.Second))
			io.WriteString(c, r.Raw)
			var a Answer
			if a, err = readAnswer(bufio.NewReader(c), true); err == nil {
				err = check(r, a)
			}
			c.Close()
			if err == nil {
				return time.Since(p.Started), nil
			}
		}
		last = err
		time.Sleep(2 * time.Millisecond)
	}
	return 0, fmt.Errorf("%s gave no correct answer within %s: %v; log: %s", p.Name, limit, last, p.LogTail())
}
