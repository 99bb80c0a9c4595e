package edits

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/matcher"
)

// What a rollback, an unpin and a diff of versions do, decided here
// for every node: the daemon only loads the rules these name (which
// needs the config or the source's cache) and swaps them in.

// Serve is how the daemon serves a version staged here: loaded,
// committed and swapped in through a Commit, as action (promote or
// rollback). An error leaves the running rules.
type Serve func(v *edit.Version, action string) error

// Promote makes draft id the next version (StagePromote) and serves
// it; the draft is dropped only once its version serves. The daemon's
// lock on changes to the rules served is held.
func (ed *State) Promote(id string, a edit.Audit, in edit.Scope, serve Serve) (int, error) {
	v, err := ed.StagePromote(id, a, in)
	if err != nil {
		return 0, err
	}
	if err := serve(v, "promote"); err != nil {
		return 0, err
	}
	ed.Promoted(id)
	return v.Number, nil
}

// Rollback serves again, as a new version, the edits of version to (a
// number, or a hash vl lists) on an edited node, as a's, and says what
// serves. The daemon's lock on changes is held.
func (ed *State) Rollback(to string, vl *VersionLog, a edit.Audit, serve Serve) (string, error) {
	v, err := ed.RollbackTo(to, vl, a)
	if err != nil {
		return "", err
	}
	if err := serve(v, "rollback"); err != nil {
		return "", err
	}
	return fmt.Sprintf("serving version %d, the rules of version %d", v.Number, v.RollbackOf), nil
}

// ServeFailed is the error of a version that did not serve: one that
// could not be kept is ErrNotDurable as it is, any other did not load
// (ErrInvalid); the running rules stay either way.
func ServeFailed(err error) error {
	if err == nil || errors.Is(err, edit.ErrNotDurable) {
		return err
	}
	return fmt.Errorf("%w; the running rules stay: %v", edit.ErrInvalid, err)
}

// RollbackTo stages the rollback of an edited node to version to (a
// number, or a hash vl lists) as a's (StageRollback).
func (ed *State) RollbackTo(to string, vl *VersionLog, a edit.Audit) (*edit.Version, error) {
	n, err := strconv.Atoi(to)
	if err != nil {
		rv, ferr := vl.Find(to)
		if ferr != nil {
			return nil, ferr
		}
		n = rv.Number
	}
	return ed.StageRollback(n, a)
}

// PinTarget is the version a rollback to hash to serves and pins on a
// node whose rules come from a source (source: it has one): one vl
// lists whose files the cache keeps. A version of the local config is
// not kept, so it cannot be.
func (vl *VersionLog) PinTarget(to string, source bool) (edit.Version, error) {
	v, err := vl.Find(to)
	if err != nil {
		return edit.Version{}, err
	}
	if !v.Kept || !source {
		return edit.Version{}, fmt.Errorf("version %s came from the local config, whose earlier files are not kept: only versions from [rules] source can be rolled back to", to)
	}
	return v, nil
}

// Pinned is what a rollback of a node with a source answers, msg the
// load's.
func Pinned(to, msg string) string {
	return fmt.Sprintf("serving %s, pinned until the source changes or POST /versions/unpin: %s", to, msg)
}

// UnpinTarget says what an unpin serves on a node (source: it has a
// source) whose source's newest version that loaded is latest: ""
// when the version serving is that already (the unpin changes only
// the pin, and is recorded all the same), else latest, loaded again.
// With no source or no pin, there is nothing to unpin.
func (vl *VersionLog) UnpinTarget(source bool, latest string) (string, error) {
	if !source {
		return "", errors.New("nothing is pinned: rollback needs [rules] source")
	}
	if !vl.Pinned() {
		return "", errors.New("nothing is pinned: POST /versions/rollback?to=HASH pins a version")
	}
	if latest == "" || latest == vl.ServingHash() {
		return "", nil
	}
	return latest, nil
}

// Unpinned is what an unpin answers: it served latest ("" for the
// version serving already), msg the load's; err, the load's failure,
// is the answer's, and the pin stays.
func Unpinned(latest, msg string, err error) (string, error) {
	switch {
	case err != nil:
		return "", fmt.Errorf("cannot load the source's version %s, so the pin stays: %w", latest, err)
	case latest == "":
		return "unpinned; the source's version serves already", nil
	}
	return "unpinned; serving the source's version " + latest + ": " + msg, nil
}

// RuleLoader loads the rules of a version for a diff, which takes the
// config (engine packages do not import it): the daemon gives it.
type RuleLoader interface {
	// Serving is the rules serving.
	Serving() *matcher.Set
	// Edited is the config's rules of now with v's edits laid over
	// them: a version of an edited node.
	Edited(v *edit.Version) (*matcher.Set, error)
	// Fetched is version v from the source's cache.
	Fetched(v edit.Version) (*matcher.Set, error)
}

// VersionRules returns the rules of version hash: the serving set's
// when it serves; on an edited node (ed keeps versions, and source is
// false) the config of now with the stored version's edits (a version
// from before the config last changed is rebuilt on the config of now:
// the edits are kept, not the config's files); with a source, the
// cache's copy; a version of the local config is not kept.
func (vl *VersionLog) VersionRules(hash string, ed *State, source bool, l RuleLoader) (*matcher.Set, error) {
	v, err := vl.Find(hash)
	if err != nil {
		return nil, err
	}
	if hash == vl.ServingHash() {
		return l.Serving(), nil
	}
	if !source && ed.Store() != nil {
		ev, err := ed.Store().Load(v.Number)
		if err != nil {
			return nil, fmt.Errorf("version %s: %w", v.Hash, edit.ErrUnknownVersion)
		}
		return l.Edited(ev)
	}
	if !v.Kept || !source {
		return nil, fmt.Errorf("version %s came from the local config, whose earlier files are not kept: only versions from [rules] source can be compared", hash)
	}
	return l.Fetched(v)
}
