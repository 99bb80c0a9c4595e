package admin

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/shorten"
)

// Check reports what New would refuse in opts, without listening: a token
// that is not a b64token, an address that does not parse, or one beyond
// loopback without a token. redirectd check calls it, so that a config it
// passes is one serve starts with.
func Check(opts Options) error {
	if opts.Listen == "" {
		opts.Listen = DefaultListen
	}
	if err := checkToken(opts.Token); err != nil {
		return err
	}
	anyToken := opts.Token
	for _, t := range opts.Tokens {
		if err := checkToken(t.Token); err != nil || t.Token == "" {
			return fmt.Errorf("%w (the token named %q)", ErrBadToken, cut(t.Name))
		}
		if t.Role < edit.RoleViewer || t.Role > edit.RoleAdmin {
			return fmt.Errorf("admin: the token named %q has no role", cut(t.Name))
		}
		anyToken = t.Token
	}
	return checkListen(opts.Listen, anyToken)
}

// checkListen returns ErrTokenRequired when addr is not loopback and token
// is empty. Loopback is "localhost", 127.0.0.0/8 or ::1 (an IPv4-mapped
// ::ffff:127.x too); an empty host (":9180") and the unspecified addresses
// (0.0.0.0, ::) listen on every interface, and any other name might resolve
// to a public address, so all of these need a token.
func checkListen(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: cannot parse %q: %w", ErrBadListen, cut(addr), err)
	}
	if token == "" && !isLoopback(host) {
		return fmt.Errorf("%w (listen is %q)", ErrTokenRequired, cut(addr))
	}
	return nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	// Unmap: ::ffff:127.0.0.1 binds the IPv4 loopback. A zone ("::1%lo")
	// does not change that the address is loopback.
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// checkToken returns ErrBadToken unless token is empty or a b64token:
//
//	b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
//
// (RFC 6750, section 2.1). Anything else could not be sent in the header
// as configured, so every request would get a 401 for a reason that is hard
// to see.
func checkToken(token string) error {
	body := strings.TrimRight(token, "=")
	if token != "" && body == "" {
		return ErrBadToken
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("-._~+/", c) >= 0
		if !ok {
			return ErrBadToken
		}
	}
	return nil
}

// cut shortens s for an error message, so a pasted blob does not flood the
// log.
func cut(s string) string { return shorten.Text(s, 64) }

// listenError says why the admin endpoints cannot listen on addr, once
// (the command names the config and [admin]), and, for an address in
// use, what to do: a second serve of the same config meets the admin
// address first, since the admin endpoints start before the traffic
// listeners.
func listenError(addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("cannot listen on %s: address already in use (another redirectd, or another server, listens there): stop it first, or give this one another admin address with serve -admin-listen ADDR (with -upgrade to take over from a running redirectd without downtime)", addr)
	}
	return fmt.Errorf("cannot listen on %s: %w", addr, err)
}
