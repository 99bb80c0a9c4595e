package edit

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/redirectd/redirectd/internal/shorten"
)

// Op is an operation of the Service; ops says who may do each.
type Op uint8

// The operations, each a method of Service.
const (
	ListDrafts Op = iota
	ShowDraft
	NewDraft
	AddEntry
	Upload
	DiscardDraft
	Promote
	ListVersions
	Diff
	Rollback
	Unpin
	Export
	nOps
)

// needs is what an operation needs: a role, and for one whose effect or
// answer covers every host's rules, a token that covers every host.
type needs struct {
	what      string
	min       Role
	everyHost bool
}

// ops is the one table of who may do what: the JSON endpoints and the
// console both ask Service.May, and every method of Service asks it
// again itself, so no client can skip it.
var ops = [nOps]needs{
	ListDrafts:   {"listing drafts", RoleViewer, false},
	ShowDraft:    {"seeing a draft", RoleViewer, false},
	NewDraft:     {"making a draft", RoleEditor, false},
	AddEntry:     {"editing a draft", RoleEditor, false},
	Upload:       {"uploading to a draft", RoleEditor, false},
	DiscardDraft: {"discarding a draft", RoleEditor, false},
	Promote:      {"promoting a draft", RolePublisher, false},
	ListVersions: {"listing versions", RoleViewer, false},
	Diff:         {"comparing versions", RoleViewer, false},
	Rollback:     {"rolling back", RolePublisher, true},
	Unpin:        {"unpinning", RoleAdmin, true},
	Export:       {"exporting every host's rules", RoleViewer, true},
}

// Service is the editing path as its clients see it: every method takes
// the caller's Identity, refuses what its role or hosts do not allow
// (ErrForbidden), keeps to its hosts what it shows (host scope below),
// and returns errors that Status answers. It holds no state of its own:
// the Editor and Versioner store and load.
//
// Host scope: a rule is in a token's scope when its host is one of the
// token's (Identity.Allows), and a change of a rule (an edit, or a rule
// two versions answer differently) only when both its old and its new
// rule's hosts are: a change that moves a rule from another host into
// the token's would otherwise show, and count, that host's rule.
type Service struct {
	ed  Editor    // nil: the rules are not edited through drafts
	ver Versioner // nil: no versions kept
}

// NewService returns the Service of backend, which may be an Editor, a
// Versioner, both or neither (then every operation is ErrNotEdited or
// ErrNoVersions).
func NewService(backend any) *Service {
	s := &Service{}
	s.ed, _ = backend.(Editor)
	s.ver, _ = backend.(Versioner)
	return s
}

// Edits reports whether the rules are edited through drafts.
func (s *Service) Edits() bool { return s.ed != nil }

// KeepsVersions reports whether versions are kept.
func (s *Service) KeepsVersions() bool { return s.ver != nil }

// May returns nil when who may do op, else ErrForbidden saying why.
func (s *Service) May(who Identity, op Op) error {
	r := ops[op]
	if who.Role < r.min {
		return fmt.Errorf("%w: token %q is %s; %s needs %s or more", ErrForbidden, who.Name, who.Role.Article(), r.what, r.min)
	}
	if r.everyHost && who.Scoped() {
		return fmt.Errorf("%w: token %q is limited to hosts %v; %s covers every host", ErrForbidden, who.Name, who.Hosts, r.what)
	}
	return nil
}

func (s *Service) editor(who Identity, op Op) (Editor, error) {
	return allowed(s, who, op, s.ed, ErrNotEdited)
}

func (s *Service) versioner(who Identity, op Op) (Versioner, error) {
	return allowed(s, who, op, s.ver, ErrNoVersions)
}

// allowed returns b when who may do op and b is there (else missing).
func allowed[B comparable](s *Service, who Identity, op Op, b B, missing error) (B, error) {
	var none B
	if err := s.May(who, op); err != nil {
		return none, err
	}
	if b == none {
		return none, missing
	}
	return b, nil
}

