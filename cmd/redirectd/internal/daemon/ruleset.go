package daemon

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

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
// reading the old one).
func writeRuleset(file string, set *matcher.Set, hash string) error {
	var toml bytes.Buffer
	fmt.Fprintf(&toml, "# The rules redirectd served as version %s, from GET /ruleset.\n", hash)
	if u := set.URI(); u.Nginx {
		// Of the whole set: the rules' keys and answers depend on it.
		toml.WriteString("\n[rules.defaults]\nuri = \"nginx\"\n")
		if u.KeepSlashes {
			toml.WriteString("merge_slashes = false\n")
		}
	}
	set.Each(func(rh matcher.RuleHits) { writeTOMLRule(&toml, rh.Rule) })
	tmp := file + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	zw := gzip.NewWriter(bw)
	tw := tar.NewWriter(zw)
	err = tw.WriteHeader(&tar.Header{Name: "redirectd.toml", Mode: 0o644, Size: int64(toml.Len()), ModTime: time.Now(), Typeflag: tar.TypeReg})
	if err == nil {
		_, err = tw.Write(toml.Bytes())
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

// writeTOMLRule writes r as a [[rule]] table. What a [[rule]] cannot
// say as this writes it (when conditions, a time window, shadow mode, a
// no-redirect entry, rule headers) is left out, with a comment saying
// which rule.
func writeTOMLRule(b *bytes.Buffer, r *matcher.Rule) {
	if r.Pass || !r.When.Empty() || !r.Active.From.IsZero() || !r.Active.Until.IsZero() || r.Shadow || len(r.Headers) > 0 {
		fmt.Fprintf(b, "\n# left out: %s %s (%s) has conditions, a window, shadow mode, headers or no redirect, which this archive does not carry\n", r.Kind, q(r.From), r.Source())
		return
	}
	fmt.Fprintf(b, "\n[[rule]]\nmatch = %s\nfrom = %s\nto = %s\nstatus = %d\n", q(r.Kind.String()), q(r.From), q(r.To), r.Status)
	if r.Host != "" {
		fmt.Fprintf(b, "host = %s\n", q(r.Host))
	}
	switch {
	case r.UnicodeFold:
		b.WriteString("case_insensitive = \"unicode\"\n")
	case r.CaseInsensitive:
		b.WriteString("case_insensitive = true\n")
	}
	if r.TrailingSlash {
		b.WriteString("trailing_slash = \"ignore\"\n")
	}
	if r.QueryString != matcher.QueryKeep {
		fmt.Fprintf(b, "query_string = %s\n", q([]string{"keep", "drop", "replace"}[r.QueryString]))
	}
	if r.DecodedPath {
		b.WriteString("path = \"decoded\"\n")
	}
	if r.RequestURI {
		b.WriteString("request_uri = true\n")
	}
	if len(r.Query) > 0 {
		b.WriteString("query = {")
		for i, c := range r.Query {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%s = %s", q(c.Name), q(c.Value))
		}
		b.WriteString("}\n")
	}
}

// q quotes s as a TOML basic string: JSON's escapes are TOML's.
func q(s string) string {
	j, _ := json.Marshal(s)
	return string(j)
}
