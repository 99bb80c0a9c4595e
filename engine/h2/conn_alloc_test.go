//go:build !race

package h2_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/redirectd/redirectd/engine/h2"
)

// TestConnAnswerAllocs holds the framing of an answered stream (reading
// its HEADERS, decoding its fields, keeping its stream, encoding and
// writing the answer) to zero allocations once the connection's first
// streams have grown its buffers, over plain TCP (crypto/tls allocates
// per record read of its own). The client repeats one request, whose
// fields are all in the server's hpack table after the first. (The race
// detector allocates, hence the build tag.)
func TestConnAnswerAllocs(t *testing.T) {
	stream := redirectStreams(t)
	for range 200 {
		stream()
	}
	if allocs := testing.AllocsPerRun(1000, stream); allocs != 0 {
		t.Errorf("%v allocations per answered stream, want 0", allocs)
	}
}

// BenchmarkConnAnswer measures one answered redirect stream over
// loopback TCP, the client's raw frames included: a HEADERS frame in,
// its decoding, the handler's answer encoded and written, read back; the
// ownership checks off, as in production (outside race builds).
func BenchmarkConnAnswer(b *testing.B) {
	defer h2.SetCheckOwners(h2.SetCheckOwners(false)) // as in production
	stream := redirectStreams(b)
	for range 200 {
		stream()
	}
	b.ReportAllocs()
	for b.Loop() {
		stream()
	}
}

// redirectStreams serves one connection with the redirect handler and
// returns a function that asks for a redirect on a new stream and reads
// its answer, repeating one request whose fields are all in the server's
// hpack table after the first.
func redirectStreams(t testing.TB) func() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		h2.NewConn(nc, redirect{}, h2.Options{}, nil).Serve()
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	io.WriteString(c, http2.ClientPreface)
	fr := http2.NewFramer(c, c)
	fr.WriteSettings()
	var blk bytes.Buffer
	enc := hpack.NewEncoder(&blk)
	encode := func() []byte {
		blk.Reset()
		for _, f := range []hpack.HeaderField{{Name: ":method", Value: "GET"}, {Name: ":scheme", Value: "https"},
			{Name: ":authority", Value: "old.example"}, {Name: ":path", Value: "/old?utm=1"}, {Name: "user-agent", Value: "alloc-test/1"}} {
			enc.WriteField(f)
		}
		return bytes.Clone(blk.Bytes())
	}
	first, repeat := encode(), encode()
	frame := make([]byte, 9+len(repeat))
	frame[2] = byte(len(repeat))
	frame[3] = byte(http2.FrameHeaders)
	frame[4] = byte(http2.FlagHeadersEndHeaders | http2.FlagHeadersEndStream)
	copy(frame[9:], repeat)
	id := uint32(1)
	fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: first, EndStream: true, EndHeaders: true})
	var hdr [9]byte
	payload := make([]byte, 1<<14)
	read := func() {
		for {
			if _, err := io.ReadFull(c, hdr[:]); err != nil {
				t.Fatal(err)
			}
			n := int(hdr[0])<<16 | int(hdr[1])<<8 | int(hdr[2])
			if _, err := io.ReadFull(c, payload[:n]); err != nil {
				t.Fatal(err)
			}
			if binary.BigEndian.Uint32(hdr[5:]) == id && http2.Flags(hdr[4]).Has(http2.FlagDataEndStream) {
				if http2.FrameType(hdr[3]) != http2.FrameHeaders {
					t.Fatalf("stream %d ended by frame type %d, want HEADERS", id, hdr[3])
				}
				return
			}
		}
	}
	read()
	return func() {
		id += 2
		binary.BigEndian.PutUint32(frame[5:], id)
		if _, err := c.Write(frame); err != nil {
			t.Fatal(err)
		}
		read()
	}
}
