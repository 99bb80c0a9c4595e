package matcher

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
)

// condType is one kind of when condition: what every place that handles
// a When (Empty, keyIsAll, the importers' config writer, the reference
// of keys) asks of it. Each kind is one value in condTypes, so a field
// added to When without one fails TestCondTypesCoverWhen instead of
// being silently skipped by one of those places.
type condType struct {
	// key is its config key under when ("ip" for when.ip).
	key string
	// inWhen and inUnless say where the config takes it: when, when.unless.
	inWhen, inUnless bool
	// has reports whether w holds a condition of this kind.
	has func(w *When) bool
	// count is the number of conditions of this kind in a compiled when.
	count func(c *when) int
	// words are the texts w's conditions of this kind hold that come
	// from a source file (a header's name and value as one), for
	// Writable's check that TOML can hold them; nil for a kind whose
	// values are not strings (ip, sample) or one of a few (scheme).
	words func(w *When) []string
	// toml writes w's conditions of this kind as a TOML value
	// ("['GET', 'HEAD']"); called only when has.
	toml func(w *When, f TOMLForm) string
	// unit is the rest of a kind, which lives wholly in its own file
	// (cond_KEY.go). It is nil for query alone: when.unless.query is the
	// rule's query condition (query.go) turned around, read and compiled
	// with it.
	unit condUnit
}

// condUnit is a condition kind held in one file: its config parsing,
// compiling, matching and explain text.
type condUnit interface {
	// parse reads the config value v (a TOML value: string, int64,
	// float64, []any) into w, or says what is wrong with it; kind names
	// a value's TOML type for that message.
	parse(w *When, v any, kind func(any) string) error
	// compile checks w's conditions of this kind and returns their
	// compiled checks, one per condition (a header each, a list of
	// languages one), writing them to key (condKey text).
	compile(w *When, field string, key *strings.Builder) ([]condCheck, error)
	// text writes w's conditions of this kind as Conditions does, one
	// per check compile returns, in its order.
	text(w *When) []string
	// got says what the request of m holds for w's i-th condition of
	// this kind, after "; ", for Unmet ("the client is 192.0.2.1").
	got(w *When, i int, m *Match) string
	// vary names the header fields w's conditions of this kind read,
	// for the answer's Vary; none for what no field says.
	vary(w *When) []string
}

// condCheck is a compiled condition of a condUnit kind. holds must not
// allocate: it runs on the traffic path.
type condCheck interface {
	holds(m *Match) bool
}

// ClientRequest is what a Request also says when it knows the client
// and the method: when.ip, when.method and when.sample read it, and never
// hold for a Request that is not one (as when.country does not without a
// database). It is apart from Request so that the many views of a
// request that have neither (the importers' self-checks, probes) need
// not grow.
type ClientRequest interface {
	// ClientAddr returns the client's address: the peer, or the client a
	// trusted PROXY header or X-Forwarded-For names; invalid when unknown.
	ClientAddr() netip.Addr
	// Method returns the request's method as sent.
	Method() []byte
}

// clientOf returns req's client address, unmapped from IPv4-in-IPv6;
// invalid when req does not say.
func clientOf(req Request) netip.Addr {
	if c, ok := req.(ClientRequest); ok {
		return c.ClientAddr().Unmap()
	}
	return netip.Addr{}
}

// condTypes are the kinds of when condition in the order the config
// writer writes them. Unless is not one: it holds conditions.
var condTypes = []condType{
	languageType,
	countryType,
	headerType,
	cookieType,
	schemeType,
	{key: "query", inUnless: true,
		has:   func(w *When) bool { return len(w.Query) > 0 },
		count: func(c *when) int { return len(c.query) },
		words: func(w *When) []string {
			var out []string
			for _, q := range w.Query {
				out = append(out, q.Name+q.Value)
			}
			return out
		},
		toml: func(w *When, f TOMLForm) string {
			kvs := make([]KeyValue, len(w.Query))
			for i, c := range w.Query {
				kvs[i] = KeyValue(c)
			}
			// By name: a TOML table has no order, the loader reads them by name.
			slices.SortFunc(kvs, func(a, b KeyValue) int { return strings.Compare(a.Name, b.Name) })
			return tomlTable(kvs, f)
		}},
	ipType,
	methodType,
	sampleType,
}

