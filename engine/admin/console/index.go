package console

import (
	"bytes"
	"cmp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
)

// index is one snapshot of the rules, sorted by host then from, with a
// search text: each rule's lower-cased "host\x00from\x00to\n" one after
// another in hay, rule i's line starting at starts[i]. A search is
// bytes.Index over the part of hay of the hosts the user may see, so a
// query costs a memory scan (a million rules are about 60 MB, read in
// a few milliseconds), never a pass over a million structs; and a
// host-scoped user's search reads only their hosts' lines.
type index struct {
	rules  []admin.RuleInfo
	hay    []byte
	starts []int
	hosts  []hostSpan // sorted by host
	kinds  map[string]int
	built  time.Time
	// version is the serving version's hash when it was built, "" when
	// the Backend keeps no versions.
	version string
}

// hostSpan is the rules of one host: rules[lo:hi].
type hostSpan struct {
	host   string
	lo, hi int
}

func buildIndex(list []admin.RuleInfo, version string, now time.Time) *index {
	rules := slices.Clone(list)
	slices.SortStableFunc(rules, func(a, b admin.RuleInfo) int {
		return cmp.Or(strings.Compare(a.Host, b.Host), strings.Compare(a.From, b.From))
	})
	x := &index{rules: rules, starts: make([]int, 0, len(rules)+1), kinds: map[string]int{}, built: now, version: version}
	size := 0
	for _, r := range rules {
		size += len(r.Host) + len(r.From) + len(r.To) + 3
	}
	x.hay = make([]byte, 0, size)
	for i, r := range rules {
		x.starts = append(x.starts, len(x.hay))
		x.hay = appendLower(x.hay, r.Host)
		x.hay = append(x.hay, 0)
		x.hay = appendLower(x.hay, r.From)
		x.hay = append(x.hay, 0)
		x.hay = appendLower(x.hay, r.To)
		x.hay = append(x.hay, '\n')
		if i == 0 || r.Host != rules[i-1].Host {
			x.hosts = append(x.hosts, hostSpan{host: r.Host, lo: i})
		}
		x.hosts[len(x.hosts)-1].hi = i + 1
		x.kinds[r.Kind]++
	}
	x.starts = append(x.starts, len(x.hay))
	return x
}

// appendLower appends s lower-cased (ASCII), and with the bytes that
// separate fields and lines (NUL, LF) as spaces, so a rule cannot fake
// a line of its own.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == 0 || c == '\n':
			c = ' '
		}
		b = append(b, c)
	}
	return b
}

// span returns the rules of host, or an empty span.
func (x *index) span(host string) hostSpan {
	i := sort.Search(len(x.hosts), func(i int) bool { return x.hosts[i].host >= host })
	if i < len(x.hosts) && x.hosts[i].host == host {
		return x.hosts[i]
	}
	return hostSpan{host: host}
}

// spans returns the parts of the index a search reads: the hosts of a
// scoped identity, the host asked for, or every rule.
func (x *index) spans(who admin.Identity, host string) []hostSpan {
	switch {
	case host != "":
		if !who.Allows(host) {
			return nil
		}
		return []hostSpan{x.span(strings.ToLower(host))}
	case who.Scoped():
		// A token's hosts may be patterns ("*.example.com"): ask of
		// every host in the index (thousands, not the million rules).
		var out []hostSpan
		for _, sp := range x.hosts {
			if who.Allows(sp.host) {
				out = append(out, sp)
			}
		}
		return out
	}
	return []hostSpan{{lo: 0, hi: len(x.rules)}}
}

// maxCount bounds how many matches a search counts: past it the page
// says "more than", and the scan stops, so a query matching every rule
// costs no more than one matching ten thousand.
const maxCount = 10000

// search returns the rules in the spans whose host, from or to contains
// q (any case), the offset-th to the offset+limit-th, with how many
// match (at most maxCount, capped then).
func (x *index) search(spans []hostSpan, q string, offset, limit int) (rows []admin.RuleInfo, total int, capped bool) {
	needle := appendLower(nil, q)
	take := func(i int) {
		if total >= offset && len(rows) < limit {
			rows = append(rows, x.rules[i])
		}
		total++
	}
	for _, sp := range spans {
		if len(needle) == 0 {
			// Every rule matches: take the page by arithmetic, and the
			// count is exact.
			for i := max(sp.lo, sp.lo+offset-total); i < sp.hi && len(rows) < limit; i++ {
				rows = append(rows, x.rules[i])
			}
			total += sp.hi - sp.lo
			continue
		}
		base, end := x.starts[sp.lo], x.starts[sp.hi]
		for pos := base; pos < end; {
			j := bytes.Index(x.hay[pos:end], needle)
			if j < 0 {
				break
			}
			// The rule whose line holds the match: the last start at or
			// before it.
			i := sort.SearchInts(x.starts, pos+j+1) - 1
			if total >= maxCount {
				return rows, total, true
			}
			take(i)
			pos = x.starts[i+1]
		}
	}
	return rows, total, false
}

// ruleCache keeps the index of the serving rules. It is rebuilt at once
// when the serving version changed (a promotion or rollback shows on
// the next page), and in the background when older than ruleTTL, so the
// hit counts stay fresh without a request waiting on a million-rule
// copy.
type ruleCache struct {
	b          admin.Backend
	mu         sync.Mutex
	x          *index
	refreshing bool
}

const ruleTTL = 10 * time.Second

func (rc *ruleCache) get(now time.Time) *index {
	version := servingHash(rc.b)
	rc.mu.Lock()
	x := rc.x
	stale := x != nil && now.Sub(x.built) > ruleTTL && !rc.refreshing
	if stale {
		rc.refreshing = true
	}
	rc.mu.Unlock()
	if x == nil || x.version != version {
		x = buildIndex(rc.b.Rules(), version, now)
		rc.mu.Lock()
		rc.x = x
		rc.mu.Unlock()
		return x
	}
	if stale {
		go func() {
			nx := buildIndex(rc.b.Rules(), servingHash(rc.b), time.Now())
			rc.mu.Lock()
			rc.x, rc.refreshing = nx, false
			rc.mu.Unlock()
		}()
	}
	return x
}

// servingHash returns the serving version's hash, "" without versions.
func servingHash(b admin.Backend) string {
	v, ok := b.(admin.Versioner)
	if !ok {
		return ""
	}
	for _, vi := range v.Versions() {
		if vi.Serving {
			return vi.Hash
		}
	}
	return ""
}
