package matcher

import (
	"slices"
)

// Hosts returns the exact hosts the rules name, sorted: the names a
// certificate is obtained for when [acme] hosts = "rules". Wildcard hosts
// ("*.example.com") are left out: a certificate for one needs the DNS-01
// challenge; CoversWildcard answers for the names under them.
func (s *Set) Hosts() []string {
	out := make([]string, 0, s.hosts.NameCount())
	s.hosts.Names(func(h string, _ *hostRules) { out = append(out, h) })
	slices.Sort(out)
	return out
}

// CoversWildcard reports whether a wildcard host rule answers for host (a
// lower-case name; false on a nil set): "*.example.com" covers "a.example.com" and
// "a.b.example.com", as Lookup tries them. It gates on-demand certificates:
// host-less rules answer for every name, and would let any name through.
func (s *Set) CoversWildcard(host string) bool {
	if s == nil {
		return false
	}
	_, _, ok := s.hosts.WildString(host, 0)
	return ok
}

// NamesHost reports whether a rule names host (a lower-case name without a
// port) itself, not through a wildcard host; false on a nil set (no rules
// loaded yet).
func (s *Set) NamesHost(host string) bool {
	if s == nil {
		return false
	}
	_, ok := s.hosts.ExactString(host)
	return ok
}

// CoversHost reports whether rules name host (a lower-case name without a
// port): an exact host rule for it or a wildcard host rule above it. It
// gates on-demand certificates, which are issued only for the names the
// rules answer for by host; host-less rules answer for every name and do
// not count. It is a map lookup per label and allocates nothing.
func (s *Set) CoversHost(host string) bool {
	if _, ok := s.hosts.ExactString(host); ok {
		return true
	}
	return s.CoversWildcard(host)
}
