package matcher

import (
	"math"

	"github.com/redirectd/redirectd/internal/ascii"
)

// Exact rules compared loosely (case-insensitive, ignoring a trailing
// slash, on the decoded path) live in packed tables too, one per form and
// host, keyed by their From in that form (folded, trimmed, decoded). As
// *rules in a Go map they cost 672 bytes each against a plain rule's 134
// (BenchmarkFoldMapMemory): a 17,572-entry case-insensitive map held 9 MB
// more than the same map case-sensitive. Each table also keeps the Froms
// as written, 4 bytes and the From's bytes a rule, for Rule.

// Forms of comparison, as bits; 0 is the plain normalised path.
const (
	formFold    uint8 = 1 << iota // ASCII case ignored
	formSlash                     // a trailing slash ignored
	formDecoded                   // the decoded path (decode.go)
	formUnicode                   // with formFold: every letter's case ignored
	numForms    = 16
)

// ruleForm returns in's form.
func ruleForm(in *Rule) uint8 {
	var f uint8
	if in.CaseInsensitive {
		f |= formFold
	}
	if in.TrailingSlash {
		f |= formSlash
	}
	if in.DecodedPath {
		f |= formDecoded
		if in.UnicodeFold {
			f |= formUnicode
		}
	}
	return f
}

// formKey returns a configured From in form f: the key its table files
// it under, as hostRules.add files a rule of that form.
func formKey(from string, f uint8, u URI) string {
	if u.Nginx {
		key, _ := nginxKey(from, u)
		return string(appendFormKey(nil, []byte(key), f))
	}
	if f&formDecoded != 0 {
		return string(appendFormKey(nil, decodePath(nil, []byte(from)), f))
	}
	return string(appendFormKey(nil, []byte(normalizeString(from)), f))
}

// appendFormKey appends p (the normalised path, or the decoded one for a
// decoded form) in form f.
func appendFormKey(dst, p []byte, f uint8) []byte {
	switch {
	case f&formUnicode != 0:
		dst = appendFoldUnicode(dst, p)
	case f&formFold != 0:
		dst = ascii.AppendLower(dst, p)
	default:
		dst = append(dst, p...)
	}
	if f&formSlash != 0 {
		dst = trimSlash(dst)
	}
	return dst
}

// packableForm reports whether in can live in the packed table of its
// form, and which that is: as packable, for a loose form. Bytes that the
// plain table refuses are fine in a key that is canonical; '?' and '#'
// are not, in a normalised From (the ordinary path reports them).
func packableForm(in *Rule) (uint8, bool) {
	f := ruleForm(in)
	if f == 0 || in.UnicodeFold && f&formDecoded == 0 || in.Kind != Exact {
		return f, f == 0 && packable(in)
	}
	if f&formDecoded == 0 && (len(in.From) == 0 || in.From[0] != '/' || containsQueryOrFragment(in.From)) {
		return f, false
	}
	plain := *in
	plain.From, plain.CaseInsensitive, plain.TrailingSlash, plain.DecodedPath, plain.UnicodeFold = "/", false, false, false, false
	return f, packable(&plain) && len(in.From) > 0 && in.From[0] == '/'
}

func containsQueryOrFragment(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '?' || s[i] == '#' {
			return true
		}
	}
	return false
}

// looseTable returns the table of h that holds the unpacked rules of
// form f (not 0).
func (h *hostRules) looseTable(f uint8) *exactTable {
	if f&formDecoded != 0 {
		return &h.decoded[decodedIndex(f)]
	}
	switch f {
	case formFold:
		return &h.fold
	case formSlash:
		return &h.slash
	}
	return &h.foldSlash
}

// decodedIndex is the index into hostRules.decoded of decoded form f.
func decodedIndex(f uint8) int {
	i := 0
	switch {
	case f&formUnicode != 0:
		i = 4
	case f&formFold != 0:
		i = 2
	}
	if f&formSlash != 0 {
		i++
	}
	return i
}

// decodedIndexForm is decodedIndex's inverse.
func decodedIndexForm(i int) uint8 {
	f := formDecoded
	switch i / 2 {
	case 1:
		f |= formFold
	case 2:
		f |= formFold | formUnicode
	}
	if i%2 == 1 {
		f |= formSlash
	}
	return f
}

// findForm looks key up in h's packed table of form f, recording a hit.
func (h *hostRules) findForm(f uint8, key []byte, m *Match) bool {
	t := h.formPacked[f]
	if t == nil {
		return false
	}
	i, ok := t.find(key)
	if ok {
		m.pk, m.pi = t, i
	}
	return ok
}

// dupInForm reports an unconditioned rule of key that h's packed table
// of form f already holds.
func (h *hostRules) dupInForm(f uint8, key string, r *rule) error {
	t := h.formPacked[f]
	if t == nil || r.conditional() {
		return nil
	}
	if i, ok := t.find([]byte(key)); ok {
		return fieldErr("from", "duplicate exact rule for %q (first defined at %s)", r.From, t.appendSource(nil, i))
	}
	return nil
}

// addPackedForm adds in, of loose form f, to its host's packed table of
// that form; false without an error: the ordinary path takes it.
func (b *Builder) addPackedForm(in *Rule, f uint8, h *hostRules, host string) (bool, error) {
	key := formKey(in.From, f, h.uriMode)
	if len(key) == 0 || len(key) > math.MaxUint16 {
		return false, nil
	}
	if r := unconditioned(h.looseTable(f), key); r != nil {
		return false, fieldErr("from", "duplicate exact rule for %q (first defined at %s)", in.From, r.Source())
	}
	t := h.formPacked[f]
	if t == nil {
		t = newPackedTable(host)
		t.form = f
		h.formPacked[f] = t
		h.formN++
		b.s.packed = append(b.s.packed, t)
	}
	if int64(len(t.orig))+int64(len(in.From)) > math.MaxUint32 {
		return false, t.full("their paths as written would pass 4 GiB")
	}
	keyed := *in
	keyed.From = key
	ok, err := t.add(&keyed, b.limits)
	if err != nil || !ok {
		return false, err
	}
	t.orig = append(t.orig, in.From...)
	t.origEnd = append(t.origEnd, uint32(len(t.orig)))
	if f&formDecoded != 0 {
		h.decodedN++
	}
	b.s.packedN++
	b.extend(t, len(t.ents)-1)
	return true, nil
}
