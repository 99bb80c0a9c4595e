package geoip_test

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config/geoip"
	"github.com/redirectd/redirectd/config/geoip/geoiptest"
)

func TestCountry(t *testing.T) {
	path := geoiptest.Write(t, map[string]string{
		"127.0.0.0/24":    "DE",
		"127.0.1.0/24":    "AT",
		"2001:db8::/32":   "CH",
		"198.51.100.0/24": "FR",
	})
	db, err := geoip.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	addrs := []string{"127.0.0.1", "127.0.0.255", "127.0.1.9", "2001:db8::1", "::ffff:127.0.1.1", "198.51.100.7", "127.0.2.1", "2001:db9::1"}
	var got []string
	for _, a := range addrs {
		got = append(got, db.Country(netip.MustParseAddr(a)))
	}
	want := []string{"DE", "DE", "AT", "CH", "AT", "FR", "", ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("countries (-want +got)\n%s", diff)
	}
	if c := db.Country(netip.Addr{}); c != "" {
		t.Errorf("Country(invalid) = %q, want empty", c)
	}
}

func TestCountryAllocs(t *testing.T) {
	db, err := geoip.Open(geoiptest.Write(t, map[string]string{"127.0.0.0/8": "DE"}))
	if err != nil {
		t.Fatal(err)
	}
	a := netip.MustParseAddr("127.0.0.1")
	db.Country(a) // decodes the record once
	if n := testing.AllocsPerRun(200, func() {
		if db.Country(a) != "DE" {
			t.Fatal("wrong country")
		}
	}); n != 0 {
		t.Errorf("Country allocated %v times per run, want 0", n)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := geoip.Open(filepath.Join(t.TempDir(), "missing.mmdb")); err == nil {
		t.Error("Open of a missing file: no error")
	}
	junk := filepath.Join(t.TempDir(), "junk.mmdb")
	os.WriteFile(junk, []byte("not a database"), 0o644)
	if _, err := geoip.Open(junk); err == nil || !strings.Contains(err.Error(), "not a MaxMind database") {
		t.Errorf("Open of junk: %v, want an error saying it is not a MaxMind database", err)
	}
}
