package matcher

import (
	"fmt"
	"net/netip"
)

// The when.country condition: the client's country, as the Set's
// country database (SetCountries: a MaxMind file, package geoip) gives
// it for the client's address (Request.Country), is one of the ISO 3166
// alpha-2 codes listed. The list is one condition. No Vary: no field
// says where the client is.
var countryType = countryList.condType(checksOf[*countryCond], countryUnit{countryList})

var countryList = listUnit{key: "country", tag: "c", check: checkCountry,
	list: func(w *When) *[]string { return &w.Country },
	cond: func(codes []string) condCheck { return &countryCond{codes} }}

type countryUnit struct{ listUnit }

// countryCond is a compiled when.country.
type countryCond struct{ codes []string }

func checkCountry(cc string) error {
	if len(cc) != 2 || cc[0] < 'A' || cc[0] > 'Z' || cc[1] < 'A' || cc[1] > 'Z' {
		return fmt.Errorf("%q is not an ISO 3166 alpha-2 country code; write two capital letters such as \"DE\"", cc)
	}
	return nil
}

func (c *countryCond) holds(m *Match) bool {
	cc := m.Req.Country()
	for _, code := range c.codes {
		if code == cc {
			return true
		}
	}
	return false
}

func (countryUnit) got(_ *When, _ int, m *Match) string {
	if cc := m.Req.Country(); cc != "" {
		return "the client is in " + cc
	}
	return "the client's country is unknown"
}

func (countryUnit) vary(*When) []string { return nil }

// Countries gives the country of a client address: a MaxMind database
// (package geoip), held by the Set so that a reload swaps both at once.
type Countries interface {
	// Country returns addr's ISO 3166 code in upper case, "" when unknown.
	Country(addr netip.Addr) string
}

// SetCountries gives s the country database its when.country rules read.
// Call it before the Set serves.
func (s *Set) SetCountries(c Countries) { s.countries = c }

// Countries returns the database given to SetCountries, or nil.
func (s *Set) Countries() Countries { return s.countries }
