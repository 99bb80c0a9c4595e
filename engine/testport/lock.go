//go:build unix

package testport

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// hold takes the lock of port until release (a test's Cleanup), or for
// the rest of the process where release is nil, and reports whether it
// got it. The lock is flock(2)'s on the port's file: it belongs
// to the open file, so another test in the same process is refused as
// one in another process is, and the kernel lets go of it when the
// process ends, however it ends. The files stay (removing one another
// test has open would let a third lock a new file of the same name);
// they are empty, one per port ever drawn.
func hold(port int, release func(func())) bool {
	dir := filepath.Join(os.TempDir(), "redirectd-testport")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return true // no shared folder: the bind check alone
	}
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDONLY, 0o666)
	if err != nil {
		return true
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return false
	}
	if release != nil {
		release(func() { f.Close() })
	}
	return true
}
