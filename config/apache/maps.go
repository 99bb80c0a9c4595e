package apache

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// rwMap is a RewriteMap the import reads: a txt: or rnd: file's keys
// and values, in file order.
type rwMap struct {
	d       *Directive
	name    string
	entries [][2]string
	loc     *LocMap // written on its first use
	// fn is an int: map's function (tolower, toupper, escape,
	// unescape), written as a location map of that function.
	fn string
	// made, for a map the import writes of its own (no RewriteMap
	// names it), says what at d needs it: "[B] of RewriteRule".
	made string
}

// LocMap is a RewriteMap as a [[location_map]]: each value is the key,
// a tab and Apache's value, so that the steps can check the key with
// case (the map's literal keys are compared without it).
type LocMap struct {
	Source   string // the directive, file:line
	Name     string
	Variable string
	Key      string
	Entries  string
	File     string // where Write put the entries; "" when inline
	Function string // an int: map's function, without entries
	Made     string // for a map of the import's own, what at Source needs it
}

// maxMapBytes bounds one map file read.
const maxMapBytes = 256 << 20

// readMaps reads every RewriteMap of dirs (sections' included): a map
// is declared in server context and read by any rule of the server.
func (t *translator) readMaps(dirs []*Directive) {
	for _, d := range dirs {
		if d.Section {
			t.readMaps(d.Block)
			continue
		}
		if !d.Is("RewriteMap") {
			continue
		}
		if len(d.Args) < 2 {
			t.note(d, importer.LeftOut, "RewriteMap takes a name and TYPE:SOURCE; left out")
			continue
		}
		name, spec := d.Args[0], d.Args[1]
		kind, src, _ := strings.Cut(spec, ":")
		switch strings.ToLower(kind) {
		case "txt", "rnd":
			m, err := t.readMapFile(d, name, strings.ToLower(kind), src)
			if err != nil {
				t.note(d, importer.LeftOut, "RewriteMap %s: %v; the rules that read it are left out", name, err)
				continue
			}
			t.maps[name] = m
		case "int":
			switch src {
			case "tolower", "toupper", "escape", "unescape":
				t.maps[name] = &rwMap{d: d, name: name, fn: src}
			default:
				t.note(d, importer.LeftOut, "RewriteMap %s %s: not one of Apache's int: functions (tolower, toupper, escape, unescape); the rules that read it are left out", name, spec)
			}
		case "dbm":
			m, err := t.readDBMMap(d, name, "", src)
			if err != nil {
				t.note(d, importer.LeftOut, "RewriteMap %s %s: %v; the rules that read it are left out", name, spec, err)
				continue
			}
			t.maps[name] = m
		case "prg":
			t.note(d, importer.LeftOut, "RewriteMap %s %s: a program answers this map at each lookup, which redirectd cannot run; the rules that read it are left out", name, spec)
		default:
			if typ, ok := strings.CutPrefix(strings.ToLower(kind), "dbm="); ok {
				m, err := t.readDBMMap(d, name, typ, src)
				if err != nil {
					t.note(d, importer.LeftOut, "RewriteMap %s %s: %v; the rules that read it are left out", name, spec, err)
					continue
				}
				t.maps[name] = m
				continue
			}
			t.note(d, importer.LeftOut, "RewriteMap %s: a %s: map is not translated (a program or database answers it); the rules that read it are left out", name, kind)
		}
	}
}

// readMapFile reads a txt: or rnd: file: "key value" lines, # comments.
// A relative file is read from the config's folder (Apache reads it from
// ServerRoot).
func (t *translator) readMapFile(d *Directive, name, kind, file string) (*rwMap, error) {
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(d.File), file)
	}
	st, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read", file)
	}
	if st.Size() > maxMapBytes {
		return nil, fmt.Errorf("%s is over 256 MiB", file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read", file)
	}
	var pairs []mapPair
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		pairs = append(pairs, mapPair{f[0], f[1], fmt.Sprintf("%s:%d", file, n)})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return t.mapOf(d, name, kind, pairs), nil
}

// mapPair is a map file's key and value, and where it stands.
type mapPair struct{ key, val, at string }

