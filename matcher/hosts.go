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
// lower-case name): "*.example.com" covers "a.example.com" and
// "a.b.example.com", as Lookup tries them. It gates on-demand certificates:
// host-less rules answer for every name, and would let any name through.
func (s *Set) CoversWildcard(host string) bool {
	if len(s.wild) == 0 {
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
