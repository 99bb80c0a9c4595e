// Package ruleset is what an edited node's GET /ruleset holds and what
// a node fed by it makes of it: the serving rules as redirectd.toml and
// who made each edited rule (origins.json), in a .tar.gz made from one
// immutable Snapshot of the rules with its version's hash as the ETag
// (Archive), and, on the fleet node, each rule's origin as /rules,
// explain and the console show it (the editor's version and author, and
// the rollback that brought it back), not its line in the archive.
//
// The TOML is written by the config's one writer of rules, which the
// daemon gives as TOML: engine packages do not import config.
package ruleset
