package apache

import (
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// <Files> and <FilesMatch> sections holding mod_alias's redirects.
//
// Apache's file walk matches a section with the last part of the
// file-system path its directory walk made of the URL: the file's name
// where the path names an existing file, else the first part that does
// not exist (/docs/x.pdf is "docs" where there is no folder docs). The
// import does not know the site's files: it assumes the path names one,
// and matches the last segment of the URL-path ("" after a trailing
// '/', as Apache's test of a directory is). A request of a path that does
// not exist is answered by the sections Apache would not apply (noted).

// filesSteps writes the <Files> and <FilesMatch> sections of dirs that
// hold Redirects: each section's Redirects where the path's last
// segment matches it, the last section's first (a later section's
// merge comes first, as mod_alias's merge_alias_dir_config appends the
// base's after the override's). Other directives that decide a redirect
// inside them are left out.
func (t *translator) filesSteps(dirs []*Directive) []string {
	var out []string
	var secs []*Directive
	for _, d := range dirs {
		if d.Section && (d.Is("Files") || d.Is("FilesMatch")) && hasDeciding(d.Block) {
			secs = append(secs, d)
		}
	}
	named := false
	for i := len(secs) - 1; i >= 0; i-- {
		d := secs[i]
		cond, byName, ok := filesCond(d)
		if !ok {
			continue // noted by scanOther
		}
		t.handled[d] = true
		var list []*Directive
		for _, x := range d.Block {
			switch {
			case !x.Section && isRedirect(x) && !locExprForm(x):
				list = append(list, x)
			case hasDeciding([]*Directive{x}):
				t.note(x, importer.LeftOut, "%s inside <%s %s> is not translated (only mod_alias's Redirects of a path or a regex); left out", x.Name, d.Name, strings.Join(d.Args, " "))
			}
		}
		steps := t.aliasSteps(list)
		if len(steps) == 0 {
			continue
		}
		t.note(d, importer.Caveat, "<%s %s>: Apache matches the name of the file the path names, or of its first part that does not exist; the import takes the path's last segment, as where the file exists", d.Name, strings.Join(d.Args, " "))
		named = named || byName
		out = append(out, "# "+commentSafe(d.Source()+": <"+d.Name+" "+strings.Join(d.Args, " ")+">"), "if ("+cond+") {")
		out = append(append(out, indent(steps)...), "}")
	}
	if named {
		out = append([]string{`set $a_fname "";`, `if ($uri ~ "([^/]*)$") { set $a_fname $1; }`}, out...)
	}
	return out
}

// filesCond writes the test of a section's name: <Files name> the last
// segment equal to it, with fnmatch's wildcards (*, ?, [...]) within a
// segment; <Files ~ re> and <FilesMatch re> the regex searched in the
// last segment (byName: in $a_fname).
func filesCond(d *Directive) (cond string, byName, ok bool) {
	args := d.Args
	regex := d.Is("FilesMatch")
	if len(args) == 2 && args[0] == "~" {
		regex, args = true, args[1:]
	}
	if len(args) != 1 || args[0] == "" {
		return "", false, false
	}
	if regex {
		if compiles([]string{`set $a_fname "";`}, []string{"if ($a_fname ~ " + quoteArg(args[0]) + ") { }"}, nil) != nil {
			return "", false, false
		}
		return "$a_fname ~ " + quoteArg(args[0]), true, true
	}
	re, ok := globRegex(args[0])
	if !ok {
		return "", false, false
	}
	return "$uri ~ " + quoteArg("/"+re+"$"), false, true
}

// globRegex is fnmatch's pattern (APR_FNM_PATHNAME: no wildcard takes a
// '/') as a regex: '*' any run, '?' any byte, [...] a class ([!...]
// negated), '\' quoting the next.
func globRegex(g string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch c {
		case '/':
			return "", false
		case '*':
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '\\':
			if i+1 < len(g) {
				i++
				b.WriteString(quoteMeta(string(g[i])))
			}
		case '[':
			end := strings.IndexByte(g[i+1:], ']')
			if end < 1 {
				return "", false
			}
			class := g[i+1 : i+1+end]
			neg := strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^")
			if neg {
				class = class[1:]
			}
			if class == "" || strings.ContainsAny(class, `\[/`) {
				return "", false
			}
			b.WriteByte('[')
			if neg {
				b.WriteString("^/")
			}
			b.WriteString(class)
			b.WriteByte(']')
			i += end + 1
		default:
			b.WriteString(quoteMeta(string(c)))
		}
	}
	return b.String(), true
}
