package misses

import (
	"bytes"
	"hash/maphash"
	"math/bits"
	"sync/atomic"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/internal/ascii"
)

// Key sizes. A path longer than MaxPath bytes is counted under its first
// MaxPath bytes (and marked truncated): the paths an operator needs to add
// redirects for are short, and a fixed slot is what keeps Add free of
// allocation. A host is rarely longer than MaxHost; one that is, is cut
// the same way.
const (
	MaxHost  = 64
	MaxPath  = 256
	slotSize = MaxHost + MaxPath
)

// none marks the end of a list and an empty hash bucket.
const none = -1

// Sketch is a space-saving sketch of fixed capacity. Slot i holds one
// tracked key; bucket b holds the slots whose count is bcount[b]. All
// arrays are allocated by New, outside the Go heap (offheap.go), and never
// grow.
type Sketch struct {
	seed maphash.Seed
	used int32 // slots in use: 0..cap
	cap  int32

	// Per slot.
	count, err  []uint64
	first, last []int64
	hash        []uint64
	hostLen     []uint8
	pathLen     []uint16
	trunc       []bool
	bucket      []int32 // the slot's bucket
	snext       []int32 // next slot in the same bucket
	sprev       []int32
	hnext       []int32 // next slot in the same hash chain
	keys        []byte  // slot i's key at keys[i*slotSize:]: host, then path

	// The hash index: table[h&mask] is one more than the first slot of a
	// chain, 0 for none, so that a new sketch's table is the OS's zeroed
	// pages, untouched (and no RSS) until misses come in.
	table []int32
	mask  uint64

	// Per bucket; buckets form a list ascending by count from bmin.
	bcount       []uint64
	bhead        []int32
	bnext, bprev []int32
	bfree        int32 // a list of free buckets, through bnext
	bfresh       int32 // the first bucket never used: bnext needs no filling at New
	bmin         int32

	scratch [slotSize]byte

	// Published for other goroutines (metrics): the slots in use and the
	// smallest count once every slot is taken (0 before), which bounds
	// the error of any key taken over from now on. lastMin avoids an
	// atomic store on every Add.
	tracked  atomic.Int64
	minCount atomic.Uint64
	lastMin  uint64
}

// New returns a sketch of capacity slots (at least 1).
func New(capacity int) *Sketch {
	capacity = max(capacity, 1)
	s := &Sketch{seed: maphash.MakeSeed(), cap: int32(capacity)}
	// Twice the slots, rounded up to a power of two: chains stay short.
	n := 1 << bits.Len(uint(2*capacity-1))
	c := newCarver(s, sketchBytes(capacity, n))
	s.count = carve[uint64](c, capacity)
	s.err = carve[uint64](c, capacity)
	s.first = carve[int64](c, capacity)
	s.last = carve[int64](c, capacity)
	s.hash = carve[uint64](c, capacity)
	s.hostLen = carve[uint8](c, capacity)
	s.pathLen = carve[uint16](c, capacity)
	s.trunc = carve[bool](c, capacity)
	s.bucket = carve[int32](c, capacity)
	s.snext = carve[int32](c, capacity)
	s.sprev = carve[int32](c, capacity)
	s.hnext = carve[int32](c, capacity)
	s.keys = carve[byte](c, capacity*slotSize)
	s.table = carve[int32](c, n)
	s.mask = uint64(n - 1)
	s.bcount = carve[uint64](c, capacity)
	s.bhead = carve[int32](c, capacity)
	s.bnext = carve[int32](c, capacity)
	s.bprev = carve[int32](c, capacity)
	s.bfree = none
	s.bmin = none
	return s
}

// Cap returns the number of slots.
func (s *Sketch) Cap() int { return int(s.cap) }

// Tracked returns the number of keys tracked; safe from any goroutine.
func (s *Sketch) Tracked() int { return int(s.tracked.Load()) }

// MinCount returns the smallest count once the sketch is full, else 0:
// the most that a key not tracked can have been seen, and the most that
// a key taken over from now on overcounts. Safe from any goroutine.
func (s *Sketch) MinCount() uint64 { return s.minCount.Load() }

