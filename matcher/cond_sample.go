package matcher

import (
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"
)

// The when.sample condition: a share of clients (0.1 for a tenth), the
// same clients on every request and every node, for staged moves and
// A/B splits. A client falls in it when the hash of its address
// (sampleBucket) is below the share, so rules on one path with shares
// 0.1 then 0.5 send the first tenth to the first and the next four
// tenths to the second. An IPv6 client is hashed by its /64, which its
// privacy addresses share. A client whose address is unknown falls in
// no share. No Vary: no field says who the client is.
var sampleType = condType{key: "sample", inWhen: true, inUnless: true,
	has:   func(w *When) bool { return w.Sample != 0 },
	count: checksOf[*sampleCond],
	toml:  func(w *When, f TOMLForm) string { return strconv.FormatFloat(w.Sample, 'g', -1, 64) },
	unit:  sampleUnit{},
}

type sampleUnit struct{}

// sampleCond is a compiled when.sample: the share as a bound on
// sampleBucket.
type sampleCond struct{ below uint64 }

func (sampleUnit) parse(w *When, v any, kind func(any) string) error {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	default:
		return fmt.Errorf("must be a share of clients between 0 and 1, such as 0.1, not %s", kind(v))
	}
	if err := checkSample(f); err != nil {
		return err
	}
	w.Sample = f
	return nil
}

func checkSample(f float64) error {
	if !(f > 0 && f <= 1) {
		return fmt.Errorf("%v is not a share of clients; write a number above 0 and at most 1, such as 0.1 for a tenth", f)
	}
	return nil
}

func (sampleUnit) compile(w *When, field string, key *strings.Builder) ([]condCheck, error) {
	if w.Sample == 0 {
		return nil, nil
	}
	if err := checkSample(w.Sample); err != nil {
		return nil, fieldErr(field+".sample", "%v", err)
	}
	c := &sampleCond{below: math.MaxUint64}
	if w.Sample < 1 {
		c.below = uint64(w.Sample * (1 << 64))
	}
	key.WriteString("p" + strconv.FormatFloat(w.Sample, 'g', -1, 64) + "\x00")
	return []condCheck{c}, nil
}

func (c *sampleCond) holds(m *Match) bool {
	a := clientOf(m.Req)
	if !a.IsValid() {
		return false
	}
	return c.below == math.MaxUint64 || sampleBucket(a) < c.below
}

// sampleBucket hashes a client address (an IPv6 one by its /64) with
// FNV-1a 64 and a final mix, so that the share is the same on every node
// and after a restart, and near addresses spread evenly.
func sampleBucket(a netip.Addr) uint64 {
	b := a.As16()
	n := 16
	if !a.Is4() {
		n = 8
	}
	h := uint64(14695981039346656037)
	for _, c := range b[:n] {
		h ^= uint64(c)
		h *= 1099511628211
	}
	// FNV leaves its low input bits in the high output bits poorly mixed;
	// splitmix64's finaliser spreads them.
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

func (sampleUnit) text(w *When) []string {
	return []string{"sample = " + strconv.FormatFloat(w.Sample, 'g', -1, 64)}
}

func (sampleUnit) vary(*When) []string { return nil }

func (sampleUnit) got(_ *When, _ int, m *Match) string {
	if a := clientOf(m.Req); a.IsValid() {
		return "the client " + a.String() + " falls at " + strconv.FormatFloat(float64(sampleBucket(a)>>11)/(1<<53), 'f', 3, 64)
	}
	return "the client's address is unknown"
}
