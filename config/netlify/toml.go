package netlify

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
)

// tomlRedirect is one [[redirects]] table of netlify.toml.
type tomlRedirect struct {
	From       string              `toml:"from"`
	To         string              `toml:"to"`
	Status     int                 `toml:"status"`
	Force      bool                `toml:"force"`
	Query      map[string]string   `toml:"query"`
	Conditions map[string][]string `toml:"conditions"`
	Headers    map[string]string   `toml:"headers"`
	Signed     string              `toml:"signed"`
}

// ParseTOML reads the [[redirects]] tables of a netlify.toml (the rest of
// the file is Netlify's build settings, not read). A table it cannot take
// is noted; an error is a file that is not TOML.
func ParseTOML(file string, data []byte) ([]Redirect, []importer.Note, error) {
	var raw struct {
		Redirects []tomlRedirect `toml:"redirects"`
	}
	if err := config.CheckNesting(file, data); err != nil {
		return nil, nil, err
	}
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	// The decoder reports no line for a table: count the headers.
	var lines []int
	for i, l := range bytes.Split(data, []byte("\n")) {
		if string(bytes.TrimSpace(l)) == "[[redirects]]" {
			lines = append(lines, i+1)
		}
	}
	line := func(i int) int {
		if i < len(lines) {
			return lines[i]
		}
		return 0
	}
	var notes []importer.Note
	for _, k := range md.Undecoded() {
		if len(k) > 1 && k[0] == "redirects" {
			notes = append(notes, importer.Note{File: file, Line: keyLine(data, lines, k[len(k)-1]), Kind: importer.LeftOut,
				Msg: fmt.Sprintf("[[redirects]] key %q is not one Netlify documents; ignored", k.String())})
		}
	}
	var out []Redirect
	for i, t := range raw.Redirects {
		r := Redirect{Line: line(i), To: t.To, Status: t.Status, Force: t.Force}
		words := []string{t.From}
		for _, name := range sortedKeys(t.Query) {
			r.Query = append(r.Query, Param{name, t.Query[name]})
			words = append(words, name+"="+t.Query[name])
		}
		words = append(words, t.To)
		if t.Status != 0 {
			s := fmt.Sprint(t.Status)
			if t.Force {
				s += "!"
			}
			words = append(words, s)
		}
		for _, name := range sortedKeys(t.Conditions) {
			c := name + "=" + strings.Join(t.Conditions[name], ",")
			r.Conditions = append(r.Conditions, c)
			words = append(words, c)
		}
		r.Text = strings.Join(words, " ")
		note := func(format string, args ...any) {
			notes = append(notes, importer.Note{File: file, Line: r.Line, Kind: importer.LeftOut, Msg: r.Text + ": " + fmt.Sprintf(format, args...)})
		}
		switch err := r.setFrom(t.From); {
		case err != nil:
			note("%v; left out", err)
			continue
		case t.To == "":
			note("no to; left out")
			continue
		case (len(t.Headers) > 0 || t.Signed != "") && t.Status != 200:
			notes = append(notes, importer.Note{File: file, Line: r.Line, Kind: importer.Caveat,
				Msg: r.Text + ": headers and signed apply to proxies (status 200) only; ignored"})
		}
		out = append(out, r)
	}
	return out, notes, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Load reads a _redirects file, or a netlify.toml (by its .toml name),
// and translates it: the candidates for importer.Order and the notes on
// what is not translated. An error is a netlify.toml that is not TOML.
func Load(file string, data []byte, opt importer.Options) ([]importer.Candidate, []importer.Note, error) {
	var rules []Redirect
	var notes []importer.Note
	if filepath.Ext(file) == ".toml" {
		var err error
		if rules, notes, err = ParseTOML(file, data); err != nil {
			return nil, nil, err
		}
	} else {
		rules, notes = Parse(file, data)
	}
	cands, more := Translate(file, rules, opt)
	return cands, append(notes, more...), nil
}

// keyLine returns the first line, after the first [[redirects]] header,
// that sets key (the decoder reports no lines), or 0.
func keyLine(data []byte, headers []int, key string) int {
	if len(headers) == 0 {
		return 0
	}
	for i, l := range bytes.Split(data, []byte("\n"))[headers[0]:] {
		name, _, ok := bytes.Cut(bytes.TrimSpace(l), []byte("="))
		if ok && strings.Trim(string(bytes.TrimSpace(name)), `"'`) == key {
			return headers[0] + i + 1
		}
	}
	return 0
}
