package explain

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// Fields are explain's -H flags: the request's header fields, for
// rules with when conditions on language, header or cookie.
type Fields []string

func (f *Fields) String() string { return strings.Join(*f, ", ") }

func (f *Fields) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	if !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("%q is not a header field; write it as 'Name: value', such as 'Accept-Language: de'", v)
	}
	*f = append(*f, name+":"+strings.TrimSpace(value))
	return nil
}

// Request is the request explain asks about, as conditions read it
// (matcher.Request): the -H fields and the -client address's country in
// the config's [geoip] database.
type Request struct {
	Fields Fields     // the -H fields
	Client netip.Addr // the -client address, invalid for none
	Set    *matcher.Set
	// Verb is the request's method, "" for GET.
	Verb string
	// https: the URL asked about is https://.
	https bool
}

// Method is Verb, GET when not given (matcher.ClientRequest).
func (r *Request) Method() []byte {
	if r.Verb == "" {
		return []byte("GET")
	}
	return []byte(r.Verb)
}

// ClientAddr is the -client address (matcher.ClientRequest), invalid
// for none.
func (r *Request) ClientAddr() netip.Addr { return r.Client }

func (r *Request) Header(name []byte) []byte {
	for _, f := range r.Fields {
		n, v, _ := strings.Cut(f, ":")
		if strings.EqualFold(n, string(name)) {
			return []byte(v)
		}
	}
	return nil
}

func (r *Request) HTTPS() bool { return r.https }

func (r *Request) Country() string {
	db := r.Set.Countries()
	if db == nil || !r.Client.IsValid() {
		return ""
	}
	return db.Country(r.Client)
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

var _ matcher.ClientRequest = (*Request)(nil)