// checksOf counts the compiled checks of type T in c.
func checksOf[T condCheck](c *when) int {
	n := 0
	for _, k := range c.checks {
		if _, ok := k.(T); ok {
			n++
		}
	}
	return n
}

// condCount is the number of conditions c holds of every kind, not
// counting its unless: keyIsAll's "no other condition".
func condCount(c *when) int {
	n := 0
	for _, t := range condTypes {
		n += t.count(c)
	}
	return n
}

// CondKeys returns the condition keys the config takes under when
// (unless false) or when.unless (unless true), "unless" included.
func CondKeys(unless bool) []string {
	var keys []string
	for _, t := range condTypes {
		if unless && t.inUnless || !unless && t.inWhen {
			keys = append(keys, t.key)
		}
	}
	if !unless {
		keys = append(keys, "unless")
	}
	return keys
}

// ParseCond reads the config value v of the condition key into w;
// known is false for a key that is not a condition of when or for
// query, which the config reads with the rule's query. kind names a
// value's TOML type for the error.
func ParseCond(w *When, key string, v any, kind func(any) string) (known bool, err error) {
	for _, t := range condTypes {
		if t.key == key && t.unit != nil {
			return true, t.unit.parse(w, v, kind)
		}
	}
	return false, nil
}

// TOMLForm is how the config writer writes a string value (Quote) and a
// table key (Key, bare when it can be).
type TOMLForm struct{ Quote, Key func(string) string }

// TOMLParts writes w's own conditions (not Unless) as the keys and
// values of a TOML inline table ("method = ['GET']"), in condTypes
// order: the importers' config writer.
func (w *When) TOMLParts(f TOMLForm) []string {
	var parts []string
	for _, t := range condTypes {
		if t.has(w) {
			parts = append(parts, t.key+" = "+t.toml(w, f))
		}
	}
	return parts
}

// Words returns the texts w's own conditions (not Unless) hold that come
// from a source file, a name and its value as one: what a writer of
// TOML, which holds UTF-8 only, must check.
func (w *When) Words() []string {
	var out []string
	for _, t := range condTypes {
		if t.words != nil && t.has(w) {
			out = append(out, t.words(w)...)
		}
	}
	return out
}

func pairWords(kvs []KeyValue) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = kv.Name + kv.Value
	}
	return out
}

// tomlList writes strings as a TOML array.
func tomlList(vs []string, f TOMLForm) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = f.Quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// tomlTable writes names and values as an inline table, in their order.
func tomlTable(kvs []KeyValue, f TOMLForm) string {
	q := make([]string, len(kvs))
	for i, kv := range kvs {
		q[i] = f.Key(kv.Name) + " = " + f.Quote(kv.Value)
	}
	return "{ " + strings.Join(q, ", ") + " }"
}

// condStrings reads a string or a non-empty list of strings.
func condStrings(v any, kind func(any) string) ([]string, error) {
	switch x := v.(type) {
	case string:
		return []string{x}, nil
	case []any:
		out := make([]string, 0, len(x))
		for _, y := range x {
			s, ok := y.(string)
			if !ok {
				return nil, fmt.Errorf("must be a list of strings, not a list holding %s", kind(y))
			}
			out = append(out, s)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("the list is empty; leave it out for no condition")
		}
		return out, nil
	}
	return nil, fmt.Errorf("must be a string or a list of strings, not %s", kind(v))
}

// condPairs reads a when.header or when.cookie table of names to the
// value each must have, by name; a bad entry is named in the error and
// left out, the others kept.
func condPairs(v any, kind func(any) string) ([]KeyValue, error) {
	t, ok := v.(map[string]any)
	if !ok || len(t) == 0 {
		return nil, fmt.Errorf("must be a non-empty table of names to values, such as { X-Device = \"mobile\" }, not %s", kind(v))
	}
	var out []KeyValue
	var err error
	for _, name := range slices.Sorted(maps.Keys(t)) {
		s, ok := t[name].(string)
		switch {
		case !ok:
			err = fmt.Errorf("%q must be a string, not %s", name, kind(t[name]))
		case !ascii.IsToken(name):
			err = fmt.Errorf("%q is not a valid name: use letters, digits and !#$%%&'*+-.^_`|~", name)
		default:
			out = append(out, KeyValue{Name: name, Value: s})
		}
	}
	return out, err
}

