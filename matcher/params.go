package matcher

import (
	"bytes"
	"hash/maphash"

	"github.com/redirectd/redirectd/internal/ascii"
)

// MaxParams bounds how many query parameters, and how many cookies of the
// Cookie field, a lookup reads for conditions: the first MaxParams that
// have a name (parameters and cookies with an empty name are skipped, as
// no condition names one). Those after them are not read at all, as if the
// client had not sent them, so that what one request costs does not grow
// with its query or its Cookie field. Browsers keep at most about 180
// cookies per site; PHP reads 1,000 parameters (max_input_vars), Go's
// net/url 10,000.
const MaxParams = 256

// paramSeed is the hash seed of the per-request tables, chosen at start so
// that a client cannot pick parameters that all land in one slot.
var paramSeed = maphash.MakeSeed()

// params is a request's query or Cookie field split once per lookup into
// at most MaxParams (name, value) pairs, query ones decoded, with two
// small hash tables over them: by name (its first occurrence, for cookies
// and for a parameter asked for with any value) and by pair (any
// occurrence, for a query condition with a value). Conditions read it
// instead of the field, so each costs a probe however many rules ask.
type params struct {
	ready bool
	src   []byte // the query or field, as the request holds it
	buf   []byte // the names and values that needed decoding
	list  []param
	// byName and byPair hold 1 + an index into list, 0 for an empty slot;
	// their length is a power of two, at least twice len(list). They are
	// built only past smallParams: a short list is searched in turn.
	byName, byPair []int32
}

// smallParams is the longest list searched in turn rather than hashed:
// most queries and Cookie fields have a few pairs, and comparing them
// costs less than hashing them.
const smallParams = 8

type param struct {
	// The name is [n0:n1] and the value [v0:v1] of src, or of buf when
	// dec: offsets, not slices, so that the list holds no pointers.
	n0, n1, v0, v1 int32
	dec            bool
	hn, hp         uint64 // hashes of the name and of the pair
	// firstName and firstPair mark the first occurrence of the name and
	// of the pair: the parameters the index (altIndex) looks up.
	firstName, firstPair bool
}

func (p *params) name(i int) []byte {
	e := &p.list[i]
	if e.dec {
		return p.buf[e.n0:e.n1]
	}
	return p.src[e.n0:e.n1]
}

func (p *params) value(i int) []byte {
	e := &p.list[i]
	if e.dec {
		return p.buf[e.v0:e.v1]
	}
	return p.src[e.v0:e.v1]
}

// setQuery splits query (without '?') at '&' and each parameter at its
// first '=', decoding percent-escapes and '+' as a query condition
// compares them. One pass over the bytes, as most parameters are short.
func (p *params) setQuery(query []byte) {
	p.src, p.buf, p.list, p.ready = query, p.buf[:0], p.list[:0], true
	for i := 0; i < len(query) && len(p.list) < MaxParams; i++ {
		start, eq, esc := i, -1, false
		for ; i < len(query); i++ {
			k := queryByte[query[i]]
			if k == 0 {
				continue
			}
			if k == qAmp {
				break
			}
			if k == qEq && eq < 0 {
				eq = i
			}
			esc = esc || k == qEsc
		}
		n1, v0 := i, i
		if eq >= 0 {
			n1, v0 = eq, eq+1
		}
		if n1 == start {
			continue
		}
		if !esc {
			p.list = append(p.list, param{n0: int32(start), n1: int32(n1), v0: int32(v0), v1: int32(i)})
			continue
		}
		n0 := len(p.buf)
		p.buf = appendQueryDecoded(p.buf, query[start:n1])
		d1 := len(p.buf)
		p.buf = appendQueryDecoded(p.buf, query[v0:i])
		p.list = append(p.list, param{dec: true, n0: int32(n0), n1: int32(d1), v0: int32(d1), v1: int32(len(p.buf))})
	}
	p.index()
}

// queryByte classes the bytes setQuery looks for; 0 is any other.
var queryByte = [256]uint8{'&': qAmp, '=': qEq, '%': qEsc, '+': qEsc}

const (
	qAmp = 1 + iota
	qEq
	qEsc
)

// setCookies splits a Cookie field value ("a=1; b=2") as CookieValue
// does: at ';', each pair trimmed of spaces and tabs and split at its
// first '=', a value in double quotes without them; a pair without '='
// is skipped.
func (p *params) setCookies(field []byte) {
	p.src, p.buf, p.list, p.ready = field, p.buf[:0], p.list[:0], true
	for i := 0; i < len(field) && len(p.list) < MaxParams; i++ {
		start, eq := i, -1
		for ; i < len(field) && field[i] != ';'; i++ {
			if field[i] == '=' && eq < 0 {
				eq = i
			}
		}
		// Trimmed of spaces and tabs: [lo:hi].
		lo, hi := start, i
		for lo < hi && (field[lo] == ' ' || field[lo] == '\t') {
			lo++
		}
		for hi > lo && (field[hi-1] == ' ' || field[hi-1] == '\t') {
			hi--
		}
		if eq <= lo {
			// No '=', or an empty name.
			continue
		}
		v0, v1 := eq+1, hi
		if v1-v0 >= 2 && field[v0] == '"' && field[v1-1] == '"' {
			v0, v1 = v0+1, v1-1
		}
		p.list = append(p.list, param{n0: int32(lo), n1: int32(eq), v0: int32(v0), v1: int32(v1)})
	}
	p.index()
}

