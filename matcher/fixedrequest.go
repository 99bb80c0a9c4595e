package matcher

import (
	"net/netip"
	"strings"
)

// FixedRequest is a request given by its parts rather than read off the
// wire: the one view of a request that the tools share (explain and the
// admin /explain, test's report, check -baseline, the draft view, the
// importers' self-checks), so that a condition reading something new
// needs it added once. The engine keeps its own view, which reads the
// parsed request in place and allocates nothing; FixedRequest's Header
// allocates.
type FixedRequest struct {
	// Fields are the header fields in order; Header returns the first of
	// a name.
	Fields []KeyValue
	// Client is the client's address, invalid when unknown.
	Client netip.Addr
	// CountryCode is the client's country; when "", Country looks Client
	// up in Countries (nil: unknown).
	CountryCode string
	Countries   Countries
	// Verb is the method, "" for GET.
	Verb string
	// TLS: the request came over TLS, or marked so by a trusted
	// terminator (when.scheme).
	TLS bool
}

var _ ClientRequest = (*FixedRequest)(nil)

// Header returns the value of the first field named name, case ignored.
func (r *FixedRequest) Header(name []byte) []byte {
	for _, f := range r.Fields {
		if strings.EqualFold(f.Name, string(name)) {
			return []byte(f.Value)
		}
	}
	return nil
}

// Country returns CountryCode, or Client's country in Countries.
func (r *FixedRequest) Country() string {
	if r.CountryCode != "" || r.Countries == nil || !r.Client.IsValid() {
		return r.CountryCode
	}
	return r.Countries.Country(r.Client)
}

// HTTPS returns TLS.
func (r *FixedRequest) HTTPS() bool { return r.TLS }

// ClientAddr returns Client.
func (r *FixedRequest) ClientAddr() netip.Addr { return r.Client }

// Method returns Verb, GET when "".
func (r *FixedRequest) Method() []byte {
	if r.Verb == "" {
		return []byte("GET")
	}
	return []byte(r.Verb)
}
