package config

import (
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/matcher/rewrite"
)

// rawLocationMap is a [[location_map]]: nginx's map block, a variable
// that the location phase's steps read.
type rawLocationMap struct {
	Variable string `toml:"variable"`
	Source   string `toml:"source"`
	Default  string `toml:"default"`
	Entries  string `toml:"entries"`
	File     string `toml:"file"`
	Function string `toml:"function"`
}

// locationMapKeys are the keys of a [[location_map]].
var locationMapKeys = []string{"variable", "source", "default", "entries", "file", "function"}

// mapPlace is where a map is written, for its errors: the table's
// header line and the file its entries came from ("" for entries).
type mapPlace struct {
	header int
	file   string
}

// locationMaps converts the [[location_map]] tables, reading their
// files through fl; it notes problems in r.errs and returns the files
// read.
func (r *locReader) locationMaps(raw []rawLocationMap, fl files) ([]rewrite.MapSpec, []string) {
	var specs []rewrite.MapSpec
	var read []string
	r.maps = map[string]mapPlace{}
	for i := range raw {
		rm := &raw[i]
		line := r.loc.header("location_map", i)
		what := fmt.Sprintf("[[location_map]] #%d", i+1)
		ms := rewrite.MapSpec{Line: line, Source: rm.Source, Variable: rm.Variable, Default: rm.Default,
			Entries: rm.Entries, EntriesLine: r.textLine(line, "entries"), Function: rm.Function}
		if !strings.HasPrefix(rm.Variable, "$") {
			r.bad(line, what, "variable", "%q: the variable the map sets, with its '$' (\"$lang\")", cut(rm.Variable))
			continue
		}
		place := mapPlace{header: line}
		if rm.File != "" {
			if rm.Entries != "" {
				r.bad(line, what, "file", "a map's entries come from entries or from file, not both")
				continue
			}
			name := fl.resolve(rm.File)
			src, err := fl.read(name)
			if err != nil {
				r.bad(line, what, "file", "cannot read map file: %v", err)
				continue
			}
			ms.Entries, ms.EntriesLine, place.file = string(src), 1, name
			read = append(read, name)
		}
		r.maps[strings.ToLower(rm.Variable[1:])] = place
		specs = append(specs, ms)
	}
	return specs, read
}

// placedMap turns an error in a map into one naming file, line and key:
// a line of its entries file, else a key of its table.
func (r *locReader) placedMap(e *rewrite.Error) error {
	place := r.maps[strings.ToLower(e.Map)]
	what := "[[location_map]] $" + e.Map
	if e.Key == "entries" && place.file != "" {
		return &Error{File: place.file, Line: e.Line, What: what, Msg: e.Msg}
	}
	line := e.Line
	if e.Key != "entries" {
		line = r.loc.keyLine(place.header, e.Key)
	}
	return &Error{File: r.file, Line: line, What: what, Key: e.Key, Msg: e.Msg}
}
