package edits

import (
	"errors"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/matcher"
)

func set(t *testing.T, rules ...matcher.Rule) *matcher.Set {
	t.Helper()
	for i := range rules {
		rules[i].File, rules[i].Line = "r.toml", i+1
		if rules[i].Status == 0 {
			rules[i].Status = 301
		}
	}
	s, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type brief struct {
	Kind, Host, From, To string
	Status               int
}

func briefs(s *matcher.Set) []brief {
	var out []brief
	s.Each(func(r matcher.RuleHits) { out = append(out, brief{r.Kind.String(), r.Host, r.From, r.To, r.Status}) })
	return out
}

func mkEdit(op, host, from, to string, status int) edit.Edit {
	return edit.Edit{Entry: edit.Entry{Op: op, Host: host, From: from, To: to, Status: status}}
}

// TestApply checks that an overlay changes and deletes the rules its
// keys name, in place, and adds the others at the end; that a delete of
// a rule the config no longer has is reported; and that a rule the
// builder refuses is named by its entry.
func TestApply(t *testing.T) {
	t.Parallel()
	base := set(t,
		matcher.Rule{Kind: matcher.Exact, From: "/a", To: "/x"},
		matcher.Rule{Kind: matcher.Prefix, From: "/p/", To: "/q/"},
		matcher.Rule{Kind: matcher.Exact, Host: "h.com", From: "/a", To: "/hx"},
		matcher.Rule{Kind: matcher.Regex, From: "^/r(.*)$", To: "/s$1"},
	)
	ov := FromEdits([]edit.Edit{
		mkEdit(edit.OpChange, "", "/a", "/y", 302),
		mkEdit(edit.OpDelete, "h.com", "/a", "", 0),
		mkEdit(edit.OpAdd, "", "/new", "/n", 301),
		mkEdit(edit.OpDelete, "", "/gone", "", 0),
		mkEdit(edit.OpChange, "", "^/r(.*)$", "/t$1", 308),
	})
	got, gone, err := Apply(base, ov, matcher.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := []brief{
		{"exact", "", "/a", "/y", 302}, {"prefix", "", "/p/", "/q/", 301}, {"regex", "", "^/r(.*)$", "/t$1", 308}, {"exact", "", "/new", "/n", 301},
	}
	if diff := cmp.Diff(want, briefs(got)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"delete /gone"}, gone); diff != "" {
		t.Errorf("deletes that found no rule (-want +got):\n%s", diff)
	}
	var m matcher.Match
	if !got.Lookup(nil, []byte("/rab"), nil, &m) || string(m.AppendLocation(nil, nil)) != "/tab" {
		t.Errorf("the changed regex does not answer /rab with /tab")
	}
	_, _, err = Apply(base, FromEdits([]edit.Edit{mkEdit(edit.OpAdd, "", "^(", "/x", 301)}), matcher.DefaultLimits)
	var ee *EntryError
	if !errors.As(err, &ee) || ee.Entry.From != "^(" {
		t.Errorf("a bad entry: %v, want an EntryError naming it", err)
	}
}

// TestApplyFileOrder: a draft of a rule set in file order ([rules]
// order = "file") is in file order too: a changed rule keeps its place,
// so an earlier prefix still answers before a later exact rule.
func TestApplyFileOrder(t *testing.T) {
	t.Parallel()
	rules := []matcher.Rule{
		{Kind: matcher.Prefix, From: "/p/", To: "/q/", Status: 301, File: "r.toml", Line: 1},
		{Kind: matcher.Exact, From: "/p/x", To: "/x", Status: 301, File: "r.toml", Line: 2},
	}
	base, err := matcher.CompileFileOrder(rules)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Apply(base, FromEdits([]edit.Edit{mkEdit(edit.OpChange, "", "/p/", "/r/", 302)}), matcher.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	if !got.FileOrder() || !got.Lookup(nil, []byte("/p/x"), nil, &m) || string(m.AppendLocation(nil, nil)) != "/r/x" {
		t.Errorf("the draft of a set in file order does not answer /p/x with the earlier prefix rule's /r/x (file order %v)", got.FileOrder())
	}
}

// TestMerge checks that a later edit of a key replaces the earlier, in
// its place.
func TestMerge(t *testing.T) {
	t.Parallel()
	a := FromEdits([]edit.Edit{mkEdit(edit.OpAdd, "", "/a", "/1", 301), mkEdit(edit.OpAdd, "", "/b", "/2", 301)})
	b := FromEdits([]edit.Edit{mkEdit(edit.OpDelete, "", "/a", "", 0), mkEdit(edit.OpAdd, "", "/c", "/3", 301)})
	m := a.Merge(b)
	var got []string
	for _, e := range m.Edits() {
		got = append(got, e.Op+" "+e.From)
	}
	if diff := cmp.Diff([]string{"delete /a", "add /b", "add /c"}, got); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
	if a.Len() != 2 || b.Len() != 2 {
		t.Errorf("Merge changed its inputs")
	}
	m.Remove(edit.Key("", "/a"))
	m.Remove(edit.Key("", "/none"))
	if e, ok := m.Get(edit.Key("", "/c")); m.Len() != 2 || !ok || e.To != "/3" {
		t.Errorf("after Remove: %d edits, /c %v %v", m.Len(), e, ok)
	}
}

// TestApplyKeepsURI: a draft applied to rules on nginx's $uri gives
// rules on $uri too (the keys and answers depend on it).
func TestApplyKeepsURI(t *testing.T) {
	t.Parallel()
	b := matcher.NewBuilder(matcher.DefaultLimits)
	b.SetURI(matcher.URI{Nginx: true, KeepSlashes: true})
	if err := b.Add(&matcher.Rule{Kind: matcher.Prefix, From: "/p/", To: "/q/", Status: 301, File: "r.toml", Line: 1}); err != nil {
		t.Fatal(err)
	}
	base, err := b.Set()
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Apply(base, FromEdits([]edit.Edit{mkEdit(edit.OpAdd, "", "/new", "/n", 301)}), matcher.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	if got.URI() != base.URI() || !got.Lookup(nil, []byte("/p%2Fx"), nil, &m) {
		t.Errorf("after Apply: URI %+v (base %+v), or /p%%2Fx finds no rule", got.URI(), base.URI())
	}
}

// TestMergeStamped holds MergeStamped to Merge with top's edits stamped,
// over an empty overlay (top's index reused) and a full one, and leaves
// top as it was.
func TestMergeStamped(t *testing.T) {
	e := func(from, to string, v int) edit.Edit {
		return edit.Edit{Entry: edit.Entry{Op: edit.OpAdd, From: from, To: to, Status: 301}, Version: v}
	}
	top := FromEdits([]edit.Edit{e("/a", "/1", 0), e("/b", "/2", 0)})
	for _, tc := range []struct {
		name string
		base *Overlay
		want []edit.Edit
	}{
		{"empty", NewOverlay(), []edit.Edit{e("/a", "/1", 7), e("/b", "/2", 7)}},
		{"nil", nil, []edit.Edit{e("/a", "/1", 7), e("/b", "/2", 7)}},
		{"full", FromEdits([]edit.Edit{e("/b", "/0", 3), e("/c", "/3", 3)}), []edit.Edit{e("/b", "/2", 7), e("/c", "/3", 3), e("/a", "/1", 7)}},
	} {
		got := tc.base.MergeStamped(top, 7)
		if diff := cmp.Diff(tc.want, got.Edits()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		for _, w := range tc.want {
			if g, ok := got.Get(w.Key()); !ok || !cmp.Equal(*g, w) {
				t.Errorf("%s: Get(%q) = %+v %v", tc.name, w.From, g, ok)
			}
		}
	}
	if top.Edits()[0].Version != 0 {
		t.Errorf("top was stamped: %+v", top.Edits())
	}
}
