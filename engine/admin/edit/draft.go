package edit

import (
	"io"
	"time"
)

// Draft is one draft as the drafts list shows it.
type Draft struct {
	ID      string    `json:"id"`
	Base    int       `json:"base"`
	Author  string    `json:"author"`
	Created time.Time `json:"created"`
	Entries int       `json:"entries"`
}

// Entry is one edit of a draft: {"op":"add","host":"","from":"/a",
// "to":"/b","status":301}; kind ("exact", "prefix", "regex") is
// optional, and so are the rule's conditions and header fields, written
// as a [[rule]] of the config writes them: query
// ({"id":"5"}), when ({"scheme":"https","header":{"X-Beta":"1"}}) and
// headers ({"Cache-Control":"no-store"}). An entry with conditions
// edits the rule of its host and from with exactly those (an add makes
// one beside the rule without them); one without edits every rule of
// its host and from and keeps their conditions. Headers given replace
// the rule's; none keep them.
type Entry struct {
	Op     string `json:"op"`
	Host   string `json:"host"`
	From   string `json:"from"`
	To     string `json:"to,omitempty"`
	Status int    `json:"status,omitempty"`
	Kind   string `json:"kind,omitempty"`
	// Query is the rule's query conditions, as [[rule]] query.
	Query map[string]string `json:"query,omitempty"`
	// When is the rule's when table as the config's TOML decodes it
	// (strings, lists of strings, tables of strings, numbers), read by
	// the matcher's own parser of each condition.
	When map[string]any `json:"when,omitempty"`
	// Headers are the fields added to the rule's answers, as [[rule]]
	// headers.
	Headers map[string]string `json:"headers,omitempty"`
}

// Conditioned reports whether e gives the rule's conditions or headers.
func (e *Entry) Conditioned() bool {
	return len(e.Query) > 0 || len(e.When) > 0 || len(e.Headers) > 0
}

// Rule is a rule as the editing path shows it: in a draft's change
// and in a diff of two versions, whose rules also say where they are
// written (Source, "file:line" in their version) and a diff's their
// query conditions (Query, "a=1&b=2") and pass.
type Rule struct {
	Kind   string `json:"kind"`
	Host   string `json:"host"`
	From   string `json:"from"`
	Query  string `json:"query,omitempty"`
	To     string `json:"to"`
	Status int    `json:"status"`
	Pass   bool   `json:"pass,omitempty"`
	// Conditions are the rule's conditions besides its host, as
	// matcher's Rule.Conditions writes them (`scheme = https`); an edit
	// keeps those of the rule it changes.
	Conditions []string `json:"conditions,omitempty"`
	// Headers are the fields the rule adds to its answers, "Name:
	// value", by name.
	Headers []string `json:"headers,omitempty"`
	Source  string   `json:"source,omitempty"`
	// Entry, in a draft's view, is the entry that makes the rule (an
	// add's, a change's), whose conditions and headers an Edit link
	// fills in as they were given; nil elsewhere.
	Entry *Entry `json:"-"`
}

// Changes are what a change does to rules shown as R: a draft's and a
// diff of two versions' (R is Rule), check -baseline's. The one shape
// of a set of changes.
type Changes[R any] struct {
	Added   []R         `json:"added"`
	Removed []R         `json:"removed"`
	Changed []Change[R] `json:"changed"`
}

// NoChanges returns Changes with empty lists (written "[]" in JSON,
// never null), to be filled.
func NoChanges[R any]() Changes[R] {
	return Changes[R]{Added: []R{}, Removed: []R{}, Changed: []Change[R]{}}
}

// Change is a rule in both sides of a change that answers differently:
// as it was, and as it is.
type Change[R any] struct {
	Old R `json:"old"`
	New R `json:"new"`
}

// Sample is a URL whose answer a draft changes: "301 /x" before, "301
// /y" after ("404" for none, "forwarded" when an upstream takes it).
type Sample struct {
	URL string `json:"url"`
	Old string `json:"old"`
	New string `json:"new"`
}

// Problem is something wrong a draft would make: a "loop" (a redirect
// that comes back to where it started), a "chain" (a redirect to a URL
// that redirects again) or a "shadowed" rule (one another rule answers
// before it).
type Problem struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// DraftView is a draft's change as `check -baseline` shows one: the
// lists hold the page asked for (limit, offset), the counts are whole.
type DraftView struct {
	ID   string `json:"id"`
	Base int    `json:"base"`
	Changes[Rule]
	Samples  []Sample  `json:"samples"`
	Problems []Problem `json:"problems"`
	Counts   Counts    `json:"counts"`
}

// Ruleset is the serving version as a rule-set archive: the .tar.gz's
// bytes and its ETag, made from one snapshot of the rules and never
// changed after (a new version is a new Ruleset), so the two always
// agree.
type Ruleset struct {
	Data []byte
	ETag string
	Time time.Time
}

// Editor is a Backend whose rules can be edited through drafts. Its
// methods are called concurrently, never on a traffic loop. in is the
// caller's Scope, which the Service gives: entries of other hosts are
// left out of what is shown, and an edit of one is ErrOutOfScope.
type Editor interface {
	NewDraft(author string) (Draft, error)
	Drafts(in Scope) []Draft
	Draft(id string, in Scope, limit, offset int) (*DraftView, error)
	AddEntry(id, author string, e Entry, in Scope) error
	// Upload adds the entries of body (CSV or JSON lines, by
	// contentType), all or none, and returns how many.
	Upload(id, author, contentType string, body io.Reader, in Scope) (int, error)
	DiscardDraft(id string, in Scope) error
	// Promote makes the draft a new version that serves, and returns
	// its number.
	Promote(id string, a Audit, in Scope) (int, error)
	Ruleset() (Ruleset, error)
}
