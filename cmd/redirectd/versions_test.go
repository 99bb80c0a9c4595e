package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/matcher"
)

// TestVersionsLocal checks versions of a config's own rules: listed with
// their hash, not kept for rollback, and hit counts carried over a SIGHUP
// reload for the rules that did not change.
func TestVersionsLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const cfg = "[server]\nlisten = %[1]q\n\n[admin]\nlisten = %[2]q\n\n[access_log]\nenabled = false\n\n" +
		"[[rule]]\nfrom = \"/keep\"\nto = \"/k\"\n\n[[rule]]\nfrom = \"/change\"\nto = \"/c1\"\n"
	cmd, addr, adminAddr, file, stderr := startBinary(t, cfg, "/keep")
	node := &sourceNode{t: t, addr: addr, adminAddr: adminAddr, cmd: cmd, stderr: stderr}
	for range 3 {
		node.answer("/keep")
		node.answer("/change")
	}
	vs := node.versions()
	if len(vs) != 1 || !vs[0].Serving || vs[0].Kept || vs[0].Rules != 2 || vs[0].Source != "file:"+file || len(vs[0].Hash) != 12 {
		t.Fatalf("/versions at start: %+v", vs)
	}
	h1 := vs[0].Hash

	body, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(body), `"/c1"`, `"/c2"`, 1)), 0o644)
	cmd.Process.Signal(syscall.SIGHUP)
	node.waitAnswer("/change", 301, "/c2", 5*time.Second)
	vs = node.versions()
	if len(vs) != 2 || vs[1].Hash != h1 || vs[0].Hash == h1 || !vs[0].Serving || vs[1].Serving {
		t.Fatalf("/versions after a reload: %+v", vs)
	}
	// /keep: 1 from startBinary's probe and 3; /change changed, so its
	// count starts again (1: waitAnswer's request that saw /c2). The
	// counts are carried just after the new rules serve, so the answer
	// above can come before them: ask until they are there.
	var got map[string]uint64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, rb := node.call("GET", "/rules")
		var rules []admin.RuleInfo
		json.Unmarshal([]byte(rb), &rules)
		got = map[string]uint64{}
		for _, r := range rules {
			got[r.From] = r.Hits
		}
		if got["/keep"] == 4 || time.Now().After(deadline) {
			break
		}
	}
	if got["/keep"] != 4 || got["/change"] != 1 {
		t.Errorf("hits after the reload: %v, want /keep 4 and /change 1", got)
	}
	if code, body := node.call("POST", "/versions/rollback?to="+h1); code != 409 || !strings.Contains(body, "only versions from [rules] source") {
		t.Errorf("rollback of a local version: %d %q, want 409", code, body)
	}
	if code, body := node.call("GET", fmt.Sprintf("/versions/diff?from=%s&to=%s", vs[0].Hash, vs[0].Hash)); code != 200 || !strings.Contains(body, `"added_count": 0`) {
		t.Errorf("diff of the serving version with itself: %d %q", code, body)
	}
	if code, _ := node.call("GET", "/versions/diff?from="+h1); code != 409 {
		t.Errorf("diff with a local version not kept: %d, want 409", code)
	}
	if code, body := node.call("POST", "/versions/unpin"); code != 409 {
		t.Errorf("unpin without a source: %d %q, want 409", code, body)
	}
}

func TestJitter(t *testing.T) {
	const d = 10 * time.Second
	seen := map[time.Duration]bool{}
	for range 1000 {
		j := jitter(d)
		if j < d*8/10 || j > d*12/10 {
			t.Fatalf("jitter(%s) = %s, outside a fifth either way", d, j)
		}
		seen[j] = true
	}
	if len(seen) < 900 {
		t.Errorf("jitter gave %d different waits in 1000, want them spread", len(seen))
	}
}