// appendQueryDecoded appends raw with its percent-escapes and '+' decoded;
// a malformed escape is kept as written, as most servers do.
func appendQueryDecoded(dst, raw []byte) []byte {
	i := 0
	for i < len(raw) && raw[i] != '%' && raw[i] != '+' {
		i++
	}
	dst = append(dst, raw[:i]...)
	for ; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '+':
			c = ' '
		case c == '%' && i+2 < len(raw) && ascii.Unhex(raw[i+1]) >= 0 && ascii.Unhex(raw[i+2]) >= 0:
			c = byte(ascii.Unhex(raw[i+1])<<4 | ascii.Unhex(raw[i+2]))
			i += 2
		}
		dst = append(dst, c)
	}
	return dst
}

func pairHash(hn, hv uint64) uint64 {
	return hn ^ (hv + 0x9e3779b97f4a7c15 + hn<<6 + hn>>2)
}

// index marks the first occurrences in list and, past smallParams,
// builds byName and byPair over it.
func (p *params) index() {
	if len(p.list) == 1 {
		p.list[0].firstName, p.list[0].firstPair = true, true
		return
	}
	if len(p.list) <= smallParams {
		for i := range p.list {
			e := &p.list[i]
			e.firstName, e.firstPair = true, true
			name, value := p.name(i), p.value(i)
			for o := 0; o < i && (e.firstName || e.firstPair); o++ {
				if bytes.Equal(p.name(o), name) {
					e.firstName = false
					if bytes.Equal(p.value(o), value) {
						e.firstPair = false
					}
				}
			}
		}
		return
	}
	size := 8
	for size < 2*len(p.list) {
		size *= 2
	}
	p.byName, p.byPair = fitSlots(p.byName, size), fitSlots(p.byPair, size)
	mask := uint64(size - 1)
	for i := range p.list {
		e := &p.list[i]
		name, value := p.name(i), p.value(i)
		e.hn = maphash.Bytes(paramSeed, name)
		e.hp = pairHash(e.hn, maphash.Bytes(paramSeed, value))
		e.firstName, e.firstPair = false, false
		j := e.hn & mask
		for ; p.byName[j] != 0; j = (j + 1) & mask {
			o := p.byName[j] - 1
			if p.list[o].hn == e.hn && bytes.Equal(p.name(int(o)), name) {
				break
			}
		}
		if p.byName[j] == 0 {
			p.byName[j], e.firstName = int32(i+1), true
		}
		j = e.hp & mask
		for ; p.byPair[j] != 0; j = (j + 1) & mask {
			o := p.byPair[j] - 1
			if p.list[o].hp == e.hp && bytes.Equal(p.name(int(o)), name) && bytes.Equal(p.value(int(o)), value) {
				break
			}
		}
		if p.byPair[j] == 0 {
			p.byPair[j], e.firstPair = int32(i+1), true
		}
	}
}

// fitSlots returns s cleared at length size, reusing its memory.
func fitSlots(s []int32, size int) []int32 {
	if cap(s) < size {
		return make([]int32, size)
	}
	s = s[:size]
	clear(s)
	return s
}

// first returns the value of the first parameter named name.
func (p *params) first(name string) ([]byte, bool) {
	if len(p.list) <= smallParams {
		for i := range p.list {
			if string(p.name(i)) == name {
				return p.value(i), true
			}
		}
		return nil, false
	}
	h := maphash.String(paramSeed, name)
	mask := uint64(len(p.byName) - 1)
	for j := h & mask; p.byName[j] != 0; j = (j + 1) & mask {
		o := int(p.byName[j] - 1)
		if p.list[o].hn == h && string(p.name(o)) == name {
			return p.value(o), true
		}
	}
	return nil, false
}

// has reports whether a parameter is named name with value.
func (p *params) has(name, value string) bool {
	if len(p.list) <= smallParams {
		for i := range p.list {
			if string(p.name(i)) == name && string(p.value(i)) == value {
				return true
			}
		}
		return false
	}
	hn := maphash.String(paramSeed, name)
	h := pairHash(hn, maphash.String(paramSeed, value))
	mask := uint64(len(p.byPair) - 1)
	for j := h & mask; p.byPair[j] != 0; j = (j + 1) & mask {
		o := int(p.byPair[j] - 1)
		if p.list[o].hp == h && string(p.name(o)) == name && string(p.value(o)) == value {
			return true
		}
	}
	return false
}

// holds reports whether the parameters satisfy query condition c: a
// parameter named c.Name, with c.Value unless that is AnyValue. (A
// parameter without '=' has the empty value: "k" and "k=" both meet k = "".)
func (p *params) holds(c *QueryCond) bool {
	if c.Value == AnyValue {
		_, ok := p.first(c.Name)
		return ok
	}
	return p.has(c.Name, c.Value)
}

// holdsAll reports whether the parameters satisfy every condition.
func (p *params) holdsAll(conds []QueryCond) bool {
	for i := range conds {
		if !p.holds(&conds[i]) {
			return false
		}
	}
	return true
}

// queryParams returns the lookup's query split, splitting it on the first
// call after a Lookup.
func (m *Match) queryParams() *params {
	if !m.qp.ready {
		m.qp.setQuery(m.query)
	}
	return &m.qp
}

// cookieParams returns the cookies of the lookup's request (m.Req), none
// without one, splitting its Cookie field on the first call after a Lookup.
func (m *Match) cookieParams() *params {
	if !m.cp.ready {
		var field []byte
		if m.Req != nil {
			field = m.Req.Header(cookieField)
		}
		m.cp.setCookies(field)
	}
	return &m.cp
}
