package daemon

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/matcher"
)

// Ruleset returns the serving rules as a rule-set archive in the form
// [rules] source reads (a .tar.gz holding redirectd.toml), made on the
// first call after the version changes and kept in edits_dir, with the
// version's hash as its ETag: an edited node can be a fleet's source.
func (s *service) Ruleset() (admin.Ruleset, error) {
	ed := s.ed
	if ed.store == nil {
		return admin.Ruleset{}, fmt.Errorf("%w: set [admin] edits_dir", admin.ErrNoRuleset)
	}
	hash := s.versions.servingHash()
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if ed.hash == hash && ed.ruleset.File != "" {
		return ed.ruleset, nil
	}
	file := filepath.Join(ed.store.Dir(), "ruleset.tar.gz")
	if err := writeRuleset(file, s.srv.Rules(), hash); err != nil {
		return admin.Ruleset{}, fmt.Errorf("cannot write the rule-set archive: %w", err)
	}
	ed.hash, ed.ruleset = hash, admin.Ruleset{File: file, ETag: strconv.Quote(hash), Time: time.Now()}
	return ed.ruleset, nil
}

// writeRuleset writes set's rules as redirectd.toml in a .tar.gz at
// file (a temporary name, synced, renamed: a fetch in progress keeps
// reading the old one). The rules are written by the one writer of
// configs (importer.WriteRule, the inverse of config.Load, fuzzed by
// FuzzWriteRule and FuzzRuleset), so a node that loads the archive serves
// the same rules, conditions, windows, headers and shadow mode included.
// A rule that TOML cannot hold (bytes that are not UTF-8, from a map
// file) fails the archive with its place and why: an archive that loads
// as other rules would be served to the whole fleet.
func writeRuleset(file string, set *matcher.Set, hash string) error {
	toml, err := rulesetTOML(set, hash)
	if err != nil {
		return err
	}
	tmp := file + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	zw := gzip.NewWriter(bw)
	tw := tar.NewWriter(zw)
	err = tw.WriteHeader(&tar.Header{Name: "redirectd.toml", Mode: 0o644, Size: int64(len(toml)), ModTime: time.Now(), Typeflag: tar.TypeReg})
	if err == nil {
		_, err = tw.Write([]byte(toml))
	}
	for _, c := range []func() error{tw.Close, zw.Close, bw.Flush, f.Sync} {
		if err == nil {
			err = c()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, file)
	}
	return err
}

// rulesetTOML is the redirectd.toml of set's rules. A no-redirect entry
// (a map's "" value) has no [[rule]] form and is left out, with a comment
// naming it.
func rulesetTOML(set *matcher.Set, hash string) (string, error) {
	var b strings.Builder
	importer.WriteHeader(&b, fmt.Sprintf("The rules redirectd served as version %s, from GET /ruleset.", hash))
	if u := set.URI(); u.Nginx {
		// Of the whole set: the rules' keys and answers depend on it.
		b.WriteString("\n[rules.defaults]\nuri = \"nginx\"\n")
		if u.KeepSlashes {
			b.WriteString("merge_slashes = false\n")
		}
	}
	var err error
	set.Each(func(rh matcher.RuleHits) {
		r := rh.Rule
		switch {
		case err != nil:
		case r.Pass:
			importer.WriteComment(&b, fmt.Sprintf("left out: the no-redirect entry %s %s (%s), which a [[rule]] cannot hold", r.Kind, r.From, r.Source()))
		default:
			if werr := importer.Writable(r); werr != nil {
				err = fmt.Errorf("the rule at %s cannot be written to the archive: %w", r.Source(), werr)
				return
			}
			importer.WriteRule(&b, r.Source(), *r, nil)
		}
	})
	return b.String(), err
}
