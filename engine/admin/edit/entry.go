package edit

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redirectd/redirectd/matcher"
)

// The ops of an Entry.
const (
	OpAdd    = "add"
	OpChange = "change"
	OpDelete = "delete"
	// OpConfig is an edit no one enters: a rollback's mark that the
	// rules of its key are the config's again (the version rolled back
	// to had no edit of them), so that they can say which rollback
	// brought them back (Edit.Restored). It applies nothing.
	OpConfig = "config"
)

// Edit is an Entry as kept: who made it, and when; Version is the
// version that promoted it (0 while in a draft), whose message says why.
// Restored is the version of the last rollback that served it again
// (0: none since its promote, or it served unchanged through the
// rollback): the rule's editor is still Version's, and the rollback's
// author is who brought it back.
type Edit struct {
	Entry
	By       string    `json:"by,omitempty"`
	At       time.Time `json:"at"`
	Version  int       `json:"version,omitempty"`
	Restored int       `json:"restored,omitempty"`
}

// Key returns what an entry edits: the rules with this host and from.
func Key(host, from string) string { return host + "\x00" + from }

// CondKey returns what an entry with conditions edits: the rules of
// host and from whose conditions are conds (as matcher's
// Rule.Conditions writes them); Key for none.
func CondKey(host, from string, conds []string) string {
	k := Key(host, from)
	for _, c := range conds {
		k += "\x00" + c
	}
	return k
}

// Key returns e's Key: with the conditions it gives, the rules of its
// host and from with exactly those (an add makes one beside the rule
// of the same path without them); without, every rule of its host and
// from, whose conditions it keeps.
func (e *Entry) Key() string {
	if len(e.Query) == 0 && len(e.When) == 0 {
		return Key(e.Host, e.From)
	}
	return CondKey(e.Host, e.From, e.Conds())
}

// maxField bounds from, to and host: a rule longer than this is a
// mistake, and the bound keeps a million-entry upload's memory in check.
const maxField = 8192

// Check normalises e (host lower case, status defaulted to 301 for an
// add or change) and says what is wrong with it, or nil; syn is the
// config's word on its host and on what a config can hold.
func (e *Entry) Check(syn Syntax) error {
	e.Host = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(e.Host)), ".")
	switch e.Op {
	case OpAdd, OpChange, OpDelete:
	case "":
		return fmt.Errorf("op is missing: add, change or delete")
	default:
		return fmt.Errorf("op %q is not add, change or delete", cut(e.Op))
	}
	if len(e.From) > maxField || len(e.To) > maxField || len(e.Host) > 255 {
		return fmt.Errorf("host, from or to is too long (from and to at most %d bytes, host 255)", maxField)
	}
	if e.Host != "" {
		h, err := syn.RuleHost(e.Host)
		if err != nil {
			return fmt.Errorf("%w (write example.com or *.example.com, without scheme, port or path)", err)
		}
		e.Host = h
	}
	switch e.Kind {
	case "", "exact", "prefix":
		// A change or delete without a kind names a served rule by its
		// from, a regex's pattern too: resolving it says whether one
		// exists.
		if !strings.HasPrefix(e.From, "/") && !(e.Kind == "" && e.Op != OpAdd && e.From != "") {
			return fmt.Errorf("from %q must begin with /", cut(e.From))
		}
	case "regex":
		if e.From == "" {
			return fmt.Errorf("from is empty")
		}
	default:
		return fmt.Errorf("kind %q is not exact, prefix or regex", cut(e.Kind))
	}
	if strings.ContainsAny(e.From, "\r\n") || strings.ContainsAny(e.To, "\r\n\x00") {
		return fmt.Errorf("from and to may not hold a line break")
	}
	// What an edit makes is served, and written by GET /ruleset for a
	// fleet to load back: a rule the one config writer cannot write as
	// it is (bytes that are not UTF-8) would load as another rule there.
	if err := syn.Writable(&matcher.Rule{From: e.From, To: e.To, Host: e.Host}); err != nil {
		return fmt.Errorf("%w; a rule must be text that a config (and GET /ruleset) can hold: percent-encode such bytes (%%E9)", err)
	}
	// JSON decoding turns bytes that are not UTF-8, and escapes of lone
	// surrogates, into U+FFFD without a word: a rule holding it is
	// almost surely not what its author sent.
	if strings.ContainsRune(e.From+e.To+e.Host, utf8.RuneError) {
		return fmt.Errorf("from, to or host holds U+FFFD, the mark of bytes that were not text (not UTF-8, or a lone surrogate escape in JSON); percent-encode such bytes (%%E9)")
	}
	if e.Op == OpDelete {
		// Its conditions name the rule it deletes; without, it deletes
		// every rule of its host and from.
		if len(e.Headers) > 0 {
			return fmt.Errorf("a delete takes no headers")
		}
		e.To, e.Status = "", 0
		if _, _, _, err := e.parts(); err != nil {
			return err
		}
		return nil
	}
	if e.Status == 0 {
		e.Status = 301
	}
	if !matcher.ValidStatus(e.Status) {
		return fmt.Errorf("status %d is not a redirect status; use 301, 302, 303, 307 or 308, or 410 or 451", e.Status)
	}
	if e.To == "" && matcher.HasLocation(e.Status) {
		return fmt.Errorf("to is empty: a %d needs a target", e.Status)
	}
	return e.checkParts(syn)
}

// MatchKind returns the matcher kind e names, exact by default.
func (e *Entry) MatchKind() matcher.Kind {
	switch e.Kind {
	case "prefix":
		return matcher.Prefix
	case "regex":
		return matcher.Regex
	}
	return matcher.Exact
}

// String writes e for an error message: "add /a (host x) -> 301 /b".
func (e *Entry) String() string {
	s := e.Op + " " + cut(e.From)
	if e.Host != "" {
		s += " (host " + e.Host + ")"
	}
	if e.Op != OpDelete {
		s += fmt.Sprintf(" -> %d %s", e.Status, cut(e.To))
	}
	return s
}
