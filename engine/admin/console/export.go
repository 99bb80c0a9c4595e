package console

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
)

// exportTimeout replaces the server's write timeout for an export: a
// million rules are tens of megabytes.
const exportTimeout = 15 * time.Minute

// exportCSV writes the serving rules the user may see as the CSV an
// upload (and a [[csv]] table) reads: source,target,status, the source
// host/path or a path. A CSV row is an exact rule of one host without
// conditions, so the other rules (prefix and regex rules, rules with
// conditions, header fields or a *.domain host, shadow rules, a path
// holding '?' or '#', which a source may not) are written as "#"
// comment lines, which the upload skips, naming each and why: the TOML
// export holds them.
func (c *Console) exportCSV(w http.ResponseWriter, r *http.Request, u *user) {
	x := c.rules.get(c.now())
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(exportTimeout))
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="redirectd-rules.csv"`)
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := csv.NewWriter(bw)
	cw.Write([]string{"source", "target", "status"})
	for _, sp := range x.spans(u.who, "") {
		for i := range x.rules[sp.lo:sp.hi] {
			rl := &x.rules[sp.lo+i]
			if why := notCSV(rl); why != "" {
				cw.Flush()
				fmt.Fprintf(bw, "# left out (%s): %s\n", why, strconv.Quote(rl.Host+" "+rl.Kind+" "+rl.From+" -> "+rl.To+" "+strconv.Itoa(rl.Status)))
				continue
			}
			cw.Write([]string{rl.Host + rl.From, rl.To, strconv.Itoa(rl.Status)})
		}
	}
	cw.Flush()
	bw.Flush()
}

// notCSV says why rl cannot be a CSV row, "" when it can.
func notCSV(rl *admin.RuleInfo) string {
	switch {
	case rl.Kind != "exact":
		return rl.Kind + " rule"
	case len(rl.Conditions) > 0:
		return "conditions " + strings.Join(rl.Conditions, ", ")
	case strings.ContainsAny(rl.From, "?#"):
		// A path = "decoded" or request_uri rule: a CSV source holding
		// them is refused, as it would be read back otherwise.
		return "a path holding '?' or '#'"
	case len(rl.Headers) > 0:
		return "headers " + headerText(rl.Headers)
	case strings.HasPrefix(rl.Host, "*."):
		return "a *.domain host"
	case rl.Mode != "":
		return rl.Mode + " rule"
	case rl.Host != "" && strings.ContainsAny(rl.Host, "/:"):
		return "a host a source cannot hold"
	}
	return ""
}

// exportTOML sends the serving rules as a config (redirectd.toml), from
// the rule-set archive an edited node serves to its fleet (GET
// /ruleset): written by the one writer of configs, so it loads as the
// same rules, conditions, windows and headers included. It holds every
// host's rules, so a token limited to some hosts gets the CSV only.
func (c *Console) exportTOML(w http.ResponseWriter, r *http.Request, u *user) {
	rs, err := c.ed.Ruleset(u.who)
	if err != nil {
		status := edit.Status(err)
		switch {
		case errors.Is(err, edit.ErrNoRuleset):
			err = errors.New("this server's rules are its config file, not edited here: the TOML export needs [admin] edits_dir")
		case errors.Is(err, edit.ErrForbidden):
			err = fmt.Errorf("%w; export the CSV, which holds your hosts' rules", err)
		}
		c.fail(w, r, u, status, err.Error())
		return
	}
	tr, err := configOf(bytes.NewReader(rs.Data))
	if err != nil {
		c.fail(w, r, u, http.StatusServiceUnavailable, "cannot read the rule-set archive: "+err.Error()+"; try again")
		return
	}
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(exportTimeout))
	h := w.Header()
	h.Set("Content-Type", "application/toml; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="redirectd.toml"`)
	io.Copy(w, tr)
}

// configOf returns the reader of redirectd.toml in the .tar.gz r.
func configOf(r io.Reader) (io.Reader, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		hd, err := tr.Next()
		if err != nil {
			return nil, fmt.Errorf("no redirectd.toml in it: %w", err)
		}
		if hd.Name == "redirectd.toml" {
			return tr, nil
		}
	}
}