// Add counts one miss of path on host at now (Unix nanoseconds). host is
// compared without case and without its port; path as sent.
func (s *Sketch) Add(host, path []byte, now int64) {
	hl, pl, trunc := s.key(host, path)
	key := s.scratch[:hl+pl]
	h := maphash.Bytes(s.seed, key)
	for i := s.table[h&s.mask] - 1; i != none; i = s.hnext[i] {
		if s.hash[i] == h && int(s.hostLen[i]) == hl && int(s.pathLen[i]) == pl &&
			bytes.Equal(s.keys[int(i)*slotSize:int(i)*slotSize+hl+pl], key) {
			s.increment(i)
			s.last[i] = now
			s.publishMin()
			return
		}
	}
	var i int32
	if s.used < s.cap {
		i = s.used
		s.used++
		s.tracked.Store(int64(s.used))
		s.count[i], s.err[i] = 0, 0
		s.attachFirst(i)
	} else {
		// Take over a slot of the smallest count: the new key may have
		// been seen that often before, uncounted.
		i = s.bhead[s.bmin]
		s.unhash(i)
		s.err[i] = s.count[i]
		s.increment(i)
	}
	copy(s.keys[int(i)*slotSize:], key)
	s.hash[i], s.hostLen[i], s.pathLen[i], s.trunc[i] = h, uint8(hl), uint16(pl), trunc
	s.first[i], s.last[i] = now, now
	s.hnext[i] = s.table[h&s.mask] - 1
	s.table[h&s.mask] = i + 1
	s.publishMin()
}

// key writes host (lower case, without port, at most MaxHost bytes) then
// path (at most MaxPath bytes) into scratch.
func (s *Sketch) key(host, path []byte) (hl, pl int, trunc bool) {
	host = httpparse.HostName(host)
	if len(host) > MaxHost {
		host, trunc = host[:MaxHost], true
	}
	for i, c := range host {
		s.scratch[i] = ascii.Lower(c)
	}
	if len(path) > MaxPath {
		path, trunc = path[:MaxPath], true
	}
	copy(s.scratch[len(host):], path)
	return len(host), len(path), trunc
}

// increment adds one to slot i's count, moving it to the next bucket.
func (s *Sketch) increment(i int32) {
	b := s.bucket[i]
	c := s.bcount[b] + 1
	nb := s.bnext[b]
	s.count[i] = c
	alone := s.bhead[b] == i && s.snext[i] == none
	if alone && (nb == none || s.bcount[nb] != c) {
		// The bucket keeps its place: the next one counts more than c.
		s.bcount[b] = c
		return
	}
	s.detach(i)
	if nb != none && s.bcount[nb] == c {
		s.attach(i, nb)
	} else {
		s.attach(i, s.newBucketAfter(b, c))
	}
	if alone {
		s.freeBucket(b)
	}
}

// attachFirst puts a new slot, of count 1, into the list.
func (s *Sketch) attachFirst(i int32) {
	s.count[i] = 1
	if s.bmin != none && s.bcount[s.bmin] == 1 {
		s.attach(i, s.bmin)
		return
	}
	b := s.allocBucket(1)
	s.bprev[b], s.bnext[b] = none, s.bmin
	if s.bmin != none {
		s.bprev[s.bmin] = b
	}
	s.bmin = b
	s.attach(i, b)
}

func (s *Sketch) attach(i, b int32) {
	s.bucket[i] = b
	s.sprev[i] = none
	s.snext[i] = s.bhead[b]
	if s.bhead[b] != none {
		s.sprev[s.bhead[b]] = i
	}
	s.bhead[b] = i
}

// detach takes slot i out of its bucket's list of slots.
func (s *Sketch) detach(i int32) {
	b := s.bucket[i]
	if p := s.sprev[i]; p != none {
		s.snext[p] = s.snext[i]
	} else {
		s.bhead[b] = s.snext[i]
	}
	if n := s.snext[i]; n != none {
		s.sprev[n] = s.sprev[i]
	}
}

// allocBucket takes a free bucket, else the next never used: at most
// s.cap are ever in use, since each holds a slot.
func (s *Sketch) allocBucket(c uint64) int32 {
	b := s.bfree
	if b != none {
		s.bfree = s.bnext[b]
	} else {
		b = s.bfresh
		s.bfresh++
	}
	s.bcount[b], s.bhead[b] = c, none
	return b
}

func (s *Sketch) newBucketAfter(b int32, c uint64) int32 {
	nb := s.allocBucket(c)
	s.bprev[nb], s.bnext[nb] = b, s.bnext[b]
	if s.bnext[b] != none {
		s.bprev[s.bnext[b]] = nb
	}
	s.bnext[b] = nb
	return nb
}

func (s *Sketch) freeBucket(b int32) {
	p, n := s.bprev[b], s.bnext[b]
	if p != none {
		s.bnext[p] = n
	} else {
		s.bmin = n
	}
	if n != none {
		s.bprev[n] = p
	}
	s.bnext[b] = s.bfree
	s.bfree = b
}

// unhash takes slot i out of its hash chain.
func (s *Sketch) unhash(i int32) {
	head := &s.table[s.hash[i]&s.mask]
	if *head == i+1 {
		*head = s.hnext[i] + 1
		return
	}
	j := *head - 1
	for s.hnext[j] != i {
		j = s.hnext[j]
	}
	s.hnext[j] = s.hnext[i]
}

func (s *Sketch) publishMin() {
	if s.used < s.cap {
		return
	}
	if m := s.bcount[s.bmin]; m != s.lastMin {
		s.lastMin = m
		s.minCount.Store(m)
	}
}
