package edits

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/matcher"
)

func TestDiffRules(t *testing.T) {
	set := func(rules ...matcher.Rule) *matcher.Set {
		b := matcher.NewBuilder(matcher.DefaultLimits)
		for i := range rules {
			r := rules[i]
			if r.Status == 0 && !r.Pass {
				r.Status = 301
			}
			r.File, r.Line = "r.toml", i+1
			if err := b.Add(&r); err != nil {
				t.Fatal(err)
			}
		}
		s, err := b.Set()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	q := []matcher.QueryCond{{Name: "p", Value: "1"}}
	tests := []struct {
		name  string
		a, b  *matcher.Set
		limit int
		want  *edit.VersionDiff
	}{
		{"same rules moved", set(matcher.Rule{From: "/a", To: "/x"}, matcher.Rule{From: "/b", To: "/y"}),
			set(matcher.Rule{From: "/b", To: "/y"}, matcher.Rule{From: "/a", To: "/x"}), 10,
			&edit.VersionDiff{Changes: edit.NoChanges[edit.Rule]()}},
		{"status and pass are changes", set(matcher.Rule{From: "/a", To: "/x"}, matcher.Rule{From: "/b", To: "/y"}),
			set(matcher.Rule{From: "/a", To: "/x", Status: 302}, matcher.Rule{From: "/b", Pass: true}), 10,
			&edit.VersionDiff{ChangedCount: 2, Changes: edit.Changes[edit.Rule]{Added: []edit.Rule{}, Removed: []edit.Rule{}, Changed: []edit.Change[edit.Rule]{
				{Old: edit.Rule{Kind: "exact", From: "/a", To: "/x", Status: 301, Source: "r.toml:1"}, New: edit.Rule{Kind: "exact", From: "/a", To: "/x", Status: 302, Source: "r.toml:1"}},
				{Old: edit.Rule{Kind: "exact", From: "/b", To: "/y", Status: 301, Source: "r.toml:2"}, New: edit.Rule{Kind: "exact", From: "/b", Pass: true, Source: "r.toml:2"}},
			}}}},
		{"host, kind and query tell rules apart", set(matcher.Rule{From: "/a", To: "/x"}),
			set(matcher.Rule{From: "/a", To: "/x", Host: "h.example"}, matcher.Rule{Kind: matcher.Prefix, From: "/a", To: "/x"}, matcher.Rule{From: "/a", To: "/x", Query: q}), 10,
			&edit.VersionDiff{AddedCount: 3, RemovedCount: 1, Changes: edit.Changes[edit.Rule]{Changed: []edit.Change[edit.Rule]{},
				Added: []edit.Rule{
					{Kind: "exact", Host: "h.example", From: "/a", To: "/x", Status: 301, Source: "r.toml:1"},
					{Kind: "prefix", From: "/a", To: "/x", Status: 301, Source: "r.toml:2"},
					{Kind: "exact", From: "/a", Query: "p=1", To: "/x", Status: 301, Source: "r.toml:3"},
				},
				Removed: []edit.Rule{{Kind: "exact", From: "/a", To: "/x", Status: 301, Source: "r.toml:1"}}}}},
		{"lists cut at the limit, counts whole", set(), set(matcher.Rule{From: "/a", To: "/x"}, matcher.Rule{From: "/b", To: "/x"}, matcher.Rule{From: "/c", To: "/x"}), 2,
			&edit.VersionDiff{AddedCount: 3, Truncated: true, Changes: edit.Changes[edit.Rule]{Removed: []edit.Rule{}, Changed: []edit.Change[edit.Rule]{},
				Added: []edit.Rule{{Kind: "exact", From: "/a", To: "/x", Status: 301, Source: "r.toml:1"}, {Kind: "exact", From: "/b", To: "/x", Status: 301, Source: "r.toml:2"}}}}},
		{"limit 0: counts only", set(matcher.Rule{From: "/a", To: "/x"}), set(), 0,
			&edit.VersionDiff{RemovedCount: 1, Truncated: true, Changes: edit.NoChanges[edit.Rule]()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, diffRules(tt.a, tt.b, tt.limit)); diff != "" {
				t.Errorf("diffRules (-want +got):\n%s", diff)
			}
		})
	}
}