// Drafts lists the drafts who may see, never nil.
func (s *Service) Drafts(who Identity) ([]Draft, error) {
	e, err := s.editor(who, ListDrafts)
	if err != nil {
		return nil, err
	}
	list := e.Drafts(who.Allows)
	if list == nil {
		list = []Draft{}
	}
	return list, nil
}

// NewDraft makes an empty draft, its author who.
func (s *Service) NewDraft(who Identity) (Draft, error) {
	e, err := s.editor(who, NewDraft)
	if err != nil {
		return Draft{}, err
	}
	return e.NewDraft(who.Name)
}

// Draft shows draft id's change: of its lists, limit rules from offset.
func (s *Service) Draft(who Identity, id string, limit, offset int) (*DraftView, error) {
	e, err := s.editor(who, ShowDraft)
	if err != nil {
		return nil, err
	}
	if limit < 0 || offset < 0 {
		return nil, fmt.Errorf("%w: limit and offset are 0 or more", ErrBadRequest)
	}
	return e.Draft(id, who.Allows, limit, offset)
}

// AddEntry adds en to draft id.
func (s *Service) AddEntry(who Identity, id string, en Entry) error {
	e, err := s.editor(who, AddEntry)
	if err != nil {
		return err
	}
	if err := s.inScope(who, en); err != nil {
		return err
	}
	return e.AddEntry(id, who.Name, en, who.Allows)
}

// AddToNewDraft makes a draft of entries, all in who's scope (checked
// before the draft is made, so a refused one leaves none behind).
func (s *Service) AddToNewDraft(who Identity, entries []Entry) (Draft, error) {
	e, err := s.editor(who, AddEntry)
	if err != nil {
		return Draft{}, err
	}
	for _, en := range entries {
		if err := s.inScope(who, en); err != nil {
			return Draft{}, err
		}
	}
	d, err := s.NewDraft(who)
	if err != nil {
		return Draft{}, err
	}
	for _, en := range entries {
		if err := e.AddEntry(d.ID, who.Name, en, who.Allows); err != nil {
			return d, fmt.Errorf("draft %s is made, but %s was not added: %w", d.ID, cut(en.Host+en.From), err)
		}
	}
	return d, nil
}

func (s *Service) inScope(who Identity, en Entry) error {
	if en.Host == "" && who.Scoped() { // not "this host": there is none to name
		return fmt.Errorf("%w: token %q is limited to hosts %v; a rule without a host applies to every host, which the token does not cover: give the rule a host the token covers", ErrForbidden, who.Name, who.Hosts)
	}
	if !who.Allows(en.Host) {
		return fmt.Errorf("%w: token %q is limited to hosts %v, not %q", ErrOutOfScope, who.Name, who.Hosts, cut(en.Host))
	}
	return nil
}

// Upload adds the entries of body (CSV or JSON lines, by contentType)
// to draft id, all or none, and returns how many. A body cut by
// http.MaxBytesReader says the limit.
func (s *Service) Upload(who Identity, id, contentType string, body io.Reader) (int, error) {
	e, err := s.editor(who, Upload)
	if err != nil {
		return 0, err
	}
	n, err := e.Upload(id, who.Name, contentType, body, who.Allows)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return 0, fmt.Errorf("the upload is larger than %d bytes ([admin] max_upload_bytes); nothing was added: %w", mb.Limit, err)
		}
		if !strings.Contains(err.Error(), "nothing was added") {
			err = fmt.Errorf("nothing was added: %w", err)
		}
		return 0, err
	}
	return n, nil
}

// DiscardDraft deletes draft id.
func (s *Service) DiscardDraft(who Identity, id string) error {
	e, err := s.editor(who, DiscardDraft)
	if err != nil {
		return err
	}
	return e.DiscardDraft(id, who.Allows)
}

// ErrNoMessage is a promote without a message: the audit trail records
// why each version was made.
var ErrNoMessage = fmt.Errorf("%w: missing message: a promote needs one saying why; the audit trail records it with the version", ErrBadRequest)

// Promote makes draft id the serving version, with message for the audit
// trail, and returns its number.
func (s *Service) Promote(who Identity, id, message string) (int, error) {
	do, err := s.StartPromote(who, id, message)
	if err != nil {
		return 0, err
	}
	return do()
}

