package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"
)

// rawAnswer sends "GET target" with Host host on a new connection to addr,
// asking it to close, and reads the answer's bytes to the end: it returns
// the status code and the Location field as they were on the wire.
func rawAnswer(t *testing.T, addr, host, target string) (int, string) {
	t.Helper()
	return rawAnswerWith(t, addr, host, target, "")
}

// rawAnswerWith is rawAnswer sending the header lines extra too (each
// ending in "\r\n").
func rawAnswerWith(t *testing.T, addr, host, target, extra string) (int, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n%sConnection: close\r\n\r\n", target, host, extra)
	raw, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("%s %s: %v after %q", host, target, err, raw)
	}
	head, _, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	lines := bytes.Split(head, []byte("\r\n"))
	if !ok || len(lines[0]) < 12 || !bytes.HasPrefix(lines[0], []byte("HTTP/1.1 ")) {
		t.Fatalf("%s %s: not an HTTP/1.1 answer: %q", host, target, raw)
	}
	status, err := strconv.Atoi(string(lines[0][9:12]))
	if err != nil {
		t.Fatalf("%s %s: status line %q", host, target, lines[0])
	}
	loc := ""
	for _, l := range lines[1:] {
		if v, ok := bytes.CutPrefix(l, []byte("Location: ")); ok {
			loc = string(v)
		}
	}
	return status, loc
}

func execCommand(name string, args ...string) *exec.Cmd { return exec.Command(name, args...) }
