// Package edit is the one model of the editing path: what a version, a
// draft, an entry, a change's counts, a role, a host scope and an audit
// record are, and the operations on them (Service), each of which takes
// the caller's Identity and applies its role, its host scope, the limits
// and the errors' statuses once. The JSON endpoints of package admin and
// the pages of package console are thin clients of a Service: they parse
// a request, call one method and write its answer or Status(err), and
// decide nothing else, so the two cannot disagree on who may do what.
//
// Why here: package admin (the JSON endpoints) and package console (the
// pages, which imports admin) both need it, so it cannot live in either
// without an import cycle, and packages under engine may not import
// config or cmd. It imports the standard library and matcher.
//
// What lives where:
//   - edit (here): the types and the Service, which decides who may do
//     what;
//   - edit/edits: the work, for every node: drafts, promote and
//     rollback staging, the versions on disk and listed, the one
//     write-ahead order of every change to the rules served (Commit),
//     the audit log and its recovery, and what a rollback, an unpin and
//     a diff of versions serve or compare (versionops.go);
//   - edit/ruleset: what GET /ruleset holds (the rules' TOML and who
//     made each edited rule), its ETag from one immutable Snapshot, and
//     a fleet node's origins of its rules, a rollback's included;
//   - cmd/redirectd/internal/daemon: only what needs the config, its
//     importers or the source: it loads a config and lays edits over
//     it, compiles and swaps the rules, fetches from the source, and
//     gives the engine side the config's syntax (edit.Syntax,
//     ruleset.TOML) and its loads (edits.RuleLoader). It implements
//     Editor and Versioner as a thin client of edits and ruleset.
package edit
