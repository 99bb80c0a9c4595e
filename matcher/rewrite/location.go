package rewrite

import (
	"slices"
)

// location is a compiled location.
type location struct {
	kind Kind
	path string
	re   *rx
	// name is how nginx writes it ("= /x", "~* \.php$", "@err").
	name  string
	line  int
	steps []step
	pages []errorPage
	try   *tryFiles // nil for none
	// internal: nginx's internal, a location external requests get 404
	// from.
	internal bool
	sub      level
	pass     bool
	upstream string
	uri      string
	hasURI   bool
	// intercept: proxy_intercept_errors on, and error pages to follow.
	intercept bool
	// autoRedirect: a Pass location whose path ends in '/' (Exact or
	// a prefix kind).
	autoRedirect bool
}

// level is the locations of one server or of one location's body.
type level struct {
	exact    map[string]*location
	prefixes []*location // longest first
	regexes  []*location // file order
	// auto are the autoRedirect locations by path without its '/'.
	auto map[string]*location
	// byPath files the prefixes by path in a level of prefixIndexMin
	// prefixes or more (nil below): the longest prefix of a URI is then
	// one walk along it, not a comparison with every prefix (a site's
	// 330 docs locations cost microseconds per request that way).
	byPath *prefixTrie
	// skip is the length of the path that every URI searched here and
	// every prefix of the level start with (the enclosing prefix
	// location's), which byPath leaves out.
	skip int
	// empty: no location at all, the search here is over at once;
	// treeOnly: prefixes in byPath and no exact or auto-redirect one.
	empty, treeOnly bool
}

// prefixIndexMin is the number of prefixes from which a level files them
// by path; below it, comparing with each costs less than the walk. A
// variable so that the fuzz target tries both ways.
var prefixIndexMin = 8

// rc is ngx_http_core_find_location's result.
type rc uint8

const (
	rcDeclined rc = iota // nothing found at this level
	rcOK                 // an exact or regex location: search over
	rcAgain              // a prefix location: nested and regex ones next
	rcDone               // auto-redirect to the path with '/'
)

// find chooses the location for uri among lv's, as
// ngx_http_core_find_location: the static ones (exact, else longest
// prefix, whose nested locations are searched in turn), then, unless the
// longest prefix is ^~, the regexes in file order. *cur is the location
// chosen so far, left as it is when none is found here.
func (lv *level) find(s *Scratch, uri []byte, cur **location) rc {
	if lv.empty {
		return rcDeclined
	}
	var r rc
	if lv.treeOnly {
		// findStatic's answer in one call: a level of many prefixes
		// and nothing else is most of a werf-like site's levels.
		r = rcDeclined
		if l, _ := lv.byPath.longest(uri[lv.skip:]); l != nil {
			*cur, r = l, rcAgain
		}
	} else {
		r = lv.findStatic(uri, cur)
	}
	noregex := false
	if r == rcAgain {
		noregex = (*cur).kind == PrefixNoRegex
		if sub := &(*cur).sub; sub.empty {
			r = rcDeclined
		} else {
			r = sub.find(s, uri, cur)
		}
	}
	if r == rcOK || r == rcDone || noregex {
		return r
	}
	for _, l := range lv.regexes {
		if s.matchRegex(l.re, uri) {
			*cur = l
			if l.sub.find(s, uri, cur) == rcDone {
				return rcDone
			}
			return rcOK
		}
	}
	return r
}

// findStatic is ngx_http_core_find_static_location's answer, without
// its tree: an exact location for uri, else a prefix location equal to
// uri, else an auto-redirect location for uri+"/", else the longest
// prefix.
func (lv *level) findStatic(uri []byte, cur **location) rc {
	if lv.exact != nil {
		if l := lv.exact[string(uri)]; l != nil {
			*cur = l
			return rcOK
		}
	}
	if lv.byPath != nil {
		return lv.findIndexed(uri, cur)
	}
	for _, l := range lv.prefixes {
		if len(l.path) == len(uri) && string(uri) == l.path {
			*cur = l
			return rcAgain
		}
	}
	if l := lv.auto[string(uri)]; l != nil {
		*cur = l
		return rcDone
	}
	for _, l := range lv.prefixes {
		if len(l.path) <= len(uri) && string(uri[:len(l.path)]) == l.path {
			*cur = l
			return rcAgain
		}
	}
	return rcDeclined
}

// findIndexed is findStatic's answer after its exact locations, by
// lv.byPath: a prefix equal to uri, else an auto-redirect location for
// uri+"/", else the longest prefix.
func (lv *level) findIndexed(uri []byte, cur **location) rc {
	l, whole := lv.byPath.longest(uri[lv.skip:])
	if whole {
		*cur = l
		return rcAgain
	}
	if lv.auto != nil {
		if a := lv.auto[string(uri)]; a != nil {
			*cur = a
			return rcDone
		}
	}
	if l != nil {
		*cur = l
		return rcAgain
	}
	return rcDeclined
}

// add files l in lv; sort finishes lv once all are added.
func (lv *level) add(l *location) {
	switch l.kind {
	case Exact:
		if lv.exact == nil {
			lv.exact = map[string]*location{}
		}
		lv.exact[l.path] = l
	case Prefix, PrefixNoRegex:
		lv.prefixes = append(lv.prefixes, l)
	case Regex, RegexCI:
		lv.regexes = append(lv.regexes, l)
	}
}

// finish sorts the prefixes, longest first, and files the auto-redirect
// locations: nginx's tree node for a path answers with its exact
// location when there is one, else its prefix one.
func (lv *level) finish() {
	slices.SortStableFunc(lv.prefixes, func(a, b *location) int { return len(b.path) - len(a.path) })
	if len(lv.prefixes) >= prefixIndexMin {
		lv.byPath = &prefixTrie{}
		for _, l := range lv.prefixes {
			lv.byPath.add(l.path[lv.skip:], l)
		}
		lv.byPath.finish()
	}
	lv.empty = len(lv.exact) == 0 && len(lv.prefixes) == 0 && len(lv.regexes) == 0
	for _, l := range lv.prefixes {
		if l.autoRedirect {
			if lv.auto == nil {
				lv.auto = map[string]*location{}
			}
			lv.auto[l.path[:len(l.path)-1]] = l
		}
	}
	for _, l := range lv.exact {
		if l.autoRedirect || lv.auto[l.path[:max(len(l.path)-1, 0)]] != nil && l.path[len(l.path)-1] == '/' {
			if lv.auto == nil {
				lv.auto = map[string]*location{}
			}
			lv.auto[l.path[:len(l.path)-1]] = l
		}
	}
	lv.treeOnly = lv.byPath != nil && len(lv.exact) == 0 && len(lv.auto) == 0
}
