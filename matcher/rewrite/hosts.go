package rewrite

import (
	"fmt"
	"strings"
)

// Hosts holds the Program of each server and chooses one for a host as
// nginx's ngx_http_find_virtual_server does: an exact name, else the
// longest leading wildcard ("*.example.com", ".example.com"), else the
// longest trailing one ("www.example.*"), else the first regex name
// ("~^(?<sub>.+)\.example\.com$") in order, else the default server.
type Hosts struct {
	byHost map[string]*Program
	wild   hostTable
	progs  []*Program // the wildcard names' Programs, by wild's values
	// regexes are the regex names, in order, each with its Program.
	regexes []hostRegex
	other   *Program
	// byPort are the default servers of some listener ports.
	byPort map[string]*Program
	// serverSteps: some Program has steps of the server's own.
	serverSteps bool
	// file is the config file the specs are in, for List and Explain.
	file string
	// named are the servers by the names their specs give them (exact,
	// wildcard, "~regex", "" for the host-less), for List.
	named []namedProgram
}

// namedProgram is a server's Program under the name its spec gives it.
type namedProgram struct {
	name string
	p    *Program
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
// port when DefaultPorts is empty.
type HostSpec struct {
	Host         string
	Default      bool
	DefaultPorts []string
	Spec         Spec
}

// CompileHosts compiles each host's Spec. An error is an *Error of the
// first problem, with Host set.
func CompileHosts(specs []HostSpec) (*Hosts, error) {
	h := &Hosts{byHost: map[string]*Program{}}
	var def *Program
	// The hosts' Specs share their maps (the config gives each the same
	// slice): a map that reads no variable slot is compiled once.
	shared := map[*MapSpec]*mapVar{}
	for _, hs := range specs {
		var p *Program
		err := error(nil)
		if re, ok := strings.CutPrefix(hs.Host, "~"); ok {
			var name *rx
			p, name, err = compileNamed(hs.Spec, re, shared)
			if err == nil {
				h.regexes = append(h.regexes, hostRegex{name, p})
			}
		} else if p, err = compile(hs.Spec, nil, shared); err == nil {
			err = h.fileName(hs.Host, p)
		}
		if err != nil {
			if e, ok := err.(*Error); ok {
				e.Host = hs.Host
				return nil, e
			}
			return nil, &Error{Host: hs.Host, Key: "host", Msg: err.Error()}
		}
		h.serverSteps = h.serverSteps || p.ServerSteps()
		h.named = append(h.named, namedProgram{hs.Host, p})
		if hs.Default && len(hs.DefaultPorts) > 0 {
			for _, port := range hs.DefaultPorts {
				if h.byPort == nil {
					h.byPort = map[string]*Program{}
				}
				if h.byPort[port] != nil {
					return nil, &Error{Host: hs.Host, Key: "default_server", Msg: "a second default server for port " + port}
				}
				h.byPort[port] = p
			}
		} else if hs.Default {
			if def != nil {
				return nil, &Error{Host: hs.Host, Key: "default_server", Msg: "a second default server"}
			}
			def = p
		}
	}
	if def != nil {
		h.other = def
	}
	return h, nil
}

// fileName files the Program of an exact or wildcard name.
func (h *Hosts) fileName(name string, p *Program) error {
	if name == "" {
		h.other = p
		return nil
	}
	wild, err := h.wild.add(name, int32(len(h.progs)))
	if err != nil {
		return err
	}
	if wild || name[0] == '.' {
		h.progs = append(h.progs, p)
	}
	if !wild {
		name = strings.TrimPrefix(name, ".")
		if h.byHost[name] != nil {
			return fmt.Errorf("%q is named twice", name)
		}
		h.byHost[name] = p
	}
	return nil
}

// compileNamed compiles spec with a regex server name, whose groups
// become the Program's variables.
func compileNamed(spec Spec, expr string, shared map[*MapSpec]*mapVar) (*Program, *rx, error) {
	var name *rx
	p, err := compile(spec, func(c *compiler) error {
		var err error
		// nginx compiles a server name's regex without case.
		name, err = c.compileRegex(expr, true)
		return err
	}, shared)
	return p, name, err
}

// Choose returns the Program for host (lower case, without port), nil
// when there is none; when a regex name chose it, s keeps the regex so
// that the next Run on s starts with its captures.
func (h *Hosts) Choose(s *Scratch, host []byte) *Program {
	return h.ChooseOn(s, host, nil)
}

// ChooseOn is Choose for a request to the listener port port
// ($server_port): a host that no server names gets that port's default
// server, if it has one.
func (h *Hosts) ChooseOn(s *Scratch, host, port []byte) *Program {
	s.hostRe = nil
	if h == nil {
		return nil
	}
	if p := h.byHost[string(host)]; p != nil {
		return p
	}
	if i, ok := h.wild.find(host); ok {
		return h.progs[i]
	}
	for _, r := range h.regexes {
		s.arena = append(s.arena[:0], host...)
		if s.matchHost(r.re, s.arena) {
			s.hostRe = r.re
			return r.p
		}
	}
	if p := h.byPort[string(port)]; p != nil {
		return p
	}
	return h.other
}

// Lookup is Choose for a caller that keeps no Scratch (the config's
// checks): a regex name's captures are dropped.
func (h *Hosts) Lookup(host []byte) *Program {
	var s Scratch
	return h.Choose(&s, host)
}
