// Package netlify translates Netlify's redirect rules (a _redirects file,
// also read by Cloudflare Pages, or the [[redirects]] tables of
// netlify.toml) into redirectd rules, for `redirectd import netlify`.
//
// Parse reads the rules; Translate turns them into candidates for
// importer.Order, which keeps Netlify's first-match order. A rule without
// '!' becomes a fallback rule (fallback = true), which answers only where
// the upstream has no page, as Netlify applies it only where the site has
// no file. Splats (/* and :splat, or a * after text, as in /kubectl_*)
// become prefix rules where the rest of the path is appended,
// placeholders (:name) regex groups, literal paths exact rules; every
// rule ignores a trailing slash, as Netlify does. Query parameter
// matching becomes query conditions (or, where a parameter's value is
// used in the target, a regex on the path and query). Language= becomes
// when.language, Country= when.country where the import is given a
// country database (-geoip), and Cookie= with one name when.cookie with
// any value ("*"); each rule's model reads them as redirectd does, so
// that the order check can ask as the clients they pick out. What
// redirectd cannot do (200 rewrites and proxies, custom 404 pages, Role=,
// Cookie= with several names, Country= without a database, statuses
// other than 30x) is listed with its file:line, never dropped silently.
//
// Everything here runs once, off the hot path, and allocates freely.
package netlify
