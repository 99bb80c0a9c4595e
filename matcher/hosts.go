package matcher

import (
	"slices"
	"strings"
)

// Hosts returns the exact hosts the rules name, sorted: the names a
// certificate is obtained for when [acme] hosts = "rules". Wildcard hosts
// ("*.example.com") are left out: a certificate for one needs the DNS-01
// challenge; CoversWildcard answers for the names under them.
func (s *Set) Hosts() []string {
	out := make([]string, 0, len(s.hosts))
	for h := range s.hosts {
		out = append(out, h)
	}
	slices.Sort(out)
	return out
}

// CoversWildcard reports whether a wildcard host rule answers for host (a
// lower-case name; false on a nil set): "*.example.com" covers "a.example.com" and
// "a.b.example.com", as Lookup tries them. It gates on-demand certificates:
// host-less rules answer for every name, and would let any name through.
func (s *Set) CoversWildcard(host string) bool {
	if s == nil || len(s.wild) == 0 {
		return false
	}
	for i := strings.IndexByte(host, '.'); i >= 0; {
		if s.wild[host[i:]] != nil {
			return true
		}
		j := strings.IndexByte(host[i+1:], '.')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// NamesHost reports whether a rule names host (a lower-case name without a
// port) itself, not through a wildcard host; false on a nil set (no rules
// loaded yet).
func (s *Set) NamesHost(host string) bool { return s != nil && s.hosts[host] != nil }

// CoversHost reports whether rules name host (a lower-case name without a
// port): an exact host rule for it or a wildcard host rule above it. It
// gates on-demand certificates, which are issued only for the names the
// rules answer for by host; host-less rules answer for every name and do
// not count. It is a map lookup per label and allocates nothing.
func (s *Set) CoversHost(host string) bool {
	if s.hosts[host] != nil {
		return true
	}
	return s.CoversWildcard(host)
}
