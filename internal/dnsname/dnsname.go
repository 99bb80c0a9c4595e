// Package dnsname tells whether a string is a host name a certificate
// authority can issue for, by RFC 1123's rules. It is the one such check:
// the config's [acme] hosts and every name ordered on demand pass through
// it, so that no name a CA refuses (an empty label, a label starting or
// ending with a hyphen, an underscore) is ever ordered or spends an order
// budget.
package dnsname

// Valid reports whether name, lower case without a trailing dot, is a DNS
// host name of at least two labels: at most 253 bytes, each label 1 to 63
// of a-z, 0-9 and '-', neither starting nor ending with '-'.
func Valid(name string) bool {
	if len(name) == 0 || len(name) > 253 {
		return false
	}
	labels, start := 0, 0
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '.' {
			c := name[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
			continue
		}
		label := name[start:i]
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		labels++
		start = i + 1
	}
	return labels >= 2
}
