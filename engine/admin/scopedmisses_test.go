package admin

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// listMisses is a MissReporter of a fixed list, sorted by count.
type listMisses []MissInfo

func (l listMisses) Misses(_ context.Context, host string, limit int) ([]MissInfo, error) {
	var out []MissInfo
	for _, m := range l {
		if (host == "" || m.Host == host) && (limit == 0 || len(out) < limit) {
			out = append(out, m)
		}
	}
	return out, nil
}

// TestScopedMisses: the one filter of misses by host scope, which the
// JSON endpoint and the console both ask: a token of a wildcard host
// gets the misses of its subdomains, the limit counting those only; a
// host it is not given is forbidden; a token of every host gets what it
// asks for.
func TestScopedMisses(t *testing.T) {
	mr := listMisses{{Host: "b.example", Path: "/1", Count: 9}, {Host: "x.a.example", Path: "/2", Count: 8},
		{Host: "b.example", Path: "/3", Count: 7}, {Host: "y.a.example", Path: "/4", Count: 6}, {Host: "z.a.example", Path: "/5", Count: 5}}
	scoped := &edit.Identity{Name: "s", Role: edit.RoleViewer, Hosts: []string{"*.a.example"}}
	got, err := ScopedMisses(context.Background(), mr, scoped, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]MissInfo{mr[1], mr[3]}, got); diff != "" {
		t.Errorf("scoped, limit 2 (-want +got):\n%s", diff)
	}
	if _, err := ScopedMisses(context.Background(), mr, scoped, "b.example", 0); !errors.Is(err, edit.ErrForbidden) {
		t.Errorf("another host's misses: %v, want ErrForbidden", err)
	}
	got, _ = ScopedMisses(context.Background(), mr, &edit.Identity{Name: "all", Role: edit.RoleViewer}, "", 3)
	if diff := cmp.Diff([]MissInfo(mr[:3]), got); diff != "" {
		t.Errorf("every host, limit 3 (-want +got):\n%s", diff)
	}
}
