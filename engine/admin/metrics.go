package admin

import "net/http"

// metricsType is the Prometheus text exposition format, version 0.0.4: what
// every Prometheus scraper accepts.
const metricsType = "text/plain; version=0.0.4; charset=utf-8"

// metrics streams the Backend's metrics straight into the answer, unbuffered:
// with many rules the body is large, and a copy would double it.
func (s *Server) metrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", metricsType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	s.b.WriteMetrics(w)
}
