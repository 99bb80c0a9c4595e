package rewrite

// Hosts holds the Program of each host, as nginx's server blocks by
// exact server_name, and the one for any other host.
type Hosts struct {
	byHost map[string]*Program
	other  *Program
	// serverSteps: some Program has steps of the server's own.
	serverSteps bool
	// file is the config file the specs are in, for List and Explain.
	file string
}

// ServerSteps reports whether some host's Program has steps of the
// server's own, which run before the flat rules.
func (h *Hosts) ServerSteps() bool { return h != nil && h.serverSteps }

// HostSpec is one host's Spec; Host "" is every host that no other
// HostSpec names.
type HostSpec struct {
	Host string
	Spec Spec
}

// CompileHosts compiles each host's Spec. An error is an *Error of the
// first problem, with Host set.
func CompileHosts(specs []HostSpec) (*Hosts, error) {
	h := &Hosts{byHost: map[string]*Program{}}
	for _, hs := range specs {
		p, err := Compile(hs.Spec)
		if err != nil {
			if e, ok := err.(*Error); ok {
				e.Host = hs.Host
			}
			return nil, err
		}
		h.serverSteps = h.serverSteps || p.ServerSteps()
		if hs.Host == "" {
			h.other = p
		} else {
			h.byHost[hs.Host] = p
		}
	}
	return h, nil
}

// Lookup returns the Program for host (lower case, without port), nil
// when there is none.
func (h *Hosts) Lookup(host []byte) *Program {
	if h == nil {
		return nil
	}
	if p := h.byHost[string(host)]; p != nil {
		return p
	}
	return h.other
}
