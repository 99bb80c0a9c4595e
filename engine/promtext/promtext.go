// Package promtext writes VictoriaMetrics/metrics sets and the process
// metrics in the Prometheus text format with a TYPE line and a one-line
// HELP text for every family, so that /metrics passes `promtool check
// metrics`.
//
// The library writes TYPE lines only when its global ExposeMetadata is on,
// and then an empty "# HELP name" (v1.45.0, metrics.go writeMetadata):
// promtool rejects that as "no help text". WriteSet turns the metadata on
// and fills each HELP line from a Help table kept next to where the
// family is registered; Missing lets a test name the families a table
// lacks.
//
// This runs on the admin goroutine that answers a scrape, never on an
// event loop; it allocates per scrape, as the library does.
package promtext

import (
	"bytes"
	"io"
	"slices"
	"strings"

	"github.com/VictoriaMetrics/metrics"
)

// Help maps a metric family (the name without labels, and without the
// _bucket, _sum and _count of a histogram) to its one-line HELP text.
type Help map[string]string

// WriteSet writes set to w, each family with its TYPE line and its HELP
// text from help. A family help lacks keeps an empty HELP line, which
// promtool rejects; Missing is the test that prevents it.
func WriteSet(w io.Writer, set *metrics.Set, help Help) {
	// The switch is the library's, global: every writer in this program
	// wants the metadata, and setting it is one atomic store.
	metrics.ExposeMetadata(true)
	fw := &filter{w: w, help: help}
	set.WritePrometheus(fw)
	fw.flush()
}

// Missing returns the families registered in set that help has no text
// for, sorted. Families a RegisterMetricsWriter callback writes are not
// registered, so not listed: a test of the whole /metrics output covers
// them.
func Missing(set *metrics.Set, help Help) []string {
	var out []string
	for _, name := range set.ListMetricNames() {
		fam, _, _ := strings.Cut(name, "{")
		if strings.TrimSpace(help[fam]) == "" && !slices.Contains(out, fam) {
			out = append(out, fam)
		}
	}
	slices.Sort(out)
	return out
}

// filter copies the exposition text to w, writing HELP text from help,
// TYPE lines changed by retype, and leaving out the families in drop.
// It keeps a partial last line until the next Write: the library writes
// whole lines, but nothing promises it.
type filter struct {
	w      io.Writer
	help   Help
	retype map[string]string // family -> type, where the library's is wrong
	drop   map[string]bool   // families left out
	// dropping is true while the lines of a dropped family go by: from its
	// HELP line to the next family's.
	dropping bool
	partial  []byte
	out      bytes.Buffer
}

func (f *filter) Write(p []byte) (int, error) {
	n := len(p)
	if len(f.partial) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			f.partial = append(f.partial, p...)
			return n, nil
		}
		f.partial = append(f.partial, p[:i+1]...)
		f.line(f.partial)
		f.partial = f.partial[:0]
		p = p[i+1:]
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			f.partial = append(f.partial, p...)
			break
		}
		f.line(p[:i+1])
		p = p[i+1:]
	}
	_, err := f.w.Write(f.out.Bytes())
	f.out.Reset()
	return n, err
}

// flush writes a last line that had no newline.
func (f *filter) flush() {
	if len(f.partial) > 0 {
		f.line(f.partial)
		f.partial = f.partial[:0]
		f.w.Write(f.out.Bytes())
		f.out.Reset()
	}
}

// line handles one line, its newline included.
func (f *filter) line(l []byte) {
	if fam, ok := bytes.CutPrefix(l, []byte("# HELP ")); ok {
		name := string(bytes.TrimSpace(fam))
		if i := strings.IndexByte(name, ' '); i >= 0 {
			name = name[:i] // a HELP line that has its text already
		}
		f.dropping = f.drop[name]
		if f.dropping {
			return
		}
		if text := f.help[name]; text != "" {
			f.out.WriteString("# HELP " + name + " " + escapeHelp(text) + "\n")
			return
		}
		f.out.Write(l)
		return
	}
	if f.dropping {
		return
	}
	if rest, ok := bytes.CutPrefix(l, []byte("# TYPE ")); ok {
		name, _, _ := strings.Cut(string(rest), " ")
		if t := f.retype[name]; t != "" {
			f.out.WriteString("# TYPE " + name + " " + t + "\n")
			return
		}
	}
	f.out.Write(l)
}

// escapeHelp escapes a HELP text as the text format requires: a backslash
// as \\ and a line feed as \n.
func escapeHelp(s string) string { return helpEscaper.Replace(s) }

var helpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
