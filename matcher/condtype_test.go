package matcher

import (
	"net/netip"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// condSamples holds one valid value for each condition field of When,
// by field name: a field added to When must be added here, and then
// TestCondTypesCoverWhen fails until condTypes has its kind.
var condSamples = map[string]any{
	"Language": []string{"de"},
	"Country":  []string{"AT"},
	"Header":   []KeyValue{{Name: "X-A", Value: "1"}},
	"Cookie":   []KeyValue{{Name: "c", Value: "1"}},
	"Scheme":   "https",
	"Query":    []QueryCond{{Name: "q", Value: "1"}},
	"IP":       []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")},
	"Method":   []string{"GET"},
	"Sample":   0.5,
}

// TestCondTypesCoverWhen sets each condition field of When alone and
// checks that the registry sees it everywhere it is looped over: Empty,
// the compiled count keyIsAll reads, and the config writer.
func TestCondTypesCoverWhen(t *testing.T) {
	typ := reflect.TypeFor[When]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Name == "Unless" {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			v, ok := condSamples[f.Name]
			if !ok {
				t.Fatalf("When.%s has no sample in condSamples: add one, and its kind to condTypes", f.Name)
			}
			var w When
			reflect.ValueOf(&w).Elem().Field(i).Set(reflect.ValueOf(v))
			if w.Empty() {
				t.Errorf("Empty is true with %s set", f.Name)
			}
			field := "when"
			if f.Name == "Query" {
				// Query is an unless condition only.
				inner := w
				w = When{Unless: &inner}
				field = "unless"
			}
			c, _, err := compileWhen(&w)
			if err != nil {
				t.Fatal(err)
			}
			if field == "unless" {
				c = c.unless
			}
			if n := condCount(c); n != 1 {
				t.Errorf("condCount is %d with %s set, want 1", n, f.Name)
			}
			form := TOMLForm{Quote: func(s string) string { return "'" + s + "'" }, Key: func(s string) string { return s }}
			parts := w.TOMLParts(form)
			if field == "unless" {
				parts = w.Unless.TOMLParts(form)
			}
			if len(parts) != 1 {
				t.Errorf("TOMLParts with %s set: %q, want one", f.Name, parts)
			}
		})
	}
}

// TestCondKeys checks the keys the config offers, in registry order.
func TestCondKeys(t *testing.T) {
	if diff := cmp.Diff([]string{"language", "country", "header", "cookie", "scheme", "ip", "method", "sample", "unless"}, CondKeys(false)); diff != "" {
		t.Errorf("when (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"language", "country", "header", "cookie", "scheme", "query", "ip", "method", "sample"}, CondKeys(true)); diff != "" {
		t.Errorf("unless (-want +got)\n%s", diff)
	}
	// A key is one kind: two entries under one key would be parsed by
	// the first alone.
	for i, ct := range condTypes {
		if j := slices.IndexFunc(condTypes, func(o condType) bool { return o.key == ct.key }); j != i {
			t.Errorf("key %q is at %d and %d", ct.key, j, i)
		}
	}
}

// TestKeyIsAllNewKinds checks that a cookie rule with an ip, method or
// sample condition besides is not taken as holding by its cookie alone.
func TestKeyIsAllNewKinds(t *testing.T) {
	for _, w := range []*When{
		{Cookie: []KeyValue{{Name: "c", Value: "1"}}, IP: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}},
		{Cookie: []KeyValue{{Name: "c", Value: "1"}}, Method: []string{"POST"}},
		{Cookie: []KeyValue{{Name: "c", Value: "1"}}, Sample: 0.1},
	} {
		c, _, err := compileWhen(w)
		if err != nil {
			t.Fatal(err)
		}
		if keyIsAll(&rule{when: c}) {
			t.Errorf("keyIsAll true for %+v", w)
		}
	}
	c, _, _ := compileWhen(&When{Cookie: []KeyValue{{Name: "c", Value: "1"}}})
	if !keyIsAll(&rule{when: c}) {
		t.Error("keyIsAll false for a lone cookie")
	}
}
