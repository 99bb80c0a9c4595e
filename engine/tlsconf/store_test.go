package tlsconf

import (
	"crypto/tls"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"

	"github.com/google/go-cmp/cmp"
)

// TestSNISelection checks which certificate each server name gets.
func TestSNISelection(t *testing.T) {
	ca, dir := testutil.NewCA(t), t.TempDir()
	later := time.Now().Add(48 * time.Hour)
	c1, k1 := ca.WriteCert(t, dir, "default", later, "default.example")
	c2, k2 := ca.WriteCert(t, dir, "exact", later, "a.example.com", "b.example.com")
	c3, k3 := ca.WriteCert(t, dir, "wild", later, "*.wild.example")
	c4, k4 := ca.WriteCert(t, dir, "www", later, "www.wild.example")
	c5, k5 := ca.WriteCert(t, dir, "dup", later, "a.example.com") // a.example.com again: the first keeps it
	m := newManager(t, &Settings{Certificates: pairs(c1, k1, c2, k2, c3, k3, c4, k4, c5, k5)})
	for _, tc := range []struct {
		name, sni, want string
	}{
		{"exact", "a.example.com", "a.example.com"},
		{"second name", "b.example.com", "a.example.com"},
		{"upper case", "A.Example.COM", "a.example.com"},
		{"trailing dot", "b.example.com.", "a.example.com"},
		{"wildcard", "x.wild.example", "*.wild.example"},
		{"exact beats wildcard", "www.wild.example", "www.wild.example"},
		{"wildcard is one label", "x.y.wild.example", "default.example"},
		{"wildcard not the apex", "wild.example", "default.example"},
		{"no SNI", "", "default.example"},
		{"unknown name", "other.example", "default.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := m.getCertificate(&tls.ClientHelloInfo{ServerName: tc.sni, SupportedProtos: []string{"http/1.1"}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c.Leaf.DNSNames[0]); diff != "" {
				t.Errorf("certificate for %q (-want +got):\n%s", tc.sni, diff)
			}
		})
	}
}

// TestNoCertificate checks the error when nothing can serve a name.
func TestNoCertificate(t *testing.T) {
	m := newManager(t, &Settings{})
	for _, hello := range []*tls.ClientHelloInfo{
		{ServerName: "a.example.com"},
		{},
		{ServerName: "a.example.com", SupportedProtos: []string{alpnACME}},
	} {
		_, err := m.getCertificate(hello)
		if !errors.Is(err, ErrNoCertificate) || FailureReason(err) != ReasonUnknownSNI {
			t.Errorf("%+v: err = %v (reason %s), want ErrNoCertificate", hello, err, FailureReason(err))
		}
	}
}

// TestCertificatesDir checks the layouts certificates_dir reads and the
// errors of the ones it refuses.
func TestCertificatesDir(t *testing.T) {
	ca, dir := testutil.NewCA(t), t.TempDir()
	later := time.Now().Add(48 * time.Hour)
	ca.WriteCert(t, dir, "a", later, "a.example.com")
	// b.pem holds the chain and the key.
	bc, bk := ca.WriteCert(t, t.TempDir(), "b", later, "b.example.com")
	combined := append(must(os.ReadFile(bc)), must(os.ReadFile(bk))...)
	writeFile(t, filepath.Join(dir, "b.pem"), combined)
	// certbot's live/NAME/{fullchain,privkey}.pem.
	cc, ck := ca.WriteCert(t, t.TempDir(), "c", later, "c.example.com")
	writeFile(t, filepath.Join(dir, "c.example.com", "fullchain.pem"), must(os.ReadFile(cc)))
	writeFile(t, filepath.Join(dir, "c.example.com", "privkey.pem"), must(os.ReadFile(ck)))
	writeFile(t, filepath.Join(dir, "README"), []byte("certbot's note, ignored"))

	s, errs := loadSet(&Settings{CertificatesDir: dir})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, c := range s.loaded {
		got = append(got, c.name+" "+filepath.Base(c.source))
	}
	want := []string{"a.example.com a.crt", "b.example.com b.pem", "c.example.com fullchain.pem"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loaded (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		name  string
		setup func(dir string)
		want  string
	}{
		{"key without certificate", func(d string) { writeFile(t, filepath.Join(d, "lone.key"), must(os.ReadFile(bk))) },
			"lone.key: a key without a certificate"},
		{"key does not match", func(d string) {
			writeFile(t, filepath.Join(d, "x.crt"), must(os.ReadFile(bc)))
			writeFile(t, filepath.Join(d, "x.key"), must(os.ReadFile(ck)))
		}, "x.crt: cannot load"},
		{"not PEM", func(d string) { writeFile(t, filepath.Join(d, "y.crt"), []byte("garbage")) }, "y.crt: cannot load"},
		{"folder without the pair", func(d string) { writeFile(t, filepath.Join(d, "z", "cert.pem"), []byte("x")) },
			"fullchain.pem: cannot read the certificate"},
		{"missing folder", func(d string) { os.RemoveAll(d) }, "cannot read certificates_dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			tc.setup(d)
			_, errs := loadSet(&Settings{CertificatesDir: d})
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Errorf("errors %v, want one containing %q", errs, tc.want)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestFilesAndCheck checks the files a watch must stat, and that
// CheckCertificates reports what loadSet refuses.
func TestFilesAndCheck(t *testing.T) {
	ca, dir := testutil.NewCA(t), t.TempDir()
	later := time.Now().Add(time.Hour)
	c, k := ca.WriteCert(t, t.TempDir(), "one", later, "one.example")
	ca.WriteCert(t, dir, "a", later, "a.example")
	ca.WriteCert(t, filepath.Join(dir, "live"), "x", later, "x.example")
	tc := &Settings{Certificates: pairs(c, k), CertificatesDir: dir}
	want := []string{c, k, dir, filepath.Join(dir, "a.crt"), filepath.Join(dir, "a.key"), filepath.Join(dir, "live"),
		filepath.Join(dir, "live", "fullchain.pem"), filepath.Join(dir, "live", "privkey.pem")}
	if diff := cmp.Diff(want, Files(tc)); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
	// live/ has x.crt, not certbot's names: an error naming the file.
	if err := CheckCertificates(tc); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "live", "fullchain.pem")) {
		t.Errorf("CheckCertificates = %v, want the missing fullchain.pem named", err)
	}
	if err := CheckCertificates(&Settings{Certificates: pairs(c, k)}); err != nil {
		t.Errorf("CheckCertificates of a good pair: %v", err)
	}
	// The cause stays inspectable through the entry's error: a caller
	// can tell a missing file from a broken one.
	missing := filepath.Join(dir, "gone.crt")
	err := CheckCertificates(&Settings{Certificates: pairs(missing, k)})
	var ce *CertError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &ce) || ce.Entry != 1 || ce.Line != 10 {
		t.Errorf("CheckCertificates of a missing file = %v, want a *CertError of entry 1 wrapping fs.ErrNotExist", err)
	}
}
