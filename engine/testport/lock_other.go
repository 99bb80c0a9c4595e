//go:build !unix

package testport

// hold is the bind check alone where flock(2) is not at hand.
func hold(int, func(func())) bool { return true }
