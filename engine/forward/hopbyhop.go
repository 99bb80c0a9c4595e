package forward

import "bytes"

// hopByHop lists the fields that describe one connection and are not
// forwarded (RFC 9110 7.6.1), in lower case. engine/h2 keeps its own
// list of the fields HTTP/2 forbids (RFC 9113 8.2.2), which differs: TE
// may be sent there, as "trailers".
var hopByHop = []string{"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"}

// IsHopByHop reports whether the field name is hop-by-hop: one of
// RFC 9110's, or one that the message's Connection fields name
// (connTokens: their values joined with commas).
func IsHopByHop(name []byte, connTokens []byte) bool {
	for _, h := range hopByHop {
		if len(name) == len(h) && bytes.EqualFold(name, []byte(h)) {
			return true
		}
	}
	for tok := range bytes.SplitSeq(connTokens, []byte{','}) {
		if bytes.EqualFold(bytes.TrimSpace(tok), name) {
			return true
		}
	}
	return false
}
