package config

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"io"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/redirectd/redirectd/config/syntax"
	"github.com/redirectd/redirectd/internal/ascii"
	"github.com/redirectd/redirectd/internal/safego"
	"github.com/redirectd/redirectd/matcher"
)

// appendMapRules reads the map file named by the i-th [[map]] entry and
// appends its rules.
func appendMapRules(k *ruleSink, i int, raw *rawMap, d *Defaults, fl files) {
	e := &entry{file: k.file, table: "map", index: i, loc: k.loc, errs: k.errs, ok: true}
	name := e.str("file", raw.File, true)
	tmpl := matcher.Rule{Kind: e.kind(raw.Match), Status: e.status(raw.Status, d.Status), Headers: e.ownHeaders(raw.Headers, d)}
	e.options(&raw.rawOptions, d, &tmpl)
	tmpl.RequestURI = e.requestURI(raw.RequestURI, tmpl.Kind)
	e.gate(&raw.rawGate, &tmpl)
	e.fallback(&raw.rawFallback, d, &tmpl)
	skip := e.skipInvalid(raw.Invalid)
	scan := e.mapFormat(raw.Format)
	tmpl.When = e.when(raw.When, d.geoip)
	hosts := e.hosts(raw.Host)
	if !e.ok {
		return
	}
	name = fl.resolve(name)
	k.files = append(k.files, name)
	// The file is read twice: once to count its lines, so that the
	// packed table is sized once, then a piece at a time as it is
	// compiled. Read whole, its bytes lived beside the table they are
	// copied into: a million-rule load peaked at 1.7x its settled RSS
	// and a reload at 2.8x, against 1.05x and 2.1x read in pieces
	// (BenchmarkReloadMap).
	lines, regexes, size, id, err := countLines(fl, name)
	if err != nil {
		e.fail("file", "cannot read map file: %v", err)
		return
	}
	id.settings = mapSettings(&tmpl, hosts, raw.Format, skip)
	host := ""
	if len(hosts) == 1 {
		host = hosts[0]
	}
	if id.settings != "" && reuseMap(k, name, host, id) {
		return
	}
	if tmpl.Kind == matcher.Exact && !tmpl.CaseInsensitive && !tmpl.TrailingSlash && !tmpl.RequestURI && !tmpl.Fallback && regexes < lines/2 {
		// Most of the file will be packed exact rules of these hosts (a
		// file of regex keys, as nginx maps often are, would leave the
		// room unused).
		targets := hosts
		if len(targets) == 0 {
			targets = []string{""}
		}
		// The newlines are not in the arena; the room left is given
		// back only when over an eighth of it (packedTable.finish).
		for _, h := range targets {
			k.b.Grow(h, lines, size-lines+1)
		}
	}
	f, err := fl.open(name)
	if err != nil {
		e.fail("file", "cannot read map file: %v", err)
		return
	}
	defer f.Close()
	k.skip = skip
	before := k.mapState(host)
	if err := parseMapFile(k, name, f, size, tmpl, hosts, scan); err != nil {
		k.errs.add(&Error{File: name, Msg: fmt.Sprintf("cannot read map file: %v", err)})
	}
	k.skip = false
	if after := k.mapState(host); id.settings != "" && before.packed == 0 && after.packed > 0 && !k.stop &&
		after.errs == before.errs && after.skipped == before.skipped && after.written-before.written == after.packed {
		if sz, mt := fileStat(f); sz == id.size && mt.Equal(id.mtime) {
			k.built = append(k.built, mapBuilt{name: name, host: host, id: id, n: after.packed})
		}
	}
}

// mapState is what appendMapRules compares before and after a map file
// is read, to know whether every rule of it was packed.
type mapState struct{ packed, errs, skipped, written int }

func (k *ruleSink) mapState(host string) mapState {
	return mapState{packed: k.b.PackedLen(host), errs: len(k.errs.errs) + k.errs.dropped, skipped: k.nskipped,
		written: k.written.Exact + k.written.Prefix + k.written.Regex}
}

// countLines returns the number of lines and bytes of the file name, and
// about how many lines start with a regex key (~, "~ or '~; a line cut by
// a read is not counted).
//
// It gives the file's size, modification time and content hash in id as
// well (for reuseMap): hashed here, where each piece is in the cache,
// maphash costs about 5 ms of a million-rule load's 250.
func countLines(fl files, name string) (lines, regexes, size int, id mapFileID, err error) {
	f, err := fl.open(name)
	if err != nil {
		return 0, 0, 0, id, err
	}
	defer f.Close()
	_, id.mtime = fileStat(f)
	var h maphash.Hash
	h.SetSeed(mapSeed)
	buf := make([]byte, 256<<10)
	lines = 1
	for {
		n, err := f.Read(buf)
		b := buf[:n]
		lines += bytes.Count(b, []byte("\n"))
		regexes += regexLines(b)
		h.Write(b)
		size += n
		if err == io.EOF {
			id.size, id.hash = size, h.Sum64()
			return lines, regexes, size, id, nil
		}
		if err != nil {
			return 0, 0, 0, id, err
		}
	}
}

