package config

import (
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"slices"
	"sync"
	"time"

	"github.com/redirectd/redirectd/matcher"
)

// A reload that finds a map file as the last load built it takes over
// that load's packed table instead of reading the file's rules again
// (matcher.Builder.Reuse): the old set serves until the swap, so
// building a million-rule table anew held two of them at once, a
// reload's peak at 2x the settled RSS. A file is as it was when its path,
// size, modification time and content hash are, and it was read under
// the same [[map]] settings; its table is taken over only when every
// rule of the file, and nothing else, went into it, which the load that
// built it checked (mapBuilt). The table is held weakly: when the set
// that holds it is gone, the next load builds it again.
var mapTables struct {
	sync.Mutex
	m map[string]mapTable // by path
}

// mapTable is the table of one map file, and what the file was.
type mapTable struct {
	id  mapFileID
	ref matcher.PackedRef
	n   int
}

// mapFileID tells a map file's contents and settings apart.
type mapFileID struct {
	size  int
	mtime time.Time
	hash  uint64
	// settings are the [[map]] entry's rule template, host, format and
	// invalid setting, printed.
	settings string
}

// mapSeed seeds the content hash: mapTables lives in this process alone.
var mapSeed = maphash.MakeSeed()

// mapSettings prints what, besides the file, decides a map's rules; "" when
// they cannot be packed anyway or the template holds pointers (printed as
// addresses, they would never compare equal, which is safe).
func mapSettings(tmpl *matcher.Rule, hosts []string, format any, skip bool) string {
	if len(hosts) > 1 || len(tmpl.Headers) > 0 || tmpl.Kind != matcher.Exact {
		return ""
	}
	return fmt.Sprintf("%#v|%q|%#v|%v", *tmpl, hosts, format, skip)
}

// fileStat is the size and modification time of the open file f; -1 and
// zero when it cannot tell.
func fileStat(f io.Reader) (int, time.Time) {
	if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil {
			return int(fi.Size()), fi.ModTime()
		}
	}
	return -1, time.Time{}
}

// reuseMap takes over the table that the last load built from the file
// name, as id tells it, for host, and reports whether it did.
func reuseMap(k *ruleSink, name, host string, id mapFileID) bool {
	mapTables.Lock()
	t, ok := mapTables.m[name]
	mapTables.Unlock()
	if !ok || t.id != id || !slices.Equal(t.ref.Files(), []string{name}) || !k.b.Reuse(t.ref) {
		return false
	}
	k.written.Exact += t.n
	k.lastFile, k.lastLine = name, 0
	k.built = append(k.built, mapBuilt{name: name, host: host, id: id, n: t.n})
	return true
}

// mapBuilt is a map file whose every rule went into host's packed table,
// n of them, which was empty before: once the Set is finished, the table
// is kept for the next load (keepMapTables) if it holds nothing else.
type mapBuilt struct {
	name, host string
	id         mapFileID
	n          int
}

// keepMapTables notes the tables of the map files in built, which set
// holds, for the next load.
func keepMapTables(set *matcher.Set, built []mapBuilt) {
	if set == nil || len(built) == 0 {
		return
	}
	mapTables.Lock()
	defer mapTables.Unlock()
	if mapTables.m == nil {
		mapTables.m = map[string]mapTable{}
	}
	for _, b := range built {
		ref, n := set.PackedRef(b.host)
		if n != b.n || !slices.Equal(ref.Files(), []string{b.name}) {
			delete(mapTables.m, b.name)
			continue
		}
		mapTables.m[b.name] = mapTable{id: b.id, ref: ref, n: n}
	}
}
