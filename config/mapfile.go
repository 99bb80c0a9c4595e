package config

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/redirectd/redirectd/config/nginx/syntax"
	"github.com/redirectd/redirectd/matcher"
)

// appendMapRules reads the map file named by the i-th [[map]] entry and
// appends its rules.
func appendMapRules(k *ruleSink, i int, raw *rawMap, d *Defaults, fl files) {
	e := &entry{file: k.file, table: "map", index: i, loc: k.loc, errs: k.errs, ok: true}
	name := e.str("file", raw.File, true)
	tmpl := matcher.Rule{Kind: e.kind(raw.Match), Status: e.status(raw.Status, d.Status)}
	e.options(&raw.rawOptions, d, &tmpl)
	tmpl.RequestURI = e.requestURI(raw.RequestURI, tmpl.Kind)
	skip := e.skipInvalid(raw.Invalid)
	hosts := e.hosts(raw.Host)
	if !e.ok {
		return
	}
	name = fl.resolve(name)
	k.files = append(k.files, name)
	data, err := fl.read(name)
	if err != nil {
		e.fail("file", "cannot read map file: %v", err)
		return
	}
	if tmpl.Kind == matcher.Exact && !tmpl.CaseInsensitive && !tmpl.TrailingSlash && !tmpl.RequestURI {
		// Most of the file will be packed exact rules of these hosts.
		rules := bytes.Count(data, []byte("\n")) + 1
		targets := hosts
		if len(targets) == 0 {
			targets = []string{""}
		}
		for _, h := range targets {
			k.b.Grow(h, rules, len(data))
		}
	}
	k.skip = skip
	parseMapFile(k, name, data, tmpl, hosts)
	k.skip = false
}

// parseMapFile parses nginx map-file syntax: entries `key value;`, tokens
// separated by whitespace, quoted with " or ' when they hold spaces, # to
// the end of the line a comment. A key starting with ~ is a regex (~* one
// that ignores case), as in nginx; every other key gets tmpl's kind. Each
// rule takes tmpl's host and status. Each entry is handed to k as it is
// read, once per host; nothing is allocated per entry but what the Set
// keeps of it.
//
// A big file is read on a goroutine of its own while this one compiles
// what it has read, in batches: reading and compiling each take about half
// of a million-rule load, so on two CPUs the load takes about half as
// long. Entries and errors still reach k in file order.
func parseMapFile(k *ruleSink, name string, data []byte, tmpl matcher.Rule, hosts []string) {
	take := func(it *mapItem) bool {
		switch {
		case it.err != nil && it.fatal:
			k.errs.add(it.err) // the rest of the file is unread: never skipped
		case it.err != nil:
			k.refuse(it.err)
		case len(hosts) == 0:
			k.add(&it.r)
		default:
			for _, h := range hosts {
				if k.stop {
					break
				}
				it.r.Host = h
				k.add(&it.r)
			}
		}
		return !k.errs.full() && !k.stop
	}
	if len(data) < 1<<20 {
		scanMapFile(name, data, tmpl, take)
		return
	}
	const batch = 1024
	full, free := make(chan []mapItem, 8), make(chan []mapItem, 8)
	var stop atomic.Bool
	go func() {
		defer close(full)
		b := make([]mapItem, 0, batch)
		scanMapFile(name, data, tmpl, func(it *mapItem) bool {
			if b = append(b, *it); len(b) == batch {
				full <- b
				select {
				case b = <-free:
				default:
					b = make([]mapItem, 0, batch)
				}
			}
			return !stop.Load()
		})
		if len(b) > 0 {
			full <- b
		}
	}()
	for b := range full { // drained to the end, so the reader always finishes
		for i := 0; i < len(b) && !stop.Load(); i++ {
			if !take(&b[i]) {
				stop.Store(true)
			}
		}
		select {
		case free <- b[:0]:
		default:
		}
	}
}

// mapItem is one entry of a map file: a rule, or the error that it is.
// A fatal error ends the file.
type mapItem struct {
	r     matcher.Rule
	err   *Error
	fatal bool
}

