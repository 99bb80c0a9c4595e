package accesslog

import (
	"net/netip"
	"strconv"
)

// formatter turns entries into lines of one Format. It keeps stamps and a
// scratch slice, so it belongs to one Buffer.
type formatter struct {
	format Format
	stamp  stamp
	// iso is the second stamp a layout of $variables may need
	// ($time_local and $time_iso8601 together); scratch holds $uri
	// while it is normalised.
	iso     stamp
	scratch []byte
}

// appendLine appends e's line, newline included, to dst.
func (f *formatter) appendLine(dst []byte, e *Entry) []byte {
	switch f.format.kind {
	case jsonKind:
		return f.appendJSON(dst, e)
	case customKind:
		return f.appendTemplate(dst, e)
	}
	return f.appendCombined(dst, e)
}

// maxLen bounds the length of e's line: each byte of a string can grow to
// at most 6 ("\u00XX", "\ufffd"), plus the fixed parts. Append uses it to
// hand a buffer over before an entry would make it grow.
func (f *formatter) maxLen(e *Entry) int {
	if f.format.kind == customKind {
		return f.format.t.maxLen(e)
	}
	const fixed = 512 // keys, punctuation, time, address, numbers
	return fixed + 6*e.strLen()
}

// appendCombined writes the layout documented in doc.go.
func (f *formatter) appendCombined(dst []byte, e *Entry) []byte {
	dst = appendClient(dst, e.Client, "-")
	dst = append(dst, " - - "...)
	dst = append(dst, f.stamp.get(e.Time, combinedLayout)...)
	dst = append(dst, ` "`...)
	dst = appendCombinedField(dst, e.Method)
	dst = append(dst, ' ')
	dst = appendCombinedField(dst, e.Target)
	if e.Proto != "" {
		dst = append(append(dst, ' '), e.Proto...)
	}
	dst = append(dst, `" `...)
	dst = appendInt(dst, int64(e.Status))
	dst = append(dst, ' ')
	dst = appendInt(dst, e.BodyBytes)
	dst = append(dst, ` "`...)
	dst = appendCombinedField(dst, e.Referer)
	dst = append(dst, `" "`...)
	dst = appendCombinedField(dst, e.UserAgent)
	dst = append(dst, `" "`...)
	if len(e.Location) > 0 {
		dst = appendCombinedField(dst, e.Location)
	} else {
		dst = appendCombinedField(dst, e.Upstream)
	}
	dst = append(dst, `" `...)
	dst = appendFixed(dst, e.Duration.Microseconds(), 6)
	dst = append(dst, ` "`...)
	dst = appendCombinedField(dst, e.Rule)
	dst = append(dst, `" "`...)
	dst = appendCombinedField(dst, e.Host)
	if e.ShadowRule != "" {
		// Only lines with a shadow rule grow, so that parsers of the
		// usual fields see no change.
		dst = append(dst, `" "`...)
		dst = appendCombinedField(dst, e.ShadowRule)
		dst = append(dst, `" "`...)
		dst = appendCombinedField(dst, e.ShadowLocation)
	}
	return append(dst, "\"\n"...)
}

// appendJSON writes one object with the keys, in the order, doc.go lists.
func (f *formatter) appendJSON(dst []byte, e *Entry) []byte {
	dst = append(dst, `{"time":"`...)
	dst = append(dst, f.stamp.get(e.Time, jsonLayout)...)
	dst = appendMillis(dst, e.Time)
	dst = append(dst, `Z","client":"`...)
	dst = appendClient(dst, e.Client, "")
	dst = append(dst, `","host":`...)
	dst = appendJSONString(dst, e.Host)
	dst = append(dst, `,"method":`...)
	dst = appendJSONString(dst, e.Method)
	dst = append(dst, `,"target":`...)
	dst = appendJSONString(dst, e.Target)
	dst = append(dst, `,"status":`...)
	dst = appendInt(dst, int64(e.Status))
	dst = append(dst, `,"location":`...)
	dst = appendJSONString(dst, e.Location)
	dst = append(dst, `,"upstream":`...)
	dst = appendJSONString(dst, e.Upstream)
	dst = append(dst, `,"bytes":`...)
	dst = appendInt(dst, e.Bytes)
	dst = append(dst, `,"body_bytes":`...)
	dst = appendInt(dst, e.BodyBytes)
	dst = append(dst, `,"duration_ms":`...)
	dst = appendFixed(dst, e.Duration.Microseconds(), 3)
	dst = append(dst, `,"user_agent":`...)
	dst = appendJSONString(dst, e.UserAgent)
	dst = append(dst, `,"referer":`...)
	dst = appendJSONString(dst, e.Referer)
	dst = append(dst, `,"rule":`...)
	dst = appendJSONString(dst, e.Rule)
	if e.ShadowRule != "" {
		dst = append(dst, `,"shadow_rule":`...)
		dst = appendJSONString(dst, e.ShadowRule)
		dst = append(dst, `,"shadow_location":`...)
		dst = appendJSONString(dst, e.ShadowLocation)
	}
	return append(dst, "}\n"...)
}

// appendClient appends the client's address, IPv4-mapped IPv6 addresses as
// plain IPv4 (a dual-stack listener reports IPv4 clients that way), or
// unknown when the address is not set. Neither form needs escaping.
func appendClient(dst []byte, a netip.Addr, unknown string) []byte {
	if !a.IsValid() {
		return append(dst, unknown...)
	}
	return a.Unmap().AppendTo(dst)
}

func appendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }
