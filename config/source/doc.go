// Package source fetches a rule set from a URL into a folder, and keeps
// the versions fetched in a cache folder.
//
// A rule set is a .tar.gz (or .tar) holding a rules TOML and the files it
// names, or a single TOML, map or CSV file. Fetch asks conditionally
// (If-None-Match, If-Modified-Since) and reports a 304 as unchanged, so a
// fleet polling every few seconds costs the source one small answer per
// node. What it accepts is bounded: the download's size (MaxBytes), the
// files an archive may unpack to (count and total size), and an archive's
// entries may only be regular files and folders inside the destination
// (no absolute path, no "..", no link of any kind).
//
// Cache writes each version under versions/HASH with a temporary name,
// synced and then renamed, and names the last good one in a file
// "current" replaced the same way, so a crash leaves either the old or the
// new version, never half of one.
//
// Nothing here is on the traffic path: it runs on the poller's goroutine,
// uses net/http, and allocates freely.
package source
