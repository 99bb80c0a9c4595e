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
// config or cmd. It imports the standard library and matcher; its work (the
// drafts held, versions staged and kept, the audit log) is package
// edits', and the daemon implements Editor and Versioner with it,
// loading and swapping the rules.
package edit
