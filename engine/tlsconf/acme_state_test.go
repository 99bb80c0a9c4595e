package tlsconf

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"

	"github.com/google/go-cmp/cmp"
)

// TestLimiter checks the sliding window of on-demand admissions.
func TestLimiter(t *testing.T) {
	now := time.Unix(1e9, 0)
	l := newLimiter()
	l.now = func() time.Time { return now }
	l.set(2, time.Hour)
	var got []bool
	step := func(d time.Duration, name string) {
		now = now.Add(d)
		got = append(got, l.allow(name, false))
	}
	step(0, "a")              // 1st name
	step(time.Minute, "b")    // 2nd
	step(time.Minute, "c")    // over 2/h
	step(time.Minute, "a")    // admitted before: a retry passes
	step(57*time.Minute, "c") // "a" left the window at 60m
	step(0, "d")              // "b" is still in it
	step(time.Minute, "d")    // now "b" left too
	if diff := cmp.Diff([]bool{true, true, false, true, true, false, true}, got); diff != "" {
		t.Errorf("admissions (-want +got):\n%s", diff)
	}
}

// TestLimiterWildcardHalf: names covered only by a wildcard take at most
// half of the window, so the names the rules name exactly keep the rest
// however many names a client makes up under the wildcard.
func TestLimiterWildcardHalf(t *testing.T) {
	now := time.Unix(1e9, 0)
	l := newLimiter()
	l.now = func() time.Time { return now }
	l.set(10, time.Hour)
	admitted := 0
	for i := range 100 {
		if l.allow(fmt.Sprintf("n%d.wild.example", i), true) {
			admitted++
		}
	}
	if admitted != 5 {
		t.Errorf("%d made-up names under a wildcard admitted, want 5 of 10", admitted)
	}
	for i := range 5 {
		if name := fmt.Sprintf("exact%d.example", i); !l.allow(name, false) {
			t.Errorf("%s, named exactly, refused after the wildcard's names", name)
		}
	}
	if l.allow("exact5.example", false) {
		t.Error("an eleventh name admitted in a window of 10")
	}
}

// TestACMEHosts checks which hosts are managed: the names given, lower
// case, once each, without names a file certificate serves or no public
// CA issues for.
func TestACMEHosts(t *testing.T) {
	ca, dir := testutil.NewCA(t), t.TempDir()
	c, k := ca.WriteCert(t, dir, "f", time.Now().Add(time.Hour), "*.files.example")
	base := func(names []string) *Settings {
		return &Settings{
			File:         "redirectd.toml",
			TLSListen:    "127.0.0.1:0",
			Certificates: pairs(c, k),
			ACME: &ACME{CA: "https://127.0.0.1:1/dir", Storage: t.TempDir(), Names: names,
				OnDemandN: 1, OnDemandPer: time.Hour},
		}
	}
	rules := []string{"B.example.com", "a.example.com", "b.example.com", "x.files.example", "localhost", "10.0.0.1", "*.w.example.com"}
	for _, tc := range []struct {
		name  string
		names []string
		want  []string
	}{
		{"rules' hosts", rules, []string{"b.example.com", "a.example.com"}},
		{"list", []string{"c.example.com"}, []string{"c.example.com"}},
		{"none", []string{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(base(tc.names), nil, nil, testLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if diff := cmp.Diff(tc.want, m.acme.Load().hostList); diff != "" {
				t.Errorf("managed hosts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestACMEReload checks that [acme] follows reloads: a bad ca_root is
// refused and the running state stays; removing [acme] turns challenges
// off.
func TestACMEReload(t *testing.T) {
	cfg := &Settings{
		File:      "redirectd.toml",
		TLSListen: "127.0.0.1:0",
		ACME: &ACME{CA: "https://127.0.0.1:1/dir", Storage: t.TempDir(),
			Names: []string{"a.example.com"}, OnDemandN: 1, OnDemandPer: time.Hour},
	}
	m := newManager(t, cfg)
	before := m.acme.Load()

	bad := *cfg
	badACME := *cfg.ACME
	badACME.CARoot = filepath.Join(t.TempDir(), "missing.pem")
	bad.ACME = &badACME
	if err := m.Reload(&bad); err == nil || !strings.Contains(err.Error(), "redirectd.toml: [acme] ca_root: cannot read") {
		t.Errorf("reload with a missing ca_root: err = %v", err)
	}
	if m.acme.Load() != before {
		t.Error("a refused reload replaced the ACME state")
	}
	writeFile(t, badACME.CARoot, []byte("not PEM"))
	if err := m.Reload(&bad); err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Errorf("reload with a ca_root that is not PEM: err = %v", err)
	}

	if _, ok := m.HTTPChallenge("a.example.com", "/index.html"); ok {
		t.Error("HTTPChallenge answered a path outside /.well-known/acme-challenge/")
	}
	off := *cfg
	off.ACME = nil
	if err := m.Reload(&off); err != nil {
		t.Fatal(err)
	}
	if m.acme.Load() != nil {
		t.Error("[acme] removed, ACME still on")
	}
	if _, ok := m.HTTPChallenge("a.example.com", HTTPChallengePrefix+"token"); ok {
		t.Error("HTTPChallenge answered with [acme] off")
	}
}
