//go:build !unix

package testport

import "testing"

// hold is the bind check alone where flock(2) is not at hand.
func hold(testing.TB, int) bool { return true }
