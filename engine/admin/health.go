package admin

import "net/http"

// healthz says the process is alive and serving this port. It asks the
// Backend nothing, so a stuck reload or a draining server never makes an
// orchestrator restart the process; /readyz is for taking it out of
// rotation.
func healthz(w http.ResponseWriter, _ *http.Request) {
	text(w, http.StatusOK, "ok\n")
}

// readyz answers 200 "ready" when the Backend is ready for traffic, else
// 503 with the reason, so that a load balancer stops sending traffic
// while rules load or the server drains.
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	if err := s.b.Ready(); err != nil {
		text(w, http.StatusServiceUnavailable, line(err.Error()))
		return
	}
	text(w, http.StatusOK, "ready\n")
}

// quietReadyz is readyz for a request without the token: the status and
// "ready" or "not ready", never why (a reload's error names files).
func (s *Server) quietReadyz(w http.ResponseWriter, _ *http.Request) {
	if s.b.Ready() != nil {
		text(w, http.StatusServiceUnavailable, "not ready\n")
		return
	}
	text(w, http.StatusOK, "ready\n")
}

// line returns s ending with exactly one newline, for curl output that
// does not run into the prompt.
func line(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return s + "\n"
}
