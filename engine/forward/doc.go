// Package forward is the policy of a request forwarded to an upstream
// group, apart from what drives the exchange (package exchange, below
// this one, and the engine's forwarding.go): what goes upstream (RequestHeaders, Target), what
// comes back to the client (AppendAnswerFields, AppendStatusLine, a
// tunnel's 101 included), which requests are WebSocket upgrades, the
// [[route]] table a miss is looked up in (Routes), the groups' options
// and their defaults (Options), the per-client bound on running
// exchanges (Slots) and the goroutines exchanges run on (Workers).
//
// Nothing here touches a connection: every function takes the request
// as httpparse parsed it and appends to the caller's buffers. Routes.Pick,
// run on the loop for every miss, allocates nothing.
package forward
