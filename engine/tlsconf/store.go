package tlsconf

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/redirectd/redirectd/internal/hostmap"
)

// certSet is one immutable set of certificates from files, swapped whole
// on reload.
type certSet struct {
	// names maps a lower-case DNS name or wildcard to its certificate, a
	// wildcard covering one label (RFC 6125 section 6.4.3).
	names hostmap.Map[*tls.Certificate]
	// def serves clients without SNI, and names no certificate covers:
	// the first certificate configured.
	def *tls.Certificate
	// loaded lists every certificate in configuration order.
	loaded []loadedCert
}

// loadedCert is one certificate and where it came from.
type loadedCert struct {
	cert     *tls.Certificate
	source   string // the certificate file
	name     string // its first name, the label of its expiry gauge
	notAfter time.Time
}

// lookup returns the certificate for a lower-case server name: an exact
// name first, then a wildcard one label up (RFC 6125 section 6.4.3: "*"
// matches exactly one label, so *.example.com covers a.example.com but
// neither example.com nor a.b.example.com). Nil when none covers it.
func (s *certSet) lookup(name string) *tls.Certificate {
	if c, ok := s.names.ExactString(name); ok {
		return c
	}
	c, _, _ := s.names.WildString(name, 0)
	return c
}

// loadSet reads the certificates t names: the [[tls.certificate]] pairs in
// order, then certificates_dir. It returns every problem, each naming its
// file; the set holds what did load.
func loadSet(t *Settings) (*certSet, []error) {
	s := &certSet{}
	s.names.OneLabel()
	var errs []error
	for i, c := range t.Certificates {
		if err := s.addPair(c.Cert, c.Key); err != nil {
			errs = append(errs, &CertError{File: c.File, Line: c.Line, Entry: i + 1, Msg: err.Error(), Err: err})
		}
	}
	if t.CertificatesDir != "" {
		errs = append(errs, s.addDir(t.CertificatesDir)...)
	}
	return s, errs
}

// addDir loads a folder of PEM pairs:
//   - NAME.crt or NAME.pem with NAME.key beside it;
//   - NAME.pem holding the key too, when there is no NAME.key;
//   - a sub-folder with fullchain.pem and privkey.pem (certbot's live/
//     layout, so certificates_dir = "/etc/letsencrypt/live" works).
//
// Files with other extensions are ignored (certbot leaves a README); a
// NAME.key without its certificate, or a sub-folder without the pair, is
// an error rather than a silent skip. Pairs load in name order.
func (s *certSet) addDir(dir string) []error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return []error{&CertError{File: dir, Msg: fmt.Sprintf("cannot read certificates_dir: %v", err), Err: err}}
	}
	var errs []error
	names := map[string]bool{}
	for _, e := range ents {
		names[e.Name()] = true
	}
	fail := func(file string, err error) { errs = append(errs, &CertError{File: file, Msg: err.Error(), Err: err}) }
	for _, e := range ents { // os.ReadDir sorts by name
		path := filepath.Join(dir, e.Name())
		if st, err := os.Stat(path); err == nil && st.IsDir() { // follows links, as certbot's are
			chain, key := filepath.Join(path, "fullchain.pem"), filepath.Join(path, "privkey.pem")
			if err := s.addPair(chain, key); err != nil {
				fail(chain, err)
			}
			continue
		}
		base, ext := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())), filepath.Ext(e.Name())
		switch ext {
		case ".crt", ".pem":
			if ext == ".pem" && names[base+".crt"] {
				fail(path, fmt.Errorf("both %s.crt and %s.pem are here; keep one certificate per name", base, base))
				continue
			}
			key := filepath.Join(dir, base+".key")
			if !names[base+".key"] {
				key = path // a combined file: chain and key in one
			}
			if err := s.addPair(path, key); err != nil {
				fail(path, err)
			}
		case ".key":
			if !names[base+".crt"] && !names[base+".pem"] {
				fail(path, fmt.Errorf("a key without a certificate: add %s.crt or %s.pem beside it, or remove it", base, base))
			}
		}
	}
	return errs
}

// addPair loads one certificate chain and its key and indexes its names.
// The first certificate to claim a name keeps it.
func (s *certSet) addPair(certFile, keyFile string) error {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return fmt.Errorf("cannot read the certificate: %w", err)
	}
	keyPEM := certPEM
	if keyFile != certFile {
		if keyPEM, err = os.ReadFile(keyFile); err != nil {
			return fmt.Errorf("cannot read the key: %w", err)
		}
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("cannot load %s with key %s: %w", certFile, keyFile, err)
	}
	leaf := cert.Leaf // set by X509KeyPair since Go 1.23
	names := leaf.DNSNames
	if len(names) == 0 && leaf.Subject.CommonName != "" {
		names = []string{leaf.Subject.CommonName} // an old certificate without SANs
	}
	if len(names) == 0 {
		return fmt.Errorf("%s names no host (no DNS subject alternative name); it could never be chosen by SNI", certFile)
	}
	c := &cert
	for _, n := range names {
		n = strings.ToLower(strings.TrimSuffix(n, "."))
		if _, ok := s.names.Get(n); !ok {
			s.names.Put(n, c)
		}
	}
	if s.def == nil {
		s.def = c
	}
	s.loaded = append(s.loaded, loadedCert{cert: c, source: certFile, name: strings.ToLower(names[0]), notAfter: leaf.NotAfter})
	return nil
}

// normalName lower-cases a server name and drops a trailing dot, without
// allocating when it is already in that form (the common case: clients
// send SNI in lower case).
func normalName(name string) string {
	name = strings.TrimSuffix(name, ".")
	for i := 0; i < len(name); i++ {
		if 'A' <= name[i] && name[i] <= 'Z' {
			return strings.ToLower(name)
		}
	}
	return name
}

// CheckCertificates loads the certificates t names and reports every one
// that does not load, each naming its file; for `redirectd check`, which
// must not start ACME or timers as New does.
func CheckCertificates(t *Settings) error {
	_, errs := loadSet(t)
	return errors.Join(errs...)
}

// Files lists what the certificates of t are read from: the
// [[tls.certificate]] files, certificates_dir, and the files and folders
// in it, so that a [rules] watch that stats them (links followed) sees a
// certificate replaced, added or removed, certbot's renewals included.
func Files(t *Settings) []string {
	var out []string
	for _, c := range t.Certificates {
		out = append(out, c.Cert, c.Key)
	}
	if t.CertificatesDir == "" {
		return out
	}
	out = append(out, t.CertificatesDir)
	ents, _ := os.ReadDir(t.CertificatesDir) // a missing folder fails the load itself
	for _, e := range ents {
		p := filepath.Join(t.CertificatesDir, e.Name())
		out = append(out, p)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			out = append(out, filepath.Join(p, "fullchain.pem"), filepath.Join(p, "privkey.pem"))
		}
	}
	return out
}
