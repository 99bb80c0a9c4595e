package engine

// SetPanicHook has s call hook at each place where a panic is recovered,
// with the place's name ("open", "traffic", "close", "sweep", "forward",
// "tunnel", "tick") and, for "traffic", the bytes buffered; a test panics from it
// to show that the server survives. Call it before Run.
func SetPanicHook(s *Server, hook func(at string, data []byte)) {
	s.panicHook = func(at boundary, data []byte) { hook(boundaryNames[at], data) }
}
