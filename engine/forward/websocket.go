package forward

import (
	"bytes"

	"github.com/redirectd/redirectd/httpparse"
)

// IsWebSocket reports whether req asks to switch to WebSocket (RFC 6455
// 4.1): an HTTP/1.1 GET without a body whose Connection names upgrade and
// one of whose Upgrade fields names websocket. The engine refuses one
// with several Upgrade fields (UpgradeFields). Upgrade on HTTP/1.0 is
// ignored (RFC 9110 7.8): the request is forwarded without it.
func IsWebSocket(req *httpparse.Request) bool {
	if string(req.Method) != "GET" || req.Minor == 0 || req.ContentLength > 0 || req.Chunked {
		return false
	}
	var upgrade, connUpgrade bool
	for i := range req.Headers {
		h := &req.Headers[i]
		switch {
		case h.Is("upgrade"):
			upgrade = upgrade || bytes.EqualFold(bytes.TrimSpace(h.Value), []byte("websocket"))
		case h.Is("connection"):
			for tok := range bytes.SplitSeq(h.Value, []byte{','}) {
				if bytes.EqualFold(bytes.TrimSpace(tok), []byte("upgrade")) {
					connUpgrade = true
				}
			}
		}
	}
	return upgrade && connUpgrade
}

// UpgradeFields returns the value of req's Upgrade field and how many
// there are.
func UpgradeFields(req *httpparse.Request) (value []byte, n int) {
	for i := range req.Headers {
		if h := &req.Headers[i]; h.Is("upgrade") {
			value, n = bytes.TrimSpace(h.Value), n+1
		}
	}
	return value, n
}
