//go:build !linux

package engine

import "errors"

// stopAccepting is only implemented on Linux; elsewhere the listeners
// stay open until Stop.
func (s *Server) stopAccepting() error {
	return errors.New("closing listeners before Stop is only supported on Linux")
}
