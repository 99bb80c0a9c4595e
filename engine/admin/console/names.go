package console

import (
	"strconv"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// versionRow is a version as the console lists it: its one name, and
// what the rollback form posts for it.
type versionRow struct {
	edit.Version
	Name string
	// Ref is what a rollback's "to" carries: the number on an edited
	// node (rollback?to=0 for the config's own rules, as the API takes
	// it), else the hash.
	Ref string
	// CanRollBack: the version can be served again (not serving, and
	// kept, or on an edited node, any numbered version: version 0, the
	// config's own rules, is the config itself, not a kept file).
	CanRollBack bool
}

// numbered says whether the versions are an edited node's: one of them
// was made by a promote or rollback. Then every version is named by its
// number, version 0 being the config's own rules, as the drafts say
// ("based on version 0").
func numbered(list []edit.Version) bool {
	for _, v := range list {
		if v.Number > 0 {
			return true
		}
	}
	return false
}

// versionRows names each version of list one way: "version N" on an
// edited node, its hash elsewhere.
func versionRows(list []edit.Version) []versionRow {
	num := numbered(list)
	out := make([]versionRow, 0, len(list))
	for _, v := range list {
		r := versionRow{Version: v, Name: v.Hash, Ref: v.Hash, CanRollBack: v.Kept && !v.Serving}
		if num {
			r.Name, r.Ref = versionName(v.Number), strconv.Itoa(v.Number)
			r.CanRollBack = !v.Serving
		}
		out = append(out, r)
	}
	return out
}

// versionName is the name of an edited node's version n, as every page
// writes it.
func versionName(n int) string { return "version " + strconv.Itoa(n) }
