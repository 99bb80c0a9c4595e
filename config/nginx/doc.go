// Package nginx reads nginx configuration files and translates them into
// redirectd's location model, for `redirectd import nginx`.
//
// Reading (Parse) turns nginx's syntax into a tree of directives, following
// include globs. Translating (Translate) writes each server block as
// [[server_rewrite]], [[location]] and [[location_map]] tables: its
// rewrite-phase directives (rewrite, return, if, set, break, error_page)
// as nginx's own text, its locations as tables, its maps as nginx's
// lines, and each proxy_pass as an upstream group (its upstream block's
// servers, https:// with its proxy_ssl_* keys, the Host nginx sends).
// What the location model refuses is left out piece by piece, with the
// model's reason at its file and line, never dropped silently. A model
// of nginx (emulate.go) answers the self-check's requests, which the
// written tables must answer alike.
//
// Everything here runs once, off the hot path, and allocates freely.
package nginx
