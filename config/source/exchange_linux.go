package source

import "golang.org/x/sys/unix"

// exchange swaps the folders a and b in one step (renameat2 with
// RENAME_EXCHANGE), so that a crash finds each name holding one of the
// two, never neither. A file system that cannot answers an error, and
// Commit renames in two steps instead.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
