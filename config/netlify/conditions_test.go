package netlify

import (
	"strings"
	"testing"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/importer/importertest"
	"github.com/redirectd/redirectd/matcher"
)

// TestTranslateConditions checks how each Netlify condition is written:
// Language= as when.language, Country= as when.country (upper case) with
// -geoip only, and Role=, Cookie= and Country= without -geoip left out
// with a note that says why; the same from netlify.toml's conditions.
func TestTranslateConditions(t *testing.T) {
	geo := importer.Options{GeoIP: "/db/country.mmdb"}
	for _, tc := range []struct {
		name, src string
		opt       importer.Options
		want      *matcher.When // nil: left out
		note      string        // a note's text, when one is expected
	}{
		{"language", "/ /de/ 302 Language=de", importer.Options{}, &matcher.When{Language: []string{"de"}}, "this rule has Language=, written as when.language"},
		{"languages", "/ /x/ 302 Language=en,es-MX", importer.Options{}, &matcher.When{Language: []string{"en", "es-MX"}}, ""},
		{"country without -geoip", "/ /uk/ 302 Country=gb,ie", importer.Options{}, nil, "Country=gb,ie needs a country database: give import -geoip FILE"},
		{"country", "/ /uk/ 302 Country=gb,ie", geo, &matcher.When{Country: []string{"GB", "IE"}}, "this rule has Country=, written as when.country"},
		{"both", "/ /at/ 302 Country=at Language=de", geo, &matcher.When{Language: []string{"de"}, Country: []string{"AT"}}, ""},
		{"role", "/admin/* /login 302 Role=admin", geo, nil, "Role=admin reads the roles of the visitor's Netlify Identity token"},
		{"cookie", "/beta /new 302 Cookie=beta", geo, &matcher.When{Cookie: []matcher.KeyValue{{Name: "beta", Value: "*"}}}, ""},
		{"cookies", "/beta /new 302 Cookie=beta,preview", geo, nil, "Cookie=beta,preview asks for any one of several cookies"},
		{"language and role", "/ /x/ 302 Language=de Role=admin", geo, nil, "Role=admin reads"},
		{"empty", "/ /x/ 302 Language=", geo, nil, "Language= lists no value"},
		{"not a range", "/ /x/ 302 Language=d_e", geo, nil, `when.language: "d_e" is not a language range`},
		{"not a country", "/ /x/ 302 Country=usa", geo, nil, `when.country: "USA" is not an ISO 3166 alpha-2 country code`},
		{"toml", "[[redirects]]\nfrom = \"/\"\nto = \"/fr/\"\nconditions = {Language = [\"fr\"], Country = [\"fr\", \"be\"]}\n", geo,
			&matcher.When{Language: []string{"fr"}, Country: []string{"FR", "BE"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := "_redirects"
			if strings.HasPrefix(tc.src, "[[") {
				file = "netlify.toml"
			}
			cands, notes, err := Load(file, []byte(tc.src), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			importertest.CheckWhen(t, cands, notes, tc.want, tc.note)
		})
	}
}