// mapOf makes the map of pairs: the first of a key answers, as Apache's
// txt: lookup finds it.
func (t *translator) mapOf(d *Directive, name, kind string, pairs []mapPair) *rwMap {
	m := &rwMap{d: d, name: name}
	seen := map[string]string{}
	for _, p := range pairs {
		key, val := p.key, p.val
		if kind == "rnd" && strings.Contains(val, "|") {
			t.note(d, importer.Caveat, "RewriteMap %s: %s: Apache picks one of %q at random; redirectd answers the first", name, p.at, val)
			val, _, _ = strings.Cut(val, "|")
		}
		if strings.ContainsAny(key+val, `$\"`) || hasControl(key+val) || strings.ContainsAny(key, " \t\n") || !utf8.ValidString(key+val) {
			t.note(d, importer.LeftOut, "RewriteMap %s: %s: a '$', '\\', '\"', a control byte or bytes that are not UTF-8 cannot be written in a map entry; left out", name, p.at)
			continue
		}
		low := strings.ToLower(key)
		if first, ok := seen[low]; ok {
			if first != key {
				t.note(d, importer.LeftOut, "RewriteMap %s: %s: key %q differs from an earlier one only by case, which redirectd's map does not tell apart; left out", name, p.at, key)
			}
			continue // Apache answers the first of a key
		}
		seen[low] = key
		m.entries = append(m.entries, [2]string{key, val})
	}
	return m
}

// readDBMMap reads a dbm: map's file (typ: dbm=TYPE's, "" for the
// default), relative to the config's folder as readMapFile reads one.
func (t *translator) readDBMMap(d *Directive, name, typ, file string) (*rwMap, error) {
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(d.File), file)
	}
	kv, err := readDBM(typ, file)
	if err != nil {
		return nil, err
	}
	pairs := make([]mapPair, len(kv))
	for i, p := range kv {
		pairs[i] = mapPair{p[0], p[1], fmt.Sprintf("%s key %q", file, p[0])}
	}
	return t.mapOf(d, name, "dbm", pairs), nil
}

// lookup writes ${name:key|default}: the steps set the map's key, look
// it up, and keep the value only where the key found is the key asked
// with case. It returns the variable holding the answer.
//
// With escape (a redirect without [NE]), the answer is escaped as
// Apache's ap_escape_uri escapes the whole Location, through a map of
// the escape function.
func (c *rwCtx) lookup(spec string, escape bool) (string, error) {
	name, rest, ok := strings.Cut(spec, ":")
	if !ok {
		return "", fmt.Errorf("${%s}: a lookup is ${map:key|default}; left out", spec)
	}
	m := c.t.maps[name]
	if m == nil {
		return "", fmt.Errorf("${%s:...}: no RewriteMap %s the import reads; left out", name, name)
	}
	key, def, _ := strings.Cut(rest, "|")
	k, err := c.expandKey(key)
	if err != nil {
		return "", err
	}
	dv, err := c.expandKey(def)
	if err != nil {
		return "", err
	}
	if m.loc == nil {
		if m.loc = c.t.locMap(m); m.loc == nil {
			c.t.maps[name] = nil
			return "", fmt.Errorf("${%s:...}: the map does not load; left out", name)
		}
	}
	keyVar := m.loc.Key
	out := c.newVar("v")
	c.init("set $" + keyVar + ` "";`)
	c.init("set $" + out + ` "";`)
	if m.fn != "" {
		// Apache's int: map answers whatever the key, the default never.
		c.pre = append(c.pre, "set $"+keyVar+" "+quoteArg(k)+";", "set $"+out+" "+m.loc.Variable+";")
	} else {
		c.init(`set $a_mk "";`)
		c.init(`set $a_mv "";`)
		// $a_mk starts as " ", which no key is (a key has no white
		// space): an empty key misses, and takes the default, as in
		// Apache.
		c.pre = append(c.pre,
			"set $"+keyVar+" "+quoteArg(k)+";",
			"set $"+out+" "+quoteArg(dv)+";",
			`set $a_mk " ";`,
			"if ("+m.loc.Variable+` ~ "^([^\t]*)\t(.*)$") { set $a_mk $1; set $a_mv $2; }`,
			"if ($a_mk = \"$"+keyVar+"\") { set $"+out+" $a_mv; }",
			`set $a_mk "";`)
	}
	if escape {
		return c.escaped(out)
	}
	return "${" + out + "}", nil
}

