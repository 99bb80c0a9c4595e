// Package importer holds what the imports from hosted redirect services
// (`redirectd import netlify`, `redirectd import vercel`) share: the
// translated rules with the source line each comes from, the notes on
// what was not translated (never dropped silently), the order check that
// makes redirectd's precedence (exact, longest prefix, regexes in file
// order; rules with conditions first for one path) give the answers of
// the services' first-match-in-file-order, for every kind of client the
// rules' conditions pick out (client.go), and the writing of the config
// and the report.
//
// Everything here runs once, off the hot path, and allocates freely.
package importer
