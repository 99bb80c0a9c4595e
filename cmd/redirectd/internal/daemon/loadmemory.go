package daemon

import "runtime/debug"

// freeLoadMemory hands back what a load left behind, once serving (at
// start) or once the new rules serve (at a reload): the decoder's
// garbage, several times the size of the compiled rules, and the pages
// of the executable only loading ran (pageout_linux.go).
func freeLoadMemory() {
	debug.FreeOSMemory()
	pageOutExecutable()
}
