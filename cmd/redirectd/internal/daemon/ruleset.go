package daemon

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/source"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/matcher"
)

// rulesSnap is the rules serving and their version's hash, stored
// together at each swap: an archive made from one is labelled with its
// own version, whatever swaps meanwhile.
type rulesSnap struct {
	hash string
	set  *matcher.Set
	// ov and number are the edits laid over the config's rules in set
	// and their version's number, on an edited node (ov nil elsewhere),
	// whose /ruleset carries who made each edited rule.
	ov       *edits.Overlay
	number   int
	messages map[int]string
	// origins, on a node fed by an edited node's /ruleset, say who
	// made set's edited rules (nil: the archive did not say).
	origins *ruleOrigins
}

// Ruleset returns the serving rules as a rule-set archive in the form
// [rules] source reads (a .tar.gz holding redirectd.toml), made on the
// first call after the version changes, with the version's hash as its
// ETag: an edited node can be a fleet's source. The archive and its ETag
// come from one snapshot of the rules and are returned as one immutable
// value, so a fetch never gets one version's archive under another's
// ETag; the file in edits_dir is a copy for the operator.
func (s *service) Ruleset() (edit.Ruleset, error) {
	st := s.ed.Store()
	if st == nil {
		return edit.Ruleset{}, fmt.Errorf("%w: set [admin] edits_dir", edit.ErrNoRuleset)
	}
	snap := s.snap.Load()
	if snap == nil {
		return edit.Ruleset{}, fmt.Errorf("%w: no rules loaded yet", edit.ErrNoRuleset)
	}
	// Made under its own lock, not the service's: a promote holds that
	// for as long as its load.
	s.rulesetMu.Lock()
	defer s.rulesetMu.Unlock()
	var err error
	if cur := s.ruleset.Load(); cur != nil && cur.ETag == strconv.Quote(snap.hash) {
		return *cur, nil
	}
	file := filepath.Join(st.Dir(), "ruleset.tar.gz")
	var origins []byte
	if snap.ov != nil {
		if origins, err = json.Marshal(originsOf(snap.number, snap.ov, snap.messages)); err != nil {
			return edit.Ruleset{}, err
		}
	}
	data, err := writeRuleset(file, snap.set, snap.hash, origins)
	if err != nil {
		return edit.Ruleset{}, fmt.Errorf("cannot write the rule-set archive: %w", err)
	}
	rs := &edit.Ruleset{Data: data, ETag: strconv.Quote(snap.hash), Time: time.Now()}
	s.ruleset.Store(rs)
	return *rs, nil
}

// writeRuleset returns set's rules as redirectd.toml in a .tar.gz, with
// origins (JSON, none when nil) as origins.json beside it, and keeps a
// copy at file. The rules are written by the one writer of
// configs (importer.WriteRule, the inverse of config.Load, fuzzed by
// FuzzWriteRule and FuzzRuleset), so a node that loads the archive serves
// the same rules, conditions, windows, headers and shadow mode included.
// A rule that TOML cannot hold (bytes that are not UTF-8, from a map
// file) fails the archive with its place and why: an archive that loads
// as other rules would be served to the whole fleet.
func writeRuleset(file string, set *matcher.Set, hash string, origins []byte) ([]byte, error) {
	toml, err := rulesetTOML(set, hash)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	err = tw.WriteHeader(&tar.Header{Name: "redirectd.toml", Mode: 0o644, Size: int64(len(toml)), ModTime: time.Now(), Typeflag: tar.TypeReg})
	if err == nil {
		_, err = tw.Write([]byte(toml))
	}
	if err == nil && origins != nil {
		err = tw.WriteHeader(&tar.Header{Name: originsFile, Mode: 0o644, Size: int64(len(origins)), ModTime: time.Now(), Typeflag: tar.TypeReg})
		if err == nil {
			_, err = tw.Write(origins)
		}
	}
	for _, c := range []func() error{tw.Close, zw.Close} {
		if err == nil {
			err = c()
		}
	}
	if err != nil {
		return nil, err
	}
	// The copy on disk is for the operator; the fetches are served
	// from memory, so a failure to write it is not the fetch's.
	source.WriteAtomic(file, buf.Bytes())
	return buf.Bytes(), nil
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