// regexLines counts the lines of b that start with ~, "~ or '~ (the first
// line not). It looks for '~' alone, one vector search, and at what is
// before each only when there is one: a map of exact paths has none, and
// a search for "\n~" stops at every line.
func regexLines(b []byte) (n int) {
	for i := bytes.IndexByte(b, '~'); i >= 0; {
		if i > 0 && (b[i-1] == '\n' || i > 1 && b[i-2] == '\n' && (b[i-1] == '"' || b[i-1] == '\'')) {
			n++
		}
		j := bytes.IndexByte(b[i+1:], '~')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return n
}

// mapChunk is how much of a map file is read at a time, and mapAsync the
// size from which it is read on a goroutine of its own. Variables for the
// tests, which cut files at every byte, both ways.
var mapChunk, mapAsync = 1 << 20, 1 << 20

// parseMapFile parses nginx map-file syntax: entries `key value;`, tokens
// separated by whitespace, quoted with " or ' when they hold spaces, # to
// the end of the line a comment. A key starting with ~ is a regex (~* one
// that ignores case), as in nginx; every other key gets tmpl's kind. Each
// rule takes tmpl's host and status. Each entry is handed to k as it is
// read, once per host; nothing is allocated per entry but what the Set
// keeps of it. size is about the file's length.
//
// A big file is read on a goroutine of its own while this one compiles
// what it has read, in batches: reading and compiling each take about half
// of a million-rule load, so on two CPUs the load takes about half as
// long. Entries and errors still reach k in file order. The entries'
// words are substrings of the piece of the file they were read from: a
// piece is read again into only once its last batch is compiled.
func parseMapFile(k *ruleSink, name string, r io.Reader, size int, tmpl matcher.Rule, hosts []string, scan scanner) error {
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
	if size < mapAsync {
		var it mapItem
		out := &mapOut{Item: &it}
		out.Emit = func() bool { return take(&it) }
		return readMapFile(name, r, tmpl, scan, out, func(used []byte) []byte {
			if used == nil {
				return make([]byte, min(mapChunk, size+1))
			}
			return used // take is done with its entries
		})
	}
	return readMapFileAsync(name, r, tmpl, scan, take)
}

// readMapFileAsync is readMapFile on a goroutine of its own, which hands
// the entries to take, on this one, in batches.
func readMapFileAsync(name string, r io.Reader, tmpl matcher.Rule, scan scanner, take func(*mapItem) bool) error {
	const batch = 1024
	type mapBatch struct {
		items   []mapItem
		release []byte // a piece of the file that no later batch uses
	}
	// A fixed set of batches goes round: the reader waits for one to be
	// compiled rather than making another. Made anew whenever none was
	// free, they were about a thousand of 256 KB each on one CPU (the
	// reader runs ahead until the channel is full), garbage the
	// collector, paced for the load, left in place: 50 MB of a
	// million-rule load's heap, each page touched fresh.
	const batches = 4
	full, free := make(chan mapBatch, batches), make(chan []mapItem, batches)
	for range batches - 1 {
		free <- make([]mapItem, 0, batch)
	}
	pieces := make(chan []byte, 2)
	pieces <- make([]byte, mapChunk)
	pieces <- make([]byte, mapChunk)
	var stop atomic.Bool
	var readErr error
	go func() {
		defer safego.Recover("map file reader")
		defer close(full)
		// Entries are built in place in the batch (a mapItem is 256
		// bytes; copying each in was 4 % of a million-rule start-up):
		// out.Item is the slot after the batch's last entry.
		b := make([]mapItem, 0, batch)
		out := &mapOut{Item: &b[:1][0]}
		send := func(release []byte) {
			full <- mapBatch{b, release}
			b = <-free
			out.Item = &b[:1][0]
		}
		out.Emit = func() bool {
			if b = b[:len(b)+1]; len(b) == batch {
				send(nil)
			} else {
				out.Item = &b[:len(b)+1][len(b)]
			}
			return !stop.Load()
		}
		readErr = readMapFile(name, r, tmpl, scan, out, func(used []byte) []byte {
			if used != nil {
				send(used)
			}
			return <-pieces
		})
		if len(b) > 0 {
			full <- mapBatch{b, nil}
		}
	}()
	for b := range full { // drained to the end, so the reader always finishes
		for i := 0; i < len(b.items) && !stop.Load(); i++ {
			if !take(&b.items[i]) {
				stop.Store(true)
			}
		}
		if b.release != nil {
			pieces <- b.release
		}
		free <- b.items[:0] // never blocks: it holds every batch
	}
	return readErr
}

// readMapFile reads the map file r a piece at a time and hands its entries
// to emit (see scanMapFile). next gives the buffer to read a piece into;
// it is given the last piece's buffer once every entry of it was emitted
// (nil the first time), and may return the same. An entry that a piece
// cuts is read again at the start of the next one.
func readMapFile(name string, r io.Reader, tmpl matcher.Rule, scan scanner, out *mapOut, next func(used []byte) []byte) error {
	buf, have, line := next(nil), 0, 1
	for {
		n, err := io.ReadFull(r, buf[have:])
		have += n
		final := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !final {
			return err
		}
		end, lines, more := scan(name, buf[:have], final, line, tmpl, out)
		if final || !more {
			return nil
		}
		line += lines
		used := buf
		buf = next(used)
		tail := have - end
		if 2*tail > len(buf) {
			// An entry longer than half a piece: a bigger buffer,
			// which the next piece takes over.
			buf = make([]byte, 2*tail+mapChunk)
		}
		have = copy(buf, used[end:have])
	}
}

// scanner reads the entries of a piece of a map file in one format:
// scanMapFile (nginx's map syntax) or scanTSV.
type scanner func(name string, data []byte, final bool, line int, tmpl matcher.Rule, out *mapOut) (end, lines int, more bool)

// mapOut is where a scanner puts the entries it reads: it writes each
// whole into *Item (every field: Item may hold an earlier entry), then
// calls Emit, which hands it on, points Item at the place for the next
// one and returns false when no more are wanted.
type mapOut struct {
	Item *mapItem
	Emit func() bool
}

// mapItem is one entry of a map file: a rule, or the error that it is.
// A fatal error ends the file.
type mapItem struct {
	r     matcher.Rule
	err   *Error
	fatal bool
}

// scanMapFile reads the entries of a piece of a map file (see
// parseMapFile), whose first line is line, and hands each to emit, in file
// order, until emit returns false. An entry that is wrong (a word count
// other than two, a brace nginx would refuse) is handed over as an error
// and reading goes on at the next ';'; a syntax error the words cannot be
// told apart after (an unclosed quote) ends the file. Unless the piece is
// the last (final), the entry it cuts short is left unread: scanMapFile
// returns where it starts (end) and the lines before it, and more when
// emit asked for more.
func scanMapFile(name string, data []byte, final bool, line int, tmpl matcher.Rule, out *mapOut) (end, lines int, more bool) {
	// The lexer's words are substrings of src. data is read for this load
	// alone and never changed while its entries are compiled, and the Set
	// copies what it keeps, so src aliases it rather than copying it. It
	// counts from the piece's first line: its messages name the file's.
	first := line
	lx := syntax.NewAt(unsafe.String(unsafe.SliceData(data), len(data)), first)
	var toks [3]syntax.Token
	n, bad := 0, "" // bad: why the entry being read is wrong
	fail := func(line int, msg string) bool {
		*out.Item = mapItem{err: &Error{File: name, Line: line, Msg: msg}}
		return out.Emit()
	}
	done := func() { end, lines = lx.Offset(), lx.Line()-first }
	for {
		if n == 0 && bad == "" {
			// Most entries are two plain words: no token for each.
			if a, b, l, ok := lx.Pair(); ok {
				toks[0] = syntax.Token{Text: a, Line: l}
				toks[1] = syntax.Token{Text: b, Line: l}
				if entryItem(out.Item, name, l, toks[:2], 2, "", &tmpl) && !out.Emit() {
					return end, lines, false
				}
				done()
				continue
			}
		}
		tok, err := lx.Next()
		if err != nil {
			se := err.(*syntax.Error)
			if se.Fatal && !final {
				return end, lines, true // a quote a later piece may close
			}
			if !se.Fatal && !skipEntry(lx) && !final {
				return end, lines, true // the entry goes on in the next piece
			}
			*out.Item = mapItem{err: &Error{File: name, Line: se.Line, Msg: se.Msg}, fatal: se.Fatal}
			if !out.Emit() || se.Fatal {
				return end, lines, false
			}
			n, bad = 0, ""
			done()
			continue
		}
		switch tok.Kind {
		case syntax.EOF:
			if !final {
				return end, lines, true
			}
			if n > 0 || bad != "" {
				fail(toks[0].Line, "entry does not end with ';'")
			}
			return len(data), lx.Line() - first, false
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
		if entryItem(out.Item, name, line, toks[:min(n, len(toks))], n, bad, &tmpl) && !out.Emit() {
			return end, lines, false
		}
		n, bad = 0, ""
		done()
	}
}

// entryItem sets it to what the map entry of n words (the first of
// them in toks), at line of file name, hands on: its rule, or why it is
// wrong (bad, when the words already told). It is false for an entry
// that makes no rule and is not wrong.
func entryItem(it *mapItem, name string, line int, toks []syntax.Token, n int, bad string, tmpl *matcher.Rule) bool {
	if bad != "" {
		*it = mapItem{err: &Error{File: name, Line: line, Msg: bad}}
		return true
	}
	// The rule is built in place: a Rule is 240 bytes, and each copy of
	// it was a few percent of a million-entry map's load.
	it.err, it.fatal = nil, false
	ok, err := mapRule(&it.r, toks, n, tmpl)
	switch {
	case err != nil:
		*it = mapItem{err: &Error{File: name, Line: line, Msg: err.Error()}}
		return true
	case ok:
		it.r.File, it.r.Line = name, line
		return true
	}
	return false
}

// skipEntry reads on to the end of the entry at hand, after an error, and
// reports whether it found its ';'.
func skipEntry(lx *syntax.Lexer) bool {
	for {
		tok, err := lx.Next()
		if err != nil && err.(*syntax.Error).Fatal || tok.Kind == syntax.EOF {
			return false
		}
		if err == nil && tok.Kind == syntax.Semicolon {
			return true
		}
	}
}

// mapRule builds the rule of one map entry of n words, as nginx's map
// reads it (ngx_http_map in ngx_http_map_module.c): a key starting with ~
// is a regex (~* one that ignores case), a backslash before any other key
// is dropped (so \~a is the key ~a), and a value of "" is an explicit "no
// redirect" entry (Rule.Pass). false without an error is an entry that
// makes no rule: volatile, or default "" (a miss is no redirect anyway).
func mapRule(r *matcher.Rule, toks []syntax.Token, n int, tmpl *matcher.Rule) (bool, error) {
	// nginx compares these names with the words as read, quoted or not.
	switch {
	case n == 1 && toks[0].Text == "volatile":
		return false, nil // only turns off nginx's caching of the variable
	case n == 1 && toks[0].Text == "hostnames":
		return false, fmt.Errorf("nginx's \"hostnames\" makes the keys host names, but a [[map]] file's keys are paths; " +
			"give the hosts with host in [[map]], or write the map on $host as a [[location_map]], as `redirectd import nginx` does")
	case n == 2 && toks[0].Text == "default" && toks[1].Text == "":
		return false, nil // a miss is no redirect already
	case n == 2 && toks[0].Text == "default":
		return false, fmt.Errorf("nginx's \"default\" has no place in a [[map]] file: a miss is answered 404 or forwarded to [upstream]; "+
			"to send every other path to %q, add a [[rule]] with match = \"prefix\" and from = \"/\" after this [[map]]", toks[1].Text)
	case n == 2 && toks[0].Text == "include":
		return false, fmt.Errorf("nginx's \"include\" has no place in a [[map]] file (its path would be relative to nginx's folder); "+
			"give %q a [[map]] of its own, in the place of this one", toks[1].Text)
	case n == 1:
		// GET /misses?format=map writes entries so, for the operator to
		// fill in: one left empty must not load as if it were complete.
		// The example repeats the key, unless it holds a control
		// character (a "\n" escape), which would break the message's line.
		ex := toks[0].Text
		if ascii.IndexControl(ex) >= 0 {
			ex = "/old-path"
		}
		return false, fmt.Errorf("the entry %q has no target: write where it redirects before the ';' (`%s /new-path;`), "+
			"\"\" for no redirect, or delete the line", toks[0].Text, ex)
	case n != 2:
		return false, fmt.Errorf("an entry is `from to;`, this one has %d words", n)
	}
	*r = *tmpl
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
	switch r.To {
	case "":
		r.Pass, r.Status = true, 0
	case "410", "451":
		// A value that is a status with no Location: as nginx's
		// `return 410;`, which import writes this way.
		r.Status, r.To = int(r.To[0]-'0')*100+int(r.To[1]-'0')*10+int(r.To[2]-'0'), ""
	}
	return true, nil
}
