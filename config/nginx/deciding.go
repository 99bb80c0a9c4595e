package nginx

import (
	"regexp"
	"slices"
	"strings"
)

// decidingReaders are the directives whose variables decide whether a
// request is redirected or forwarded, and where: a map or a set variable
// none of them reads, through other maps and sets, changes no answer
// redirectd gives (access_log if=, log_format and add_header read such
// variables), so leaving it out does not make the import exit 1.
var decidingReaders = map[string]bool{"rewrite": true, "return": true, "if": true, "proxy_pass": true, "try_files": true, "error_page": true}

// varRef is a variable reference in a directive's argument: $name or
// ${name}.
var varRef = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)

// varsIn are the names of the variables s reads, without '$'.
func varsIn(s string) []string {
	var out []string
	for _, m := range varRef.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// decidingVars are the variables that decide a redirect or a forward in
// dirs: those a deciding directive reads, then, until none is added,
// those that a map or a set of a deciding variable reads (its source and
// values, its value). Variables are global in nginx, so the whole config
// counts, whichever server reads them.
func decidingVars(dirs []*Directive) map[string]bool {
	deciding := map[string]bool{}
	feeds := map[string][]string{} // a map's or set's variable -> what it reads
	var walk func([]*Directive)
	walk = func(dirs []*Directive) {
		for _, d := range dirs {
			switch {
			case decidingReaders[d.Name]:
				for _, a := range d.Args {
					for _, v := range varsIn(a) {
						deciding[v] = true
					}
				}
			case d.Name == "set" && len(d.Args) == 2:
				name := strings.Trim(d.Args[0], "${}")
				feeds[name] = append(feeds[name], varsIn(d.Args[1])...)
			case d.Name == "map" && d.IsBlock && len(d.Args) == 2:
				name := strings.Trim(d.Args[1], "${}")
				feeds[name] = append(feeds[name], varsIn(d.Args[0])...)
				for _, e := range d.Block {
					for _, a := range e.Args {
						feeds[name] = append(feeds[name], varsIn(a)...)
					}
				}
			}
			walk(d.Block)
		}
	}
	walk(dirs)
	for grew := true; grew; {
		grew = false
		for name, reads := range feeds {
			if !deciding[name] {
				continue
			}
			for _, v := range reads {
				if !deciding[v] {
					deciding[v], grew = true, true
				}
			}
		}
	}
	return deciding
}

// readersOf names the directives in dirs that read variable name, each
// once, in the order found: what the note on a map no deciding step
// reads says reads it.
func readersOf(dirs []*Directive, name string) []string {
	reads := func(args []string) bool {
		return slices.ContainsFunc(args, func(a string) bool {
			return strings.Contains(a, name) && slices.Contains(varsIn(a), name)
		})
	}
	var out []string
	var walk func([]*Directive)
	walk = func(dirs []*Directive) {
		for _, d := range dirs {
			reader, found := d.Name, reads(d.Args)
			if d.Name == "map" && d.IsBlock && len(d.Args) == 2 {
				// a map reads its source and its values, not its keys
				reader, found = "map "+d.Args[1], reads(d.Args[:1])
				for _, e := range d.Block {
					if found {
						break
					}
					found = reads(e.Args) // an entry's key is its Name
				}
			}
			if found && !slices.Contains(out, reader) {
				out = append(out, reader)
			}
			if d.Name != "map" {
				walk(d.Block)
			}
		}
	}
	walk(dirs)
	return out
}

// notDecidingWhy says why leaving out variable name changes no answer,
// for a note.
func notDecidingWhy(dirs []*Directive, name string) string {
	readers := readersOf(dirs, name)
	if len(readers) == 0 {
		return "nothing reads $" + name + ", so no answer depends on it"
	}
	return "$" + name + " is read only by " + strings.Join(readers, ", ") + ", so no redirect or forward depends on it"
}
