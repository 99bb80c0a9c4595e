package rewrite

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// Hosts holds the Program of each server and chooses one for a host as
// nginx's ngx_http_find_virtual_server does: an exact name, else the
// longest leading wildcard ("*.example.com", ".example.com"), else the
// longest trailing one ("www.example.*"), else the first regex name
// ("~^(?<sub>.+)\.example\.com$") in order, else the default server.
// Servers of one scheme (nginx's plain and ssl listen ports) are chosen
// among those of that scheme and those of none.
type Hosts struct {
	// plain and tls are the servers a plain and a TLS request choose
	// among: one table when no server names a scheme.
	plain, tls *hostIndex
	// serverSteps: some Program has steps of the server's own.
	serverSteps bool
	// file is the config file the specs are in, for List and Explain.
	file string
	// named are the servers by the names their specs give them (exact,
	// wildcard, "~regex", "" for the host-less), for List.
	named []namedProgram
}

// hostIndex is the servers of one listener kind, by name.
type hostIndex struct {
	byHost map[string]*Program
	wild   hostTable
	progs  []*Program // the wildcard names' Programs, by wild's values
	// regexes are the regex names, in order, each with its Program.
	regexes []hostRegex
	other   *Program
	// def is the default_server's Program, which replaces other.
	def *Program
	// byPort are the default servers of some listener ports.
	byPort map[string]*Program
}

// namedProgram is a server's Program under the name and scheme its spec
// gives it.
type namedProgram struct {
	name, scheme string
	p            *Program
}

// hostRegex is a regex server name, compiled by its Program's compiler
// so that its named groups are that Program's variables.
type hostRegex struct {
	re *rx
	p  *Program
}

// ServerSteps reports whether some host's Program has steps of the
// server's own, which run before the flat rules.
func (h *Hosts) ServerSteps() bool { return h != nil && h.serverSteps }

// HostSpec is one server's Spec. Host is its name as nginx's
// server_name takes one: an exact name, "*.example.com",
// ".example.com" (example.com and its subdomains), "www.example.*", or
// "~REGEX" (its captures are the steps' $1..$9 and named variables);
// "" is the default server, for every host that no other names. Default
// makes this one the default server instead (nginx's default_server):
// on the listener ports DefaultPorts ($server_port), or on every other
// port when DefaultPorts is empty. Scheme "http" or "https" makes it a
// server of plain or TLS requests only, as nginx's servers of plain and
// ssl listen ports; "" serves both.
type HostSpec struct {
	Host         string
	Default      bool
	DefaultPorts []string
	Scheme       string
	Spec         Spec
}

// CompileHosts compiles each host's Spec. An error is an *Error of the
// first problem, with Host set.
func CompileHosts(specs []HostSpec) (*Hosts, error) {
	h := &Hosts{plain: newHostIndex()}
	h.tls = h.plain
	for _, hs := range specs {
		switch hs.Scheme {
		case "", "http", "https":
		default:
			return nil, &Error{Host: hs.Host, Key: "scheme", Msg: fmt.Sprintf("%q is no scheme; \"http\" or \"https\"", hs.Scheme)}
		}
		if hs.Scheme != "" && h.tls == h.plain {
			h.tls = newHostIndex()
		}
	}
	// The hosts' Specs share their maps (the config gives each the same
	// slice): a map that reads no variable slot is compiled once.
	shared := newShare()
	for _, hs := range specs {
		var p *Program
		var name *rx
		err := error(nil)
		re, isRegex := strings.CutPrefix(hs.Host, "~")
		if isRegex {
			p, name, err = compileNamed(hs.Spec, re, shared)
		} else {
			p, err = compile(hs.Spec, nil, shared)
		}
		for _, ix := range h.indexes(hs.Scheme) {
			if err != nil {
				break
			}
			if isRegex {
				ix.regexes = append(ix.regexes, hostRegex{name, p})
			} else {
				err = ix.fileName(hs.Host, p)
			}
			if err == nil {
				err = ix.fileDefault(&hs, p)
			}
		}
		if err != nil {
			if e, ok := err.(*Error); ok {
				e.Host = hs.Host
				return nil, e
			}
			return nil, &Error{Host: hs.Host, Key: "host", Msg: err.Error()}
		}
		h.serverSteps = h.serverSteps || p.ServerSteps()
		h.named = append(h.named, namedProgram{hs.Host, hs.Scheme, p})
	}
	for _, ix := range []*hostIndex{h.plain, h.tls} {
		if ix.def != nil {
			ix.other = ix.def
		}
	}
	return h, nil
}

func newHostIndex() *hostIndex { return &hostIndex{byHost: map[string]*Program{}} }

// indexes are the tables a server of scheme is chosen from.
func (h *Hosts) indexes(scheme string) []*hostIndex {
	switch {
	case h.tls == h.plain:
		return []*hostIndex{h.plain}
	case scheme == "http":
		return []*hostIndex{h.plain}
	case scheme == "https":
		return []*hostIndex{h.tls}
	}
	return []*hostIndex{h.plain, h.tls}
}

