// Package config reads a redirectd configuration (TOML, plus the map files
// it names) and compiles it into a matcher.Set.
//
// Loading is two-stage: a strict decode, where any key the schema does not
// know is an error (BurntSushi/toml would otherwise match keys
// case-insensitively and ignore unknown ones), then validation that builds
// the immutable rule set. Every error names the file, the line, and the rule
// and key it is about; a config with errors is refused whole, so the caller
// keeps serving what it had.
//
// Loading runs off the hot path and allocates freely.
package config