// listUnit is what the kinds written as a list of strings (language,
// country, method) share: reading and checking the list, compiling it
// into one check, its text and its condType. Each kind embeds it and
// adds its check's holds, and got and vary.
type listUnit struct {
	key string
	// list is the field of When the kind fills.
	list func(w *When) *[]string
	// check says what is wrong with a value as written, nil when nothing.
	check func(v string) error
	// form turns a checked value into the one compiled; nil keeps it.
	form func(v string) string
	// tag starts each value in the condKey.
	tag string
	// cond is the compiled check of the values, formed.
	cond func(values []string) condCheck
}

// condType is the kind's entry in condTypes; count counts its checks.
func (u listUnit) condType(count func(c *when) int, unit condUnit) condType {
	return condType{key: u.key, inWhen: true, inUnless: true,
		has:   func(w *When) bool { return len(*u.list(w)) > 0 },
		count: count,
		words: func(w *When) []string { return *u.list(w) },
		toml:  func(w *When, f TOMLForm) string { return tomlList(*u.list(w), f) },
		unit:  unit,
	}
}

func (u listUnit) parse(w *When, v any, kind func(any) string) error {
	list, err := condStrings(v, kind)
	if err != nil {
		return err
	}
	for _, s := range list {
		if err := u.check(s); err != nil {
			return err
		}
	}
	*u.list(w) = append(*u.list(w), list...)
	return nil
}

// compile checks w's list and compiles it into one check, writing each
// value to key; none for an empty list.
func (u listUnit) compile(w *When, field string, key *strings.Builder) ([]condCheck, error) {
	var values []string
	for _, s := range *u.list(w) {
		if err := u.check(s); err != nil {
			return nil, fieldErr(field+"."+u.key, "%v", err)
		}
		if u.form != nil {
			s = u.form(s)
		}
		values = append(values, s)
		key.WriteString(u.tag + s + "\x00")
	}
	if len(values) == 0 {
		return nil, nil
	}
	return []condCheck{u.cond(values)}, nil
}

func (u listUnit) text(w *When) []string {
	return []string{u.key + " = " + strings.Join(*u.list(w), ", ")}
}

// pairUnit is what the kinds written as a table of names to values
// (header, cookie) share: reading the table, compiling each pair into a
// check of its own, its text and its condType.
type pairUnit struct {
	key string
	// list is the field of When the kind fills.
	list func(w *When) *[]KeyValue
	// noun is what a name is, for the error on a name that is no token.
	noun string
	// form turns a name into the one compiled; nil keeps it.
	form func(name string) string
	// tag starts each pair in the condKey.
	tag string
	// cond is the compiled check of a pair, its name formed.
	cond func(kv KeyValue) condCheck
}

// condType is the kind's entry in condTypes; count counts its checks.
func (u pairUnit) condType(count func(c *when) int, unit condUnit) condType {
	return condType{key: u.key, inWhen: true, inUnless: true,
		has:   func(w *When) bool { return len(*u.list(w)) > 0 },
		count: count,
		words: func(w *When) []string { return pairWords(*u.list(w)) },
		toml:  func(w *When, f TOMLForm) string { return tomlTable(*u.list(w), f) },
		unit:  unit,
	}
}

func (u pairUnit) parse(w *When, v any, kind func(any) string) error {
	kvs, err := condPairs(v, kind)
	*u.list(w) = append(*u.list(w), kvs...)
	return err
}

func (u pairUnit) compile(w *When, field string, key *strings.Builder) ([]condCheck, error) {
	var checks []condCheck
	for _, kv := range *u.list(w) {
		if !ascii.IsToken(kv.Name) {
			return nil, fieldErr(field+"."+u.key, "%q is not a %s", kv.Name, u.noun)
		}
		if u.form != nil {
			kv.Name = u.form(kv.Name)
		}
		checks = append(checks, u.cond(kv))
		key.WriteString(u.tag + kv.Name + "\x00" + kv.Value + "\x00")
	}
	return checks, nil
}

func (u pairUnit) text(w *When) []string {
	kvs := *u.list(w)
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = pairText(u.key, kv.Name, kv.Value)
	}
	return out
}