// fileDefault files p as a default server where hs says so.
func (ix *hostIndex) fileDefault(hs *HostSpec, p *Program) error {
	switch {
	case hs.Default && len(hs.DefaultPorts) > 0:
		for _, port := range hs.DefaultPorts {
			if ix.byPort == nil {
				ix.byPort = map[string]*Program{}
			}
			if ix.byPort[port] != nil {
				return &Error{Host: hs.Host, Key: "default_server", Msg: "a second default server for port " + port}
			}
			ix.byPort[port] = p
		}
	case hs.Default:
		if ix.def != nil {
			return &Error{Host: hs.Host, Key: "default_server", Msg: "a second default server"}
		}
		ix.def = p
	}
	return nil
}

// fileName files the Program of an exact or wildcard name.
func (ix *hostIndex) fileName(name string, p *Program) error {
	if name == "" {
		if ix.other != nil {
			return fmt.Errorf("a second server for the hosts no server names")
		}
		ix.other = p
		return nil
	}
	wild, err := ix.wild.add(name, int32(len(ix.progs)))
	if err != nil {
		return err
	}
	if wild || name[0] == '.' {
		ix.progs = append(ix.progs, p)
	}
	if !wild {
		name = strings.TrimPrefix(name, ".")
		if ix.byHost[name] != nil {
			return fmt.Errorf("%q is named twice", name)
		}
		ix.byHost[name] = p
	}
	return nil
}

// compileNamed compiles spec with a regex server name, whose groups
// become the Program's variables.
func compileNamed(spec Spec, expr string, shared *share) (*Program, *rx, error) {
	var name *rx
	p, err := compile(spec, func(c *compiler) error {
		var err error
		// nginx compiles a server name's regex without case.
		name, err = c.compileRegex(expr, true)
		return err
	}, shared)
	return p, name, err
}

// Choose returns the Program for host (lower case, without port) of a
// plain request, nil when there is none; when a regex name chose it, s
// keeps the regex so that the next Run on s starts with its captures.
func (h *Hosts) Choose(s *Scratch, host []byte) *Program {
	return h.ChooseOn(s, host, nil, false)
}

// ChooseOn is Choose for a request to the listener port port
// ($server_port), over TLS when https: a host that no server names gets
// that port's default server, if it has one.
func (h *Hosts) ChooseOn(s *Scratch, host, port []byte, https bool) *Program {
	s.hostRe = nil
	if h == nil {
		return nil
	}
	// A loop's requests mostly name one host on one port: the last
	// choice is kept, and costs two comparisons rather than the
	// tables' lookups (about 40 ns of an exact hit's 430 in engine
	// BenchmarkServeModel, on every request once any server has steps).
	c := &s.chosen
	if c.h == h && c.https == https && bytes.Equal(c.host, host) && bytes.Equal(c.port, port) {
		s.hostRe = c.re
		return c.p
	}
	p := h.choose(s, host, port, https)
	c.h, c.https, c.p, c.re = h, https, p, s.hostRe
	c.host, c.port = append(c.host[:0], host...), append(c.port[:0], port...)
	return p
}

// Forget drops what s keeps of the Hosts and Programs it last ran: the
// kept choice, and the last run's Program, locations and regexes. The
// choice is never taken for another Hosts (ChooseOn compares them), but
// while s keeps it the whole of a replaced config stays in memory: a
// loop that serves no request for a while after a reload would hold
// the old server table, maps included, until its next one. Call it
// between runs, when the Hosts in use is replaced.
func (s *Scratch) Forget() {
	s.chosen.h, s.chosen.p, s.chosen.re = nil, nil, nil
	s.chosen.host, s.chosen.port = s.chosen.host[:0], s.chosen.port[:0]
	s.prog, s.hostRe, s.named, s.fwd = nil, nil, nil, nil
	s.match = matcher.Match{} // it names the map index's rules
}

// choice is the last ChooseOn of a Scratch: its request and answer.
type choice struct {
	h          *Hosts
	host, port []byte
	https      bool
	p          *Program
	re         *rx
}

// choose is ChooseOn without the kept choice.
func (h *Hosts) choose(s *Scratch, host, port []byte, https bool) *Program {
	ix := h.plain
	if https {
		ix = h.tls
	}
	if p := ix.byHost[string(host)]; p != nil {
		return p
	}
	if i, ok := ix.wild.find(host); ok {
		return ix.progs[i]
	}
	for _, r := range ix.regexes {
		s.arena = append(s.arena[:0], host...)
		if s.matchHost(r.re, s.arena) {
			s.hostRe = r.re
			return r.p
		}
	}
	if p := ix.byPort[string(port)]; p != nil {
		return p
	}
	return ix.other
}

// Lookup is ChooseOn for a caller that keeps no Scratch (the config's
// checks): a regex name's captures are dropped.
func (h *Hosts) Lookup(host []byte, https bool) *Program {
	var s Scratch
	return h.ChooseOn(&s, host, nil, https)
}

// Schemed reports whether some server is of one scheme only: then a
// host's answers depend on the scheme.
func (h *Hosts) Schemed() bool { return h != nil && h.plain != h.tls }