// StartPromote checks a promote as Promote does, at once, and returns
// the promote itself to run: a client that runs it apart from the
// request (a long promote answered 202) refuses a bad one promptly.
func (s *Service) StartPromote(who Identity, id, message string) (func() (int, error), error) {
	e, err := s.editor(who, Promote)
	if err != nil {
		return nil, err
	}
	message = strings.TrimSpace(message)
	if message == "" {
		return nil, ErrNoMessage
	}
	return func() (int, error) { return e.Promote(id, Audit{Author: who.Name, Message: message}, who.Allows) }, nil
}

// Ruleset returns the serving version as a rule-set archive: every
// host's rules, so only for a token of every host.
func (s *Service) Ruleset(who Identity) (Ruleset, error) {
	e, err := s.editor(who, Export)
	if err != nil {
		if errors.Is(err, ErrNotEdited) {
			err = ErrNoRuleset
		}
		return Ruleset{}, err
	}
	return e.Ruleset()
}

// Versions lists the versions kept, the latest loaded first, never nil.
func (s *Service) Versions(who Identity) ([]Version, error) {
	v, err := s.versioner(who, ListVersions)
	if err != nil {
		return nil, err
	}
	list := v.Versions()
	if list == nil {
		list = []Version{}
	}
	return list, nil
}

// Diff compares version from with version to ("": the serving one),
// at most limit rules of each kind, keeping to who's hosts: the counts
// are then of who's rules, with a change in scope only when both its
// rules are.
func (s *Service) Diff(who Identity, from, to string, limit int) (*VersionDiff, error) {
	v, err := s.versioner(who, Diff)
	if err != nil {
		return nil, err
	}
	if from == "" {
		return nil, fmt.Errorf("%w: missing from: name the version to compare (from), and to, which defaults to the serving version", ErrBadRequest)
	}
	if limit < 0 {
		return nil, fmt.Errorf("%w: limit is 0 or more", ErrBadRequest)
	}
	if !who.Scoped() {
		return v.Diff(from, to, limit)
	}
	d, err := v.Diff(from, to, int(^uint(0)>>1)) // every rule, then who's: the counts are of those
	if err != nil {
		return nil, err
	}
	return scopeDiff(who, d, limit), nil
}

// scopeDiff keeps the rules of d that who may see, at most limit of each
// kind, counting them whole.
func scopeDiff(who Identity, d *VersionDiff, limit int) *VersionDiff {
	out := &VersionDiff{From: d.From, To: d.To, Changes: NoChanges[Rule]()}
	keep := func(list []Rule, n *int, r Rule) []Rule {
		if *n++; len(list) < limit {
			list = append(list, r)
		}
		return list
	}
	for _, r := range d.Added {
		if who.Allows(r.Host) {
			out.Added = keep(out.Added, &out.AddedCount, r)
		}
	}
	for _, r := range d.Removed {
		if who.Allows(r.Host) {
			out.Removed = keep(out.Removed, &out.RemovedCount, r)
		}
	}
	for _, c := range d.Changed {
		if who.Allows(c.Old.Host) && who.Allows(c.New.Host) {
			if out.ChangedCount++; len(out.Changed) < limit {
				out.Changed = append(out.Changed, c)
			}
		}
	}
	out.Truncated = out.AddedCount > len(out.Added) || out.RemovedCount > len(out.Removed) || out.ChangedCount > len(out.Changed)
	return out
}

// Rollback serves version to again, pinned, message recorded with it.
func (s *Service) Rollback(who Identity, to, message string) (string, error) {
	v, err := s.versioner(who, Rollback)
	if err != nil {
		return "", err
	}
	return v.Rollback(to, Audit{Author: who.Name, Message: message})
}

// Unpin ends a rollback's pin, recorded as who's.
func (s *Service) Unpin(who Identity) (string, error) {
	v, err := s.versioner(who, Unpin)
	if err != nil {
		return "", err
	}
	return v.Unpin(Audit{Author: who.Name})
}

func cut(s string) string { return shorten.Text(s, 80) }
