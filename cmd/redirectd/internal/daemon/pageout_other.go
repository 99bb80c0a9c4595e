//go:build !linux

package daemon

// pageOutExecutable does nothing off Linux: the mappings are found in
// Linux's /proc/self/smaps.
func pageOutExecutable() {}
