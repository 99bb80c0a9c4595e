package config

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// leafTypes are config types that decode one TOML value (a string, a
// list) rather than a table, although Go holds them in a struct.
var leafTypes = map[reflect.Type]bool{
	reflect.TypeFor[ACMEHosts](): true,
	reflect.TypeFor[Rate]():      true,
}

// referenceKey is one key the reference must document: the table it
// belongs to, as a heading names it ("[server]", "[[rule]]"), and the key.
type referenceKey struct{ table, key string }

// referenceKeys walks the decoded config types by their toml tags, the
// keys the loader accepts, and returns every table (in the order the
// types declare them) and every key of each.
func referenceKeys(t reflect.Type, table string, tables *[]string, keys *[]referenceKey) {
	for f := range t.Fields() {
		if f.Anonymous && f.Tag.Get("toml") == "" {
			referenceKeys(f.Type, table, tables, keys)
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		ft, list := f.Type, false
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			list = list || ft.Kind() == reflect.Slice
			ft = ft.Elem()
		}
		name := tag
		if table != "" {
			name = table + "." + tag
			*keys = append(*keys, referenceKey{heading(table, tables), tag})
		}
		if ft == t {
			// [[location.location]]: a nested location has the keys of
			// the one it is in, which its section lists.
			continue
		}
		if ft.Kind() == reflect.Struct && !leafTypes[ft] && ft != reflect.TypeFor[Duration]() {
			h := "`[" + name + "]`"
			if list {
				h = "`[[" + name + "]]`"
			}
			*tables = append(*tables, h)
			referenceKeys(ft, name, tables, keys)
		}
	}
}

// heading returns the heading text of the table named name (dotted),
// as referenceKeys recorded it.
func heading(name string, tables *[]string) string {
	for _, h := range *tables {
		if strings.Trim(h, "`[]") == name {
			return h
		}
	}
	return "`[" + name + "]`"
}

// referenceSections splits the reference into its level-2 sections,
// keyed by heading text.
func referenceSections(doc string) (order []string, sections map[string]string) {
	sections = map[string]string{}
	parts := strings.Split("\n"+doc, "\n## ")
	for _, p := range parts[1:] {
		h, body, _ := strings.Cut(p, "\n")
		h = strings.TrimSpace(h)
		order = append(order, h)
		sections[h] = body
	}
	return order, sections
}

// TestReferenceNamesEveryKey fails when config/README.md lacks a section
// for a table the loader accepts, a row for one of its keys, or lists the
// tables in another order than the config types declare them, so that a
// key added to the code cannot stay undocumented.
func TestReferenceNamesEveryKey(t *testing.T) {
	doc, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	var keys []referenceKey
	referenceKeys(reflect.TypeFor[rawConfig](), "", &tables, &keys)
	if len(tables) < 10 || len(keys) < 80 {
		t.Fatalf("the walk found %d tables and %d keys; it no longer sees the config types", len(tables), len(keys))
	}
	order, sections := referenceSections(string(doc))
	at := map[string]int{}
	for i, h := range order {
		for _, tb := range tables {
			if h == tb {
				at[tb] = i
			}
		}
	}
	last := -1
	for _, tb := range tables {
		i, ok := at[tb]
		if !ok {
			t.Errorf("config/README.md has no section \"## %s\"", tb)
			continue
		}
		if i < last {
			t.Errorf("config/README.md: \"## %s\" comes before a table the config declares ahead of it; keep the order of the file", tb)
		}
		last = i
	}
	// when's conditions are decoded by hand (conditions.go), not by tag:
	// each is a row of the [[rule]] section's when table.
	for _, c := range whenKeys {
		keys = append(keys, referenceKey{"`[[rule]]`", "when." + c})
	}
	_, row, _ := strings.Cut(sections["`[[rule]]`"], "\n| `when.unless` |")
	row, _, _ = strings.Cut(row, "\n")
	for _, c := range unlessKeys {
		if !strings.Contains(row, "`"+c+"`") {
			t.Errorf("config/README.md, section `[[rule]]`: the row of when.unless does not name %q", c)
		}
	}
	for _, k := range keys {
		body, ok := sections[k.table]
		if !ok {
			continue // reported above
		}
		_, row, ok := strings.Cut(body, "\n| `"+k.key+"` |")
		if !ok {
			t.Errorf("config/README.md, section %s: no row for the key %q (\"| `%s` | type | default | what it does | refused |\")", k.table, k.key, k.key)
			continue
		}
		if strings.Contains(k.key, ".") {
			continue // a condition of when, in its own table
		}
		row, _, _ = strings.Cut(row, "\n")
		cells := strings.Split(row, " |")
		if len(cells) != 5 || strings.TrimSpace(cells[0]) == "" || strings.TrimSpace(cells[1]) == "" || strings.TrimSpace(cells[2]) == "" {
			t.Errorf("config/README.md, section %s, key %q: the row needs a type, a default, what it does and what is refused (\"| `%s` | type | default | what it does | refused |\"), not %q", k.table, k.key, k.key, row)
		}
	}
}
