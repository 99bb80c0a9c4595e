// Package regexsample makes a string a regular expression matches, from
// its syntax tree, for the checks that ask a server with a probe: the
// URLs `check -baseline` compares, the requests an importer's self-check
// asks Apache's model, and the real-site tests' requests. Each result is
// checked against the compiled expression, so a caller never probes with
// a string the expression does not match.
package regexsample