// scanMapFile reads the entries of a map file (see parseMapFile) and hands
// each to emit, in file order, until emit returns false. An entry that is
// wrong (a word count other than two, a brace nginx would refuse) is
// handed over as an error and reading goes on at the next ';'; a syntax
// error the words cannot be told apart after (an unclosed quote) ends the
// file.
func scanMapFile(name string, data []byte, tmpl matcher.Rule, emit func(*mapItem) bool) {
	// The lexer's words are substrings of src. data is read for this load
	// alone and never changed, and the Set copies what it keeps, so src
	// aliases it rather than copying a file of maybe a gigabyte.
	lx := syntax.New(unsafe.String(unsafe.SliceData(data), len(data)))
	var toks [3]syntax.Token
	var it mapItem
	n, bad := 0, "" // bad: why the entry being read is wrong
	fail := func(line int, msg string) bool {
		it = mapItem{err: &Error{File: name, Line: line, Msg: msg}}
		return emit(&it)
	}
	for {
		tok, err := lx.Next()
		if err != nil {
			se := err.(*syntax.Error)
			it = mapItem{err: &Error{File: name, Line: se.Line, Msg: se.Msg}, fatal: se.Fatal}
			if !emit(&it) || se.Fatal {
				return
			}
			n, bad = 0, ""
			skipEntry(lx)
			continue
		}
		switch tok.Kind {
		case syntax.EOF:
			if n > 0 || bad != "" {
				fail(toks[0].Line, "entry does not end with ';'")
			}
			return
		case syntax.Open, syntax.Close:
			if bad == "" {
				bad = fmt.Sprintf("unexpected '%c': a map file holds the entries of nginx's map block, without braces; "+
					"quote a word that holds '{', as nginx requires (\"~^/a{2}$\")", "{}"[tok.Kind-syntax.Open])
			}
			if n == 0 {
				toks[0] = tok
				n = 1
			}
			continue
		case syntax.Word:
			if n < len(toks) {
				toks[n] = tok
			}
			n++
			continue
		}
		// A semicolon: the entry is complete.
		line := lx.Line()
		if n > 0 {
			line = toks[0].Line
		}
		switch {
		case bad != "":
			if !fail(line, bad) {
				return
			}
		default:
			r, ok, err := mapRule(toks[:min(n, len(toks))], n, tmpl)
			switch {
			case err != nil:
				if !fail(line, err.Error()) {
					return
				}
			case ok:
				r.File, r.Line = name, line
				it = mapItem{r: r}
				if !emit(&it) {
					return
				}
			}
		}
		n, bad = 0, ""
	}
}

// skipEntry reads on to the end of the entry at hand, after an error.
func skipEntry(lx *syntax.Lexer) {
	for {
		tok, err := lx.Next()
		if err != nil && err.(*syntax.Error).Fatal || tok.Kind == syntax.Semicolon || tok.Kind == syntax.EOF {
			return
		}
	}
}

// mapRule builds the rule of one map entry of n words, as nginx's map
// reads it (ngx_http_map in ngx_http_map_module.c): a key starting with ~
// is a regex (~* one that ignores case), a backslash before any other key
// is dropped (so \~a is the key ~a), and a value of "" is an explicit "no
// redirect" entry (Rule.Pass). false without an error is an entry that
// makes no rule: volatile, or default "" (a miss is no redirect anyway).
func mapRule(toks []syntax.Token, n int, tmpl matcher.Rule) (matcher.Rule, bool, error) {
	// nginx compares these names with the words as read, quoted or not.
	switch {
	case n == 1 && toks[0].Text == "volatile":
		return tmpl, false, nil // only turns off nginx's caching of the variable
	case n == 1 && toks[0].Text == "hostnames":
		return tmpl, false, fmt.Errorf("nginx's \"hostnames\" makes the keys host names, but a [[map]] file's keys are paths; " +
			"give the hosts with host in [[map]] (`redirectd import nginx` translates maps on $host)")
	case n == 2 && toks[0].Text == "default" && toks[1].Text == "":
		return tmpl, false, nil // a miss is no redirect already
	case n == 2 && toks[0].Text == "default":
		return tmpl, false, fmt.Errorf("nginx's \"default\" has no place in a [[map]] file: a miss is answered 404 or forwarded to [upstream]; "+
			"to send every other path to %q, add a [[rule]] with match = \"prefix\" and from = \"/\" after this [[map]]", toks[1].Text)
	case n == 2 && toks[0].Text == "include":
		return tmpl, false, fmt.Errorf("nginx's \"include\" has no place in a [[map]] file (its path would be relative to nginx's folder); "+
			"give %q a [[map]] of its own, in the place of this one", toks[1].Text)
	case n != 2:
		return tmpl, false, fmt.Errorf("an entry is `from to;`, this one has %d words", n)
	}
	r := tmpl
	r.From, r.To = toks[0].Text, toks[1].Text
	switch {
	case strings.HasPrefix(r.From, "~"):
		r.Kind = matcher.Regex
		r.From = r.From[1:]
		if strings.HasPrefix(r.From, "*") {
			r.From = "(?i)" + r.From[1:]
		}
	case strings.HasPrefix(r.From, "\\"):
		r.From = r.From[1:]
	}
	if r.To == "" {
		r.Pass, r.Status = true, 0
	}
	return r, true, nil
}
