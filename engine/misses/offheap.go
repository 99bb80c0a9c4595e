package misses

import (
	"runtime"
	"unsafe"
)

// The sketch's arrays are kept outside the Go heap. Its default 65,536
// slots take about 26 MB, allocated at start and mostly untouched until
// misses come in, which is no cost in RSS; but on the heap they counted
// as live memory, so the collector let garbage grow by as much again
// before it ran: a server answering a new connection per request (about
// 700 bytes of garbage each) went from 20 to 48 MiB of RSS in two
// seconds, where the heap of its rules is 10 MiB. The arrays hold no
// pointers, so the collector has no need to see them.

// carver hands out the arrays of one sketch from one block.
type carver struct {
	mem []byte
	off int
}

// carve returns the next n elements of T, zeroed, from c's block.
func carve[T any](c *carver, n int) []T {
	var z T
	size, align := int(unsafe.Sizeof(z)), int(unsafe.Alignof(z))
	c.off = (c.off + align - 1) &^ (align - 1)
	if n == 0 {
		return []T{}
	}
	s := unsafe.Slice((*T)(unsafe.Pointer(&c.mem[c.off])), n)
	c.off += n * size
	return s
}

// sketchBytes bounds the bytes carve takes for a sketch of capacity slots
// and a hash table of tableLen entries, alignment included.
func sketchBytes(capacity, tableLen int) int {
	const arrays = 18
	perSlot := 5*8 + 1 + 2 + 1 + 4*4 + slotSize + 8 + 3*4 // slots, then buckets
	return capacity*perSlot + tableLen*4 + arrays*8
}

// newCarver returns a carver over n zeroed bytes outside the Go heap,
// given back to the OS once owner is unreachable.
func newCarver[T any](owner *T, n int) *carver {
	mem, free := offHeap(n)
	if free != nil {
		runtime.AddCleanup(owner, func(mem []byte) { free(mem) }, mem)
	}
	return &carver{mem: mem}
}
