//go:build !unix

package misses

// offHeap returns n zeroed bytes; without mmap they are on the heap.
func offHeap(n int) ([]byte, func([]byte)) { return make([]byte, n), nil }