// escaped returns a variable that holds v escaped as Apache escapes a
// redirect's Location, filing v as what the '?' check reads (Apache
// looks for a '?' in an expansion before it escapes the Location).
//
// The variable's name follows v's, so that a context's rules share it
// and the steps declare one per group, not one per rule.
func (c *rwCtx) escaped(v string) (string, error) {
	esc := "a_e_" + v
	c.init("set $" + esc + ` "";`)
	c.pre = append(c.pre, "set $"+esc+" $"+v+";")
	if err := c.applyFunc(esc, "escape", "the Location of RewriteRule's redirect, escaped as Apache escapes it (no [NE])"); err != nil {
		return "", err
	}
	c.rawOf["${"+esc+"}"] = "${" + v + "}"
	return "${" + esc + "}", nil
}

// applyFunc sets the variable v to the function fn of its value,
// through the import's own map of that function; made says what of the
// rule needs it, for the map's comment.
func (c *rwCtx) applyFunc(v, fn, made string) error {
	name := "_" + fn
	if strings.Contains(fn, " ") {
		// urlencode with options: a map of its own for each set.
		h := fnv.New32a()
		h.Write([]byte(fn))
		name = fmt.Sprintf("_urlencode_%08x", h.Sum32())
	}
	m := c.t.maps[name]
	if m == nil {
		m = &rwMap{name: name, fn: fn, d: c.cur, made: made}
		if m.loc = c.t.locMap(m); m.loc == nil {
			return fmt.Errorf("the %s function does not load; left out", fn)
		}
		c.t.maps[name] = m
	}
	c.init("set $" + m.loc.Key + ` "";`)
	c.pre = append(c.pre, "set $"+m.loc.Key+" $"+v+";", "set $"+v+" "+m.loc.Variable+";")
	return nil
}

// expandKey expands a lookup's key or default: the rule's groups are
// read from where the rule saved them, as conditions run in between.
func (c *rwCtx) expandKey(s string) (string, error) {
	v, err := c.expand(s, false)
	if err != nil {
		return "", err
	}
	for n := range 10 {
		d := fmt.Sprintf("$%d", n)
		if strings.Contains(v, d) {
			c.wantR[n] = true
			v = strings.ReplaceAll(v, d, fmt.Sprintf("${a_r%d}", n))
		}
	}
	return v, nil
}

// locMap writes a map's entries in nginx's map syntax, volatile so
// that each lookup reads the key the steps set just before.
func (t *translator) locMap(m *rwMap) *LocMap {
	key := "a_key_" + varSafe(m.name)
	if m.fn != "" {
		l := &LocMap{Source: m.d.Source(), Name: m.name, Variable: "$a_map_" + varSafe(m.name), Key: key, Function: m.fn, Made: m.made}
		t.res.Maps = append(t.res.Maps, l)
		return l
	}
	var b strings.Builder
	b.WriteString("volatile;\n")
	for _, e := range m.entries {
		k := e[0]
		switch {
		case strings.HasPrefix(k, "~"), k == "default", k == "hostnames", k == "volatile", k == "include":
			k = `\` + k
		}
		fmt.Fprintf(&b, "%s \"%s\t%s\";\n", quoteArg(k), e[0], e[1])
	}
	l := &LocMap{Source: m.d.Source(), Name: m.name, Variable: "$a_map_" + varSafe(m.name), Key: key, Entries: b.String()}
	spec := rewrite.Spec{Steps: []rewrite.Text{{Src: "set $" + key + ` "";`, Line: 1}},
		Maps: []rewrite.MapSpec{{Source: "$" + key, Variable: l.Variable, Entries: l.Entries}}}
	if !utf8.ValidString(l.Entries) {
		t.note(m.d, importer.LeftOut, "RewriteMap %s: its file holds bytes that are not UTF-8; left out", m.name)
		return nil
	}
	if _, err := rewrite.Compile(spec); err != nil {
		t.note(m.d, importer.LeftOut, "RewriteMap %s: its entries do not load (%v); left out", m.name, err)
		return nil
	}
	t.res.Maps = append(t.res.Maps, l)
	return l
}
