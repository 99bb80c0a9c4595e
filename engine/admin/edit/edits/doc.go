// Package edits does the work of the editing path that package edit
// models: it holds the drafts open (State: their entries, views,
// samples, problems and quotas), stages the versions a promote or
// rollback makes, keeps them on disk (Store) and the audit log (Audit)
// in one write-ahead order for every change to the rules served
// (Commit), recovers both at start, and lists the versions loaded and
// compares them (VersionLog), and decides what a rollback, an unpin and
// a diff serve or compare (versionops.go). Edits are an Overlay of entries (add,
// change, delete) keyed by host and from, laid over the rules of the
// config; uploads are parsed here (CSV in the shapes `redirectd import
// csv` reads, JSON lines).
//
// The daemon opens a State from its config, gives it what only the
// config knows (Syntax, RuleLoader: engine packages do not import
// config), loads and swaps in the versions it stages, and tells it
// what serves. What GET /ruleset holds is package ruleset's.
//
// An overlay is small beside the rules it edits: a draft of ten entries
// against a million-rule map holds ten entries, never a copy of the map.
// The rules are rebuilt from the config's (Apply) only when a version is
// promoted or loaded.
//
// Nothing here is on the traffic path: it runs on admin request
// goroutines and at loads, and allocates freely.
package edits
