// Package edits holds the rule edits made through the admin API: an
// Overlay of entries (add, change, delete) keyed by host and from, laid
// over the rules of the config; the Store that keeps each promoted
// version's overlay on disk; and the parsers of bulk uploads (CSV in the
// shapes `redirectd import csv` reads, JSON lines).
//
// An overlay is small beside the rules it edits: a draft of ten entries
// against a million-rule map holds ten entries, never a copy of the map.
// The rules are rebuilt from the config's (Apply) only when a version is
// promoted or loaded.
//
// Nothing here is on the traffic path: it runs on admin request
// goroutines and at loads, and allocates freely.
package edits
