// Package importer is what every import (`redirectd import nginx`,
// `netlify`, `vercel`, `csv`) shares: the one writer of redirectd
// configs (write.go: [[rule]] and [[map]] tables, the inverse of
// config.Load, fuzzed by loading what it writes), the one note and report
// type (report.go: what was not translated, never dropped silently, by
// kind and source line), and, for the hosted services, the translated
// rules with the source line each comes from, written under [rules]
// order = "file" (the services' first match in file order, whatever the
// host), and the order check that makes sure they give the services'
// answers, for every kind of client the rules' conditions pick out
// (client.go). Its importertest package is the
// one golden test of every importer: txtar archives of the source files
// and what the import writes.
//
// Everything here runs once, off the hot path, and allocates freely.
package importer
