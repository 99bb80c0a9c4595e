package engine

import (
	"net/http"
	"sync/atomic"
	"time"
)

// dateHeader holds the "Date: ...\r\n" line every answer carries (RFC 9110
// 6.6.1). Formatting a time per request would cost more than the rest of a
// redirect, so the line is rebuilt once a second and shared through an
// atomic pointer.
type dateHeader struct {
	line atomic.Pointer[[]byte]
}

func (d *dateHeader) update(now time.Time) {
	b := make([]byte, 0, 40)
	b = append(b, "Date: "...)
	b = now.UTC().AppendFormat(b, http.TimeFormat)
	b = append(b, "\r\n"...)
	d.line.Store(&b)
}

func (d *dateHeader) get() []byte { return *d.line.Load() }
