//go:build !linux

package upstream

import "net"

// dirty is not checked where the socket cannot be peeked without
// waiting; fasthttp's own check of an idle connection still applies.
func dirty(net.Conn) bool { return false }
