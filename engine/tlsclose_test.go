package engine_test

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestTLSCloseInOneWrite checks the end of a Connection: close exchange
// over TLS 1.2, where records keep their type on the wire: the answer
// (application data, 23) and the close_notify alert (21) come in one
// data segment (the kernel's count, TCP_INFO), then the TCP close. The
// alert must not be lost to the write being held back for it.
func TestTLSCloseInOneWrite(t *testing.T) {
	t.Parallel()
	srv := overTLS.start(t, engine.Options{})
	_, roots := testCertificate(t)
	raw, err := net.DialTimeout("tcp", srv.TLSAddr(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.SetDeadline(time.Now().Add(testutil.Patience))
	c := tls.Client(raw, &tls.Config{ServerName: "example.com", RootCAs: roots, MaxVersion: tls.VersionTLS12})
	if err := c.Handshake(); err != nil {
		t.Fatal(err)
	}
	segs0 := dataSegmentsIn(t, raw)
	if _, err := c.Write([]byte("GET /old HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	// Read the rest below crypto/tls: whole records, their types only.
	var types []byte
	buf := make([]byte, 64<<10)
	var got []byte
	for {
		n, err := raw.Read(buf)
		if n > 0 {
			got = append(got, buf[:n]...)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
	}
	for len(got) >= 5 {
		l := int(got[3])<<8 | int(got[4])
		types = append(types, got[0])
		got = got[min(len(got), 5+l):]
	}
	if d := cmp.Diff([]byte{23, 21}, types); d != "" || len(got) != 0 {
		t.Errorf("records after the request (-want +got):\n%s%d bytes left over", d, len(got))
	}
	if n := dataSegmentsIn(t, raw) - segs0; n != 1 {
		t.Errorf("the answer and the alert came in %d segments, want 1 (one write)", n)
	}
}

// dataSegmentsIn is the count of segments with data c has received.
func dataSegmentsIn(t *testing.T, c net.Conn) uint32 {
	t.Helper()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var info *unix.TCPInfo
	rc.Control(func(fd uintptr) { info, err = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) })
	if err != nil {
		t.Fatal(err)
	}
	return info.Data_segs_in
}
