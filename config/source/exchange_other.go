//go:build !linux

package source

import "errors"

// exchange has no one-step swap outside Linux: Commit renames in two
// steps.
func exchange(a, b string) error { return errors.ErrUnsupported }
