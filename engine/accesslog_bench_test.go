package engine

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/engine/accesslog"
)

// BenchmarkServeWithAccessLog is BenchmarkServe's exact hit with the
// access log on, in each format: the cost of a line, its two clock
// reads (the read's start, as OnTraffic takes it, and the answer's) and
// its hand-over to the writer included. Compare with
// BenchmarkServe/exact for the log's share.
func BenchmarkServeWithAccessLog(b *testing.B) {
	layout, err := accesslog.ParseFormat(`$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $host $request_time`)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		format accesslog.Format
	}{{"combined", accesslog.Combined}, {"json", accesslog.JSON}, {"layout", layout}} {
		b.Run(bc.name, func(b *testing.B) {
			alog, err := accesslog.Open(filepath.Join(b.TempDir(), "access.log"), bc.format)
			if err != nil {
				b.Fatal(err)
			}
			defer alog.Close()
			f := newServeFixtureWith(b, Options{AccessLog: alog})
			buf := []byte("GET " + rules.ExactHit + " HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: curl/8.5.0\r\n\r\n")
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			dropped := alog.Dropped()
			for b.Loop() {
				f.conn.loop.readStart = time.Now()
				f.serve(b, buf)
			}
			f.conn.loop.alog.Flush()
			b.ReportMetric(float64(alog.Dropped()-dropped)/float64(b.N), "dropped/op")
		})
	}
}
