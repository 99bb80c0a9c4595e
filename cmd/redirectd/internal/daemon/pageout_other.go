//go:build !linux

package daemon

// pageOutExecutable does nothing where MADV_PAGEOUT is unknown.
func pageOutExecutable() {}
