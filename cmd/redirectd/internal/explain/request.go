package explain

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// Fields are explain's -H flags: the request's header fields, for
// rules with when conditions on language, header or cookie.
type Fields []matcher.KeyValue

func (f *Fields) String() string {
	s := make([]string, len(*f))
	for i, kv := range *f {
		s[i] = kv.Name + ": " + kv.Value
	}
	return strings.Join(s, ", ")
}

func (f *Fields) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	if !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("%q is not a header field; write it as 'Name: value', such as 'Accept-Language: de'", v)
	}
	*f = append(*f, matcher.KeyValue{Name: name, Value: strings.TrimSpace(value)})
	return nil
}

// ParseClient reads explain's -client flag: "" for none.
func ParseClient(s string) (netip.Addr, error) {
	if s == "" {
		return netip.Addr{}, nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("client %q is not an IP address, such as 203.0.113.9", s)
	}
	return a, nil
}
