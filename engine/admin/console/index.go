package console

import (
	"bytes"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/safego"
)

// index is one snapshot of the rules, grouped by host (sorted) and in
// the Backend's order within a host, with a
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
	// freq counts each byte in hay: a search looks for its needle's
	// rarest byte first.
	freq  [256]int
	built time.Time
	took  time.Duration // how long building it took
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
	start := time.Now()
	// Group by host (a counting sort: one pass to count each host's
	// rules, one to place them), keeping the Backend's order within a
	// host. A comparison sort of a million rules by host and from took
	// 2.4 s (structs moved) to 4.2 s (a permutation, compared through
	// cache misses); this takes a fraction of that.
	count := map[string]int{}
	for i := range list {
		count[list[i].Host]++
	}
	names := make([]string, 0, len(count))
	for h := range count {
		names = append(names, h)
	}
	slices.Sort(names)
	next := make(map[string]int, len(names))
	at := 0
	for _, h := range names {
		next[h], at = at, at+count[h]
	}
	perm := make([]int32, len(list))
	for i := range list {
		h := list[i].Host
		perm[next[h]] = int32(i)
		next[h]++
	}
	// The Backend's own rules, one type of a rule shown (admin.RuleInfo),
	// copied in host order: what few rules have (a window, a change
	// through a draft, a location) is a pointer, nil on the others.
	rules := make([]admin.RuleInfo, len(list))
	for i, p := range perm {
		rules[i] = list[p]
	}
	x := &index{rules: rules, starts: make([]int, 0, len(rules)+1), kinds: map[string]int{}, built: now, version: version}
	defer func() { x.took = time.Since(start) }()
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
	for _, c := range x.hay {
		x.freq[c]++
	}
	return x
}

// rarest returns the index in needle of its byte least frequent in hay.
// bytes.Index looks for a needle's first byte and checks the rest at
// each one found: a query starting "/p/" found a candidate at every
// slash, six a rule, and took 42-97 ms over a million rules; starting
// at its rarest byte finds a few times fewer.
func (x *index) rarest(needle []byte) int {
	k := 0
	for i, c := range needle {
		if x.freq[c] < x.freq[needle[k]] {
			k = i
		}
	}
	return k
}

