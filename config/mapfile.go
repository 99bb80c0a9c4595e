package config

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/redirectd/redirectd/matcher"
)

// appendMapRules reads the map file named by the i-th [[map]] entry and
// appends its rules.
func appendMapRules(k *ruleSink, i int, raw *rawMap, d *Defaults, fl files) {
	e := &entry{file: k.file, table: "map", index: i, loc: k.loc, errs: k.errs, ok: true}
	name := e.str("file", raw.File, true)
	tmpl := matcher.Rule{Kind: e.kind(raw.Match), Status: e.status(raw.Status, d.Status)}
	e.options(&raw.rawOptions, d, &tmpl)
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
	if tmpl.Kind == matcher.Exact && !tmpl.CaseInsensitive && !tmpl.TrailingSlash {
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
	parseMapFile(k, name, data, tmpl, hosts)
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
		case it.err != nil:
			k.errs.add(it.err)
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
type mapItem struct {
	r   matcher.Rule
	err *Error
}

// scanMapFile reads the entries of a map file (see parseMapFile) and hands
// each to emit, in file order, until emit returns false.
func scanMapFile(name string, data []byte, tmpl matcher.Rule, emit func(*mapItem) bool) {
	// The tokenizer's words are substrings of src. data is read for this
	// load alone and never changed, and the Set copies what it keeps, so
	// src aliases it rather than copying a file of maybe a gigabyte.
	t := mapTokenizer{src: unsafe.String(unsafe.SliceData(data), len(data)), line: 1}
	var toks [3]mapToken
	var it mapItem
	n := 0
	for {
		tok, err := t.next()
		if err != nil {
			emit(&mapItem{err: &Error{File: name, Line: t.line, Msg: err.Error()}})
			return
		}
		if tok.eof {
			if n > 0 {
				emit(&mapItem{err: &Error{File: name, Line: toks[0].line, Msg: "entry does not end with ';'"}})
			}
			return
		}
		if !tok.semicolon {
			if n < len(toks) {
				toks[n] = tok
			}
			n++
			continue
		}
		if r, err := mapRule(toks[:min(n, len(toks))], n, tmpl); err != nil {
			line := t.line
			if n > 0 {
				line = toks[0].line
			}
			it = mapItem{err: &Error{File: name, Line: line, Msg: err.Error()}}
		} else {
			r.File, r.Line = name, toks[0].line
			it = mapItem{r: r}
		}
		if !emit(&it) {
			return
		}
		n = 0
	}
}

// mapRule builds the rule of one map entry of n tokens.
func mapRule(toks []mapToken, n int, tmpl matcher.Rule) (matcher.Rule, error) {
	if n > 0 && !toks[0].quoted {
		switch toks[0].text {
		case "default", "hostnames", "volatile", "include":
			return tmpl, fmt.Errorf("nginx's %q has no place in a redirectd map file: a miss is answered 404 or forwarded upstream, hosts are set with host in [[map]]; remove the line", toks[0].text)
		}
	}
	if n != 2 {
		return tmpl, fmt.Errorf("an entry is `from to;`, this one has %d words", n)
	}
	r := tmpl
	r.From, r.To = toks[0].text, toks[1].text
	if strings.HasPrefix(r.From, "~") {
		r.Kind = matcher.Regex
		r.From = r.From[1:]
		if strings.HasPrefix(r.From, "*") {
			r.From = "(?i)" + r.From[1:]
		}
	}
	return r, nil
}

type mapToken struct {
	text      string
	line      int
	quoted    bool
	semicolon bool
	eof       bool
}

// mapTokenizer splits a map file into words and semicolons. Unquoted words
// are substrings of src, so a million-line file costs one copy of it.
type mapTokenizer struct {
	src  string
	pos  int
	line int
}

func (t *mapTokenizer) next() (mapToken, error) {
	for t.pos < len(t.src) {
		c := t.src[t.pos]
		switch {
		case c == '\n':
			t.line++
			t.pos++
		case c == ' ' || c == '\t' || c == '\r':
			t.pos++
		case c == '#':
			if i := strings.IndexByte(t.src[t.pos:], '\n'); i >= 0 {
				t.pos += i
			} else {
				t.pos = len(t.src)
			}
		case c == ';':
			t.pos++
			return mapToken{semicolon: true, line: t.line}, nil
		case c == '"' || c == '\'':
			return t.quoted(c)
		default:
			src, start, i := t.src, t.pos, t.pos
			for i < len(src) && !wordEnd[src[i]] {
				i++
			}
			t.pos = i
			return mapToken{text: src[start:i], line: t.line}, nil
		}
	}
	return mapToken{eof: true, line: t.line}, nil
}

// quoted reads a word in quotes; a backslash escapes the next byte.
func (t *mapTokenizer) quoted(q byte) (mapToken, error) {
	line := t.line
	var b strings.Builder
	for i := t.pos + 1; i < len(t.src); i++ {
		switch c := t.src[i]; {
		case c == q:
			t.pos = i + 1
			return mapToken{text: b.String(), line: line, quoted: true}, nil
		case c == '\\' && i+1 < len(t.src):
			i++
			b.WriteByte(t.src[i])
		case c == '\n':
			return mapToken{}, fmt.Errorf("quoted word not closed on its line")
		default:
			b.WriteByte(c)
		}
	}
	return mapToken{}, fmt.Errorf("quoted word not closed on its line")
}

// wordEnd marks the bytes that end an unquoted word.
var wordEnd = [256]bool{' ': true, '\t': true, '\r': true, '\n': true, ';': true, '#': true}