// TestHeaderFile checks that source_header_file is read at each fetch, so
// a rotated token is used without a reload.
func TestHeaderFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "header")
	get := headerFunc(config.RulesSource{SourceHeaderFile: file})
	if _, _, err := get(); err == nil || !strings.Contains(err.Error(), "source_header_file") {
		t.Errorf("missing file: %v, want an error naming source_header_file", err)
	}
	for _, tok := range []string{"one", "two"} {
		os.WriteFile(file, []byte("Authorization: Bearer "+tok+"\n"), 0o600)
		name, value, err := get()
		if err != nil || name != "Authorization" || value != "Bearer "+tok {
			t.Errorf("header file with token %s: %q %q %v", tok, name, value, err)
		}
	}
	os.WriteFile(file, []byte("Authorization: Bearer x\r\nX-Injected: 1\n"), 0o600)
	if _, _, err := get(); err == nil || strings.Contains(err.Error(), "Bearer x") {
		t.Errorf("a header file with two lines: %v, want an error without the secret", err)
	}
}

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
		want  *admin.VersionDiff
	}{
		{"same rules moved", set(matcher.Rule{From: "/a", To: "/x"}, matcher.Rule{From: "/b", To: "/y"}),
			set(matcher.Rule{From: "/b", To: "/y"}, matcher.Rule{From: "/a", To: "/x"}), 10,
			&admin.VersionDiff{Added: []admin.DiffRule{}, Removed: []admin.DiffRule{}, Changed: []admin.RuleChange{}}},
		{"status and pass are changes", set(matcher.Rule{From: "/a", To: "/x"}, matcher.Rule{From: "/b", To: "/y"}),
			set(matcher.Rule{From: "/a", To: "/x", Status: 302}, matcher.Rule{From: "/b", Pass: true}), 10,
			&admin.VersionDiff{ChangedCount: 2, Added: []admin.DiffRule{}, Removed: []admin.DiffRule{}, Changed: []admin.RuleChange{
				{Old: admin.DiffRule{Kind: "exact", From: "/a", To: "/x", Status: 301, Source: "r.toml:1"}, New: admin.DiffRule{Kind: "exact", From: "/a", To: "/x", Status: 302, Source: "r.toml:1"}},
				{Old: admin.DiffRule{Kind: "exact", From: "/b", To: "/y", Status: 301, Source: "r.toml:2"}, New: admin.DiffRule{Kind: "exact", From: "/b", Pass: true, Source: "r.toml:2"}},
			}}},
		{"host, kind and query tell rules apart", set(matcher.Rule{From: "/a", To: "/x"}),
			set(matcher.Rule{From: "/a", To: "/x", Host: "h.example"}, matcher.Rule{Kind: matcher.Prefix, From: "/a", To: "/x"}, matcher.Rule{From: "/a", To: "/x", Query: q}), 10,
			&admin.VersionDiff{AddedCount: 3, RemovedCount: 1, Changed: []admin.RuleChange{},
				Added: []admin.DiffRule{
					{Kind: "exact", Host: "h.example", From: "/a", To: "/x", Status: 301, Source: "r.toml:1"},
					{Kind: "prefix", From: "/a", To: "/x", Status: 301, Source: "r.toml:2"},
					{Kind: "exact", From: "/a", Query: "p=1", To: "/x", Status: 301, Source: "r.toml:3"},
				},
				Removed: []admin.DiffRule{{Kind: "exact", From: "/a", To: "/x", Status: 301, Source: "r.toml:1"}}}},
		{"lists cut at the limit, counts whole", set(), set(matcher.Rule{From: "/a", To: "/x"}, matcher.Rule{From: "/b", To: "/x"}, matcher.Rule{From: "/c", To: "/x"}), 2,
			&admin.VersionDiff{AddedCount: 3, Truncated: true, Removed: []admin.DiffRule{}, Changed: []admin.RuleChange{},
				Added: []admin.DiffRule{{Kind: "exact", From: "/a", To: "/x", Status: 301, Source: "r.toml:1"}, {Kind: "exact", From: "/b", To: "/x", Status: 301, Source: "r.toml:2"}}}},
		{"limit 0: counts only", set(matcher.Rule{From: "/a", To: "/x"}), set(), 0,
			&admin.VersionDiff{RemovedCount: 1, Truncated: true, Added: []admin.DiffRule{}, Removed: []admin.DiffRule{}, Changed: []admin.RuleChange{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, diffRules(tt.a, tt.b, tt.limit)); diff != "" {
				t.Errorf("diffRules (-want +got):\n%s", diff)
			}
		})
	}
}
