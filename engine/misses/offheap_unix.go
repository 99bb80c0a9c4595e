//go:build unix

package misses

import "syscall"

// offHeap returns n zeroed bytes mapped outside the Go heap, and the
// function that unmaps them; pages are backed by memory only once
// written. It falls back to the heap when the mapping fails.
func offHeap(n int) ([]byte, func([]byte)) {
	mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n), nil
	}
	return mem, func(b []byte) { syscall.Munmap(b) }
}
