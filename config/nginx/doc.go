// Package nginx reads nginx configuration files and translates their
// redirects into redirectd rules, for `redirectd import nginx`.
//
// Reading (Parse) turns nginx's syntax into a tree of directives, following
// include globs. Translating (Translate) models what nginx does with a
// request path in each server block: the rewrite phase at server level,
// location selection (exact, longest prefix, ^~, regexes in order, the
// longest plain prefix) and the redirecting directives of the chosen
// location (return 30x, rewrite ... permanent|redirect, and the ways a map
// drives them: if ($map) or if ($map != "") around return or rewrite, an
// unconditional return or rewrite with the map's default as a catch-all;
// maps on $uri, $request_uri and host-and-URI sources), then writes rules
// whose redirectd precedence gives the same answers: a map's exact keys,
// then its regex keys in file order, "" values as no-redirect entries.
// Each location's proxy_pass becomes an upstream group (its upstream
// block's servers, https:// with its proxy_ssl_* keys, the Host nginx
// sends) and routes by server name and prefix that pick it as nginx picks
// the server and location.
// What it cannot express (internal rewrites, most if conditions, variables
// redirectd has no equivalent for, orders redirectd cannot keep) is listed
// with the file and line, never dropped silently.
//
// Everything here runs once, off the hot path, and allocates freely.
package nginx
