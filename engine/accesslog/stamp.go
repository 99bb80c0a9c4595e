package accesslog

import "time"

// stamp caches the formatted second of the last entry. Loops answer many
// requests per second, and time.Time.AppendFormat costs more than the rest
// of a line, so the second is formatted only when Unix() changes; JSON's
// milliseconds are appended by hand.
type stamp struct {
	unix  int64
	valid bool
	text  []byte // "[30/Nov/2026:05:10:14 +0000]" or "2026-11-30T05:10:14"
}

const (
	combinedLayout = "[02/Jan/2006:15:04:05 -0700]"
	jsonLayout     = "2006-01-02T15:04:05"
	// nginx's $time_local and $time_iso8601.
	localLayout   = "02/Jan/2006:15:04:05 -0700"
	iso8601Layout = "2006-01-02T15:04:05-07:00"
)

// get returns the formatted second of t, in UTC and the layout (always the
// same one for a stamp); the slice is valid until the next call.
func (s *stamp) get(t time.Time, layout string) []byte {
	if u := t.Unix(); !s.valid || u != s.unix {
		if s.text == nil {
			s.text = make([]byte, 0, 64)
		}
		s.text = t.UTC().AppendFormat(s.text[:0], layout)
		s.unix, s.valid = u, true
	}
	return s.text
}

// appendMillis appends ".mmm" for t's millisecond.
func appendMillis(dst []byte, t time.Time) []byte {
	ms := t.Nanosecond() / int(time.Millisecond)
	return append(dst, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
}

// appendFixed appends v/10^digits with exactly digits decimals ("0.000042"
// for 42 with 6), in integers so it neither rounds nor allocates. Negative
// values print as 0: a duration cannot be negative, a clock step can make it
// look so.
func appendFixed(dst []byte, v int64, digits int) []byte {
	if v < 0 {
		v = 0
	}
	div := int64(1)
	for range digits {
		div *= 10
	}
	dst = appendInt(dst, v/div)
	dst = append(dst, '.')
	frac := v % div
	for div /= 10; div > 0; div /= 10 {
		dst = append(dst, byte('0'+frac/div))
		frac %= div
	}
	return dst
}