// appendLower appends s lower-cased (ASCII), and with the bytes that
// separate fields and lines (NUL, LF) as spaces, so a rule cannot fake
// a line of its own.
func appendLower(b []byte, s string) []byte {
	n := len(b)
	b = append(b, s...) // a copy first: most rules are lower case already
	for i := n; i < len(b); i++ {
		switch c := b[i]; {
		case 'A' <= c && c <= 'Z':
			b[i] = c + 'a' - 'A'
		case c == 0 || c == '\n':
			b[i] = ' '
		}
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

// spans returns the parts of the index a search reads: the host asked
// for, else the hosts who may see, which for an identity of every host
// is every rule. Which hosts who sees is edit.InScope's to say, as for
// GET /rules (TestConsoleMatchesAPI compares the two): asked of each
// host of the index (thousands, not the million rules), since a
// token's hosts may be patterns ("*.example.com").
func (x *index) spans(who edit.Identity, host string) []hostSpan {
	if host != "" {
		return edit.InScope(&who, []hostSpan{x.span(strings.ToLower(host))}, spanHost)
	}
	if !who.Scoped() {
		return []hostSpan{{lo: 0, hi: len(x.rules)}}
	}
	return edit.InScope(&who, x.hosts, spanHost)
}

// spanHost is the host of a span, for edit.InScope.
func spanHost(sp *hostSpan) string { return sp.host }

// maxCount bounds how many matches a search counts: past it the page
// says "more than", and the scan stops, so a query matching every rule
// costs no more than one matching ten thousand.
const maxCount = 10000

// search returns the rules in the spans whose host, from or to contains
// q (any case), the offset-th to the offset+limit-th, with how many
// match (at most maxCount, capped then).
func (x *index) search(spans []hostSpan, q string, offset, limit int) (rows []admin.RuleInfo, total int, capped bool) {
	needle := appendLower(nil, q)
	k := x.rarest(needle)
	tail := needle[k:] // searched for; needle[:k] checked before it
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
		for pos := base; pos+k < end; {
			j := bytes.Index(x.hay[pos+k:end], tail)
			if j < 0 {
				break
			}
			at := pos + j // where the whole needle would start
			if !bytes.HasPrefix(x.hay[at:end], needle) {
				pos = at + 1
				continue
			}
			// The rule whose line holds the match: the last start at or
			// before it.
			i := sort.SearchInts(x.starts, at+1) - 1
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
// the next page), and in the background when older than ttl, so the
// hit counts stay fresh without a request waiting on a million-rule
// copy. One build of a version runs at a time: the pages asking for it
// meanwhile wait for that one (several people opening the console after
// a promote would otherwise each copy a million rules, some 200 MB and a
// second or two apiece).
type ruleCache struct {
	b admin.Backend
	// built, when set, is given each index built (the hit history).
	built      func(*index)
	mu         sync.Mutex
	x          *index
	refreshing bool
	building   *build // the build of a new version's index, nil when none runs
}

// build is an index being built for version; done is closed when x is
// set. waiters counts the pages waiting for it (for the tests).
type build struct {
	version string
	done    chan struct{}
	x       *index
	waiters atomic.Int32
}

// ttl is how old x may get before a page asks for a fresh one: 10 s,
// or twenty times what building it took, so that a console left open on
// a million rules (about a second a build) costs the server at most a
// twentieth of a CPU.
func ttl(x *index) time.Duration { return max(10*time.Second, 20*x.took) }

func (rc *ruleCache) get(now time.Time) *index {
	version := servingHash(rc.b)
	rc.mu.Lock()
	x := rc.x
	if x == nil || x.version != version {
		x = rc.waitBuild(version, now) // unlocks rc.mu
		return x
	}
	stale := now.Sub(x.built) > ttl(x) && !rc.refreshing
	if stale {
		rc.refreshing = true
	}
	rc.mu.Unlock()
	if stale {
		go func() {
			defer safego.Recover("console index")
			nx := buildIndex(rc.b.Rules(), servingHash(rc.b), time.Now())
			if rc.built != nil {
				rc.built(nx)
			}
			rc.mu.Lock()
			if rc.x == nil || rc.x.version == nx.version {
				rc.x = nx
			}
			rc.refreshing = false
			rc.mu.Unlock()
		}()
	}
	return x
}

// waitBuild returns the index of version: the one being built when a
// build of it runs, else built here. rc.mu is held on entry and released.
func (rc *ruleCache) waitBuild(version string, now time.Time) *index {
	if bd := rc.building; bd != nil && bd.version == version {
		bd.waiters.Add(1)
		rc.mu.Unlock()
		<-bd.done
		return bd.x
	}
	bd := &build{version: version, done: make(chan struct{})}
	rc.building = bd
	rc.mu.Unlock()
	bd.x = buildIndex(rc.b.Rules(), version, now)
	if rc.built != nil {
		rc.built(bd.x)
	}
	rc.mu.Lock()
	rc.x = bd.x
	if rc.building == bd {
		rc.building = nil
	}
	rc.mu.Unlock()
	close(bd.done)
	return bd.x
}

// prefetch starts building the index of the version now serving, for a
// promote or rollback just made: the person who made it usually opens
// the rules or the overview next, and finds the index built (about 2 s
// for a million rules) or being built.
func (rc *ruleCache) prefetch() { safego.Go("console index", func() { rc.get(time.Now()) }) }

// servingHash returns the serving version's hash, "" without versions.
func servingHash(b admin.Backend) string {
	v, ok := b.(edit.Versioner)
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

// headerText writes a rule's header fields as "Name: value", by name.
func headerText(hs map[string]string) string {
	if len(hs) == 0 {
		return ""
	}
	lines := make([]string, 0, len(hs))
	for _, name := range slices.Sorted(maps.Keys(hs)) {
		lines = append(lines, name+": "+hs[name])
	}
	return strings.Join(lines, ", ")
}
