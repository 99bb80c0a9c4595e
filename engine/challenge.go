package engine

import (
	"bytes"

	"github.com/redirectd/redirectd/engine/forward/exchange"
	"github.com/redirectd/redirectd/httpparse"
)

// challengePrefix is where ACME HTTP-01 challenges are fetched (RFC 8555
// 8.3).
const challengePrefix = "/.well-known/acme-challenge/"

// isChallenge reports whether req is an ACME HTTP-01 challenge the server
// answers itself, before any rule and before https_redirect: on the plain
// port only, and only with an ACME configuration.
func (cs *conn) isChallenge(req *httpparse.Request) bool {
	return !cs.tls && cs.loop.srv.opts.ACMEChallenge != nil &&
		bytes.HasPrefix(req.Path, []byte(challengePrefix)) && (string(req.Method) == "GET" || string(req.Method) == "HEAD")
}

// startChallenge answers an ACME challenge off the loop: the key
// authorization is looked up by the certificate manager, which may take
// locks, so it is asked on a forward worker, and the answer written as a
// forward's is, in request order: the connection's fwd is a forward
// without an exchange, which the challenge writes through.
func (cs *conn) startChallenge(s *Server, req *httpparse.Request, closing bool) {
	f := cs.newForward(cs.c, nil, exchange.Request{Closing: closing, HTTP10: req.Minor == 0, Head: isHead(req.Method)})
	ch := &challenge{f: f, host: string(httpparse.HostName(req.Host)), path: string(req.Path)}
	cs.fwd = f
	s.workers.Run(ch)
}

// challenge is an ACME HTTP-01 challenge answered on a worker: what it
// asks the certificate manager, and f, the forward its answer is written
// through (it holds the connection's place in request order, its access
// log line and its hand-back to the loop), which has no upstream
// exchange.
type challenge struct {
	f          *forward
	host, path string
}

// Run runs on a worker: 200 with the key authorization, or 404 for a
// token the manager does not know.
func (ch *challenge) Run() {
	f := ch.f
	s := f.cs.loop.srv
	defer s.recoverConn(atForward, f.cs.c, f.cs, nil)
	body, ok := s.opts.ACMEChallenge(ch.host, ch.path)
	if !ok {
		s.m.challenges[0].Inc()
		s.m.answer(outMiss, 404)
		f.AnswerError(404, "not found\n")
		return
	}
	s.m.challenges[1].Inc()
	f.AnswerOK(body)
}
