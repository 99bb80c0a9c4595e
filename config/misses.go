package config

import "fmt"

// Misses is the [misses] table: how many paths that matched no rule the
// server tracks for the admin endpoint GET /misses.
type Misses struct {
	// Capacity is the number of paths tracked (default
	// DefaultMissesCapacity); 0 turns the counting off.
	Capacity int
}

// rawMisses is [misses] as decoded: nil means absent.
type rawMisses struct {
	Capacity *int `toml:"capacity"`
}

// DefaultMissesCapacity tracks 65,536 paths: about 22 MB, since each
// slot keeps 320 bytes of host and path.
const DefaultMissesCapacity = 65536

// maxMissesCapacity bounds [misses] capacity to about 350 MB of slots:
// more is surely a typo.
const maxMissesCapacity = 1 << 20

func checkMisses(file string, raw *rawMisses, loc *locator, errs *errorList) Misses {
	if raw.Capacity == nil {
		return Misses{Capacity: DefaultMissesCapacity}
	}
	c := *raw.Capacity
	if c < 0 || c > maxMissesCapacity {
		errs.add(&Error{File: file, Line: loc.line("misses", 0, "capacity"), What: "[misses]", Key: "capacity",
			Msg: fmt.Sprintf("%d is out of range; use 0 (no counting) to %d (each path tracked takes about 340 bytes)", c, maxMissesCapacity)})
	}
	return Misses{Capacity: c}
}
