// Package admin serves the operator's endpoints on their own listener, apart
// from the traffic port: Prometheus metrics (/metrics), liveness (/healthz)
// and readiness (/readyz), the loaded rules with their hit counts (/rules),
// how one URL would be answered (/explain), a config reload (POST
// /reload), and, when the Backend is an edit.Versioner, the rule-set versions
// (/versions, /versions/diff, POST /versions/rollback and /versions/unpin),
// and, when it is a MissReporter, the most requested paths that matched no
// rule (/misses), and, when it is an edit.Editor, drafts of rule edits
// (/drafts, promote, whose outcome a promote that outlasts a prompt
// answer gives at /operations/{id}) and the serving rules as a rule-set archive
// (/ruleset). With Options.Pages it also mounts the web console
// (package console) at / and /ui/, whose pages sign people in with a
// token typed into a form and a session cookie instead of a Bearer
// header; Identify, Open and Backend are what it asks of the server.
//
// It knows nothing of the rest of redirectd: every answer comes from a
// Backend that the command wires up. Who may do what to drafts and
// versions, which hosts a token sees and the errors' statuses are the
// editing model's (package edit), which the console asks too: the
// handlers here parse a request, call it and write its answer.
//
// Access: when the admin.token config key or named tokens (Options.Tokens)
// are set, every endpoint but the probes requires "Authorization: Bearer
// <token>"; each token has a Role and optionally hosts (roles.go), and
// every token is compared in constant time (auth.go). New refuses a listen address that is not
// loopback unless a token is set, so the admin port is never open to the
// network by accident. Without a token, every request must carry a
// loopback Host (localhost, 127.0.0.0/8, [::1]) or gets 421, so a
// DNS-rebinding web page cannot use the operator's browser to reach it
// (see requireLoopbackHost). The server is plain net/http on its own goroutines;
// nothing here runs on the traffic event loops, and nothing here is a hot
// path, so it allocates freely.
package admin
