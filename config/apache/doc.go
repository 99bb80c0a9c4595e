// Package apache translates Apache httpd configuration (server configs
// and .htaccess files) into redirectd's rules, for `redirectd import
// apache`: its one job is to say, in redirectd's nginx-model tables, what
// Apache's mod_alias and mod_rewrite answer.
//
// Reading (ParseFile, Parse) turns Apache's syntax into a tree of
// directives and sections, following Include and IncludeOptional globs
// confined to the main file's folder. Translating (Translate) writes each
// virtual host's server-context directives as one [[server_rewrite]]
// (mod_rewrite's rules, then mod_alias's, as Apache's translate_name
// hooks run them) and each .htaccess or <Directory> as a prefix
// [[location]] (its RewriteRules, then its Redirects, as the fixup hooks
// run them), in nginx's rewrite-phase text. Whatever decides a redirect
// and is not translated is listed with its file:line, never dropped.
//
// Everything here runs once, off the hot path, and allocates freely.
package apache
