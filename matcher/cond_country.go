package matcher

import (
	"fmt"
	"net/netip"
	"strings"
)

// The when.country condition: the client's country, as the Set's
// country database (SetCountries: a MaxMind file, package geoip) gives
// it for the client's address (Request.Country), is one of the ISO 3166
// alpha-2 codes listed. The list is one condition. No Vary: no field
// says where the client is.
var countryType = condType{key: "country", inWhen: true, inUnless: true,
	has:   func(w *When) bool { return len(w.Country) > 0 },
	count: checksOf[*countryCond],
	words: func(w *When) []string { return w.Country },
	toml:  func(w *When, f TOMLForm) string { return tomlList(w.Country, f) },
	unit:  countryUnit{},
}

type countryUnit struct{}

// countryCond is a compiled when.country.
type countryCond struct{ codes []string }

func (countryUnit) parse(w *When, v any, kind func(any) string) error {
	list, err := condStrings(v, kind)
	if err != nil {
		return err
	}
	for _, cc := range list {
		if err := checkCountry(cc); err != nil {
			return err
		}
	}
	w.Country = append(w.Country, list...)
	return nil
}

func checkCountry(cc string) error {
	if len(cc) != 2 || cc[0] < 'A' || cc[0] > 'Z' || cc[1] < 'A' || cc[1] > 'Z' {
		return fmt.Errorf("%q is not an ISO 3166 alpha-2 country code; write two capital letters such as \"DE\"", cc)
	}
	return nil
}

func (countryUnit) compile(w *When, field string, key *strings.Builder) ([]condCheck, error) {
	if len(w.Country) == 0 {
		return nil, nil
	}
	for _, cc := range w.Country {
		if err := checkCountry(cc); err != nil {
			return nil, fieldErr(field+".country", "%v", err)
		}
		key.WriteString("c" + cc + "\x00")
	}
	return []condCheck{&countryCond{codes: w.Country}}, nil
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

func (countryUnit) text(w *When) []string {
	return []string{"country = " + strings.Join(w.Country, ", ")}
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
