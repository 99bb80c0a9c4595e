package config

import (
	"bytes"
	"fmt"
	"strings"
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
func parseMapFile(k *ruleSink, name string, data []byte, tmpl matcher.Rule, hosts []string) {
	errs := k.errs
	// The tokenizer's words are substrings of src. data is read for this
	// load alone and never changed, and the Set copies what it keeps, so
	// src aliases it rather than copying a file of maybe a gigabyte.
	t := mapTokenizer{src: unsafe.String(unsafe.SliceData(data), len(data)), line: 1}
	var toks [3]mapToken
	n := 0
	for !errs.full() && !k.stop {
		tok, err := t.next()
		if err != nil {
			errs.add(&Error{File: name, Line: t.line, Msg: err.Error()})
			return
		}
		if tok.eof {
			if n > 0 {
				errs.add(&Error{File: name, Line: toks[0].line, Msg: "entry does not end with ';'"})
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
			errs.add(&Error{File: name, Line: line, Msg: err.Error()})
		} else {
			r.File, r.Line = name, toks[0].line
			if len(hosts) == 0 {
				k.add(&r)
			}
			for _, h := range hosts {
				r.Host = h
				k.add(&r)
			}
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
