package edit

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/redirectd/redirectd/matcher"
)

// Equal reports whether e and o make the same edit (nil only as nil:
// go-cmp compares a Rule's Entry by it).
func (e *Entry) Equal(o *Entry) bool {
	if e == nil || o == nil {
		return e == o
	}
	return e.Op == o.Op && e.Host == o.Host && e.From == o.From && e.To == o.To && e.Status == o.Status &&
		e.Kind == o.Kind && maps.Equal(e.Query, o.Query) && maps.Equal(e.Headers, o.Headers) &&
		(len(e.When) == 0 && len(o.When) == 0 || reflect.DeepEqual(e.When, o.When))
}

// parts reads the conditions and header fields e gives, as the config
// reads a [[rule]]'s query, when and headers: each when condition by
// the matcher's own parser of it (matcher.ParseCond), so that an entry
// takes what the config takes and is refused what it refuses.
func (e *Entry) parts() (q []matcher.QueryCond, w *matcher.When, hs []matcher.Header, err error) {
	for _, name := range slices.Sorted(maps.Keys(e.Query)) {
		q = append(q, matcher.QueryCond{Name: name, Value: e.Query[name]})
	}
	if len(e.When) > 0 {
		if w, err = whenOf("when", e.When); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(e.Headers)) {
		if err := matcher.CheckHeader(name, e.Headers[name]); err != nil {
			return nil, nil, nil, fieldMsg(err)
		}
		hs = append(hs, matcher.Header{Name: name, Value: e.Headers[name]})
	}
	return q, w, hs, nil
}

// whenOf reads the when table t at field (when, or when.unless, which
// also takes query).
func whenOf(field string, t map[string]any) (*matcher.When, error) {
	w := &matcher.When{}
	for _, key := range slices.Sorted(maps.Keys(t)) {
		v := t[key]
		switch {
		case key == "unless" && field == "when":
			u, ok := v.(map[string]any)
			if !ok || len(u) == 0 {
				return nil, fmt.Errorf("when.unless must be a non-empty table of conditions, not %s", valueType(v))
			}
			uw, err := whenOf("when.unless", u)
			if err != nil {
				return nil, err
			}
			w.Unless = uw
		case key == "query" && field != "when":
			u, ok := v.(map[string]any)
			if !ok || len(u) == 0 {
				return nil, fmt.Errorf("%s.query must be a non-empty table of names to values, not %s", field, valueType(v))
			}
			for _, name := range slices.Sorted(maps.Keys(u)) {
				s, ok := u[name].(string)
				if !ok {
					return nil, fmt.Errorf("%s.query: %q must be a string, not %s", field, name, valueType(u[name]))
				}
				w.Query = append(w.Query, matcher.QueryCond{Name: name, Value: s})
			}
		default:
			known, err := matcher.ParseCond(w, key, v, valueType)
			if !known {
				return nil, fmt.Errorf("%s.%s: unknown condition; use %q", field, key, matcher.CondKeys(field != "when"))
			}
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %v", field, key, err)
			}
		}
	}
	return w, nil
}

// valueType names the type of a decoded TOML or JSON value for messages.
func valueType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T", v)
}

// fieldMsg is err of the matcher without its field's prefix, which the
// caller's message gives.
func fieldMsg(err error) error {
	var fe *matcher.FieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s: %s", fe.Field, fe.Msg)
	}
	return err
}

// checkParts says what is wrong with the conditions and headers e
// gives, compiling them into a rule as the promote will: a condition
// the config refuses (a network with host bits set, an unknown key) is
// refused when the entry is added, not at the promote.
func (e *Entry) checkParts(syn Syntax) error {
	if !e.Conditioned() {
		return nil
	}
	if len(e.Query)+len(e.Headers) > 256 {
		return fmt.Errorf("at most 256 query conditions and header fields")
	}
	q, w, hs, err := e.parts()
	if err != nil {
		return err
	}
	r := matcher.Rule{Kind: e.MatchKind(), Host: e.Host, From: e.From, To: e.To, Status: e.Status, Query: q, When: w, Headers: hs}
	if r.Kind != matcher.Regex && e.Kind == "" && e.Op != OpAdd && len(e.From) > 0 && e.From[0] != '/' {
		r.Kind = matcher.Regex // a change naming a regex by its pattern
	}
	if err := syn.Writable(&r); err != nil {
		return err
	}
	if err := matcher.NewBuilder(matcher.DefaultLimits).Add(&r); err != nil {
		return fieldMsg(err)
	}
	return nil
}

// Conds returns the conditions e gives as matcher's Rule.Conditions
// writes them, nil for none (or conditions Check refuses).
func (e *Entry) Conds() []string {
	q, w, _, err := e.parts()
	if err != nil {
		return nil
	}
	return condsOf(q, w)
}

// condsOf writes query and when conditions as matcher's
// Rule.Conditions does, without a rule's window (which is not a
// condition an entry gives).
func condsOf(q []matcher.QueryCond, w *matcher.When) []string {
	r := matcher.Rule{Query: q, When: w}
	return r.Conditions()
}

// RuleCondKey returns the CondKey of r's host, from and conditions, ""
// for a rule without conditions.
func RuleCondKey(r *matcher.Rule) string {
	if len(r.Query) == 0 && r.When.Empty() {
		return ""
	}
	return CondKey(r.Host, r.From, condsOf(r.Query, r.When))
}

// Shown returns the conditions e gives as matcher's Rule.Conditions
// writes them (`scheme = https`) and its header fields ("Name: value"),
// for the lists of a draft; nil for none.
func (e *Entry) Shown() (conds, headers []string) {
	q, w, hs, err := e.parts()
	if err != nil {
		return nil, nil
	}
	r := matcher.Rule{Host: e.Host, Query: q, When: w}
	return r.Conditions(), HeaderLines(hs)
}

// HeaderLines writes header fields as "Name: value" lines, nil for none.
func HeaderLines(hs []matcher.Header) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Name+": "+h.Value)
	}
	return out
}

// SetParts gives r the conditions and header fields e gives: an edit
// names a rule of its conditions (or, without, keeps the rule's own),
// and one that gives headers replaces its headers (merged with the
// server's, as the config merges a rule's).
func (e *Entry) SetParts(r *matcher.Rule, base *matcher.Set) {
	q, w, hs, err := e.parts()
	if err != nil {
		return // Check refused it when it was added
	}
	if len(e.Query) > 0 || len(e.When) > 0 {
		r.Query, r.When = q, w
	}
	if len(hs) > 0 {
		r.Headers = matcher.MergeHeaders(hs, base.HeaderFields())
	}
}
