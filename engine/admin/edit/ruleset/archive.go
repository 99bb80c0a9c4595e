package ruleset

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"time"

	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/matcher"
)

// Write returns set's rules as redirectd.toml in a .tar.gz, with
// origins (JSON, none when nil) as origins.json beside it, and keeps a
// copy at file. The rules are written by the one writer of
// configs (w, the daemon's importer.WriteRule, the inverse of config.Load, fuzzed by
// FuzzWriteRule and FuzzRuleset), so a node that loads the archive serves
// the same rules, conditions, windows, headers and shadow mode included.
// A rule that TOML cannot hold (bytes that are not UTF-8, from a map
// file) fails the archive with its place and why: an archive that loads
// as other rules would be served to the whole fleet.
func Write(file string, set *matcher.Set, hash string, origins []byte, w TOML) ([]byte, error) {
	toml, err := RulesTOML(set, hash, w)
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
		err = tw.WriteHeader(&tar.Header{Name: OriginsFile, Mode: 0o644, Size: int64(len(origins)), ModTime: time.Now(), Typeflag: tar.TypeReg})
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
	edits.WriteFile(file, buf.Bytes())
	return buf.Bytes(), nil
}

// RulesTOML is the redirectd.toml of set's rules. A no-redirect entry
// (a map's "" value) has no [[rule]] form and is left out, with a comment
// naming it.
func RulesTOML(set *matcher.Set, hash string, w TOML) (string, error) {
	var b strings.Builder
	w.WriteHeader(&b, fmt.Sprintf("The rules redirectd served as version %s, from GET /ruleset.", hash))
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
			w.WriteComment(&b, fmt.Sprintf("left out: the no-redirect entry %s %s (%s), which a [[rule]] cannot hold", r.Kind, r.From, r.Source()))
		default:
			if werr := w.Writable(r); werr != nil {
				err = fmt.Errorf("the rule at %s cannot be written to the archive: %w", r.Source(), werr)
				return
			}
			w.WriteRule(&b, r.Source(), *r)
		}
	})
	return b.String(), err
}
