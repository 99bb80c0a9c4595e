package netlify

import (
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/matcher"
)

// when reads the rule's conditions as redirectd's: Language= becomes
// when.language, Country= when.country when the config will have a
// country database (opt.GeoIP). It returns why it cannot when one does
// not translate: Role= (Netlify Identity's JWT roles, which redirectd
// cannot know), Cookie= with several names (any one of them; when.cookie
// asks for all), Country= without -geoip. Cookie= with one name becomes
// when.cookie asking for it with any value ("*").
func (r *Redirect) when(opt importer.Options) (*matcher.When, string) {
	if len(r.Conditions) == 0 {
		return nil, ""
	}
	w := &matcher.When{}
	var why []string
	for _, c := range r.Conditions {
		key, value, _ := strings.Cut(c, "=")
		var values []string
		for _, v := range strings.Split(value, ",") {
			if v = strings.TrimSpace(v); v != "" {
				values = append(values, v)
			}
		}
		switch k := strings.ToLower(key); {
		case len(values) == 0:
			why = append(why, fmt.Sprintf("%s lists no value", c))
		case k == "language":
			w.Language = append(w.Language, values...)
		case k == "country" && opt.GeoIP == "":
			why = append(why, fmt.Sprintf("%s needs a country database: give import -geoip FILE (a MaxMind GeoLite2-Country.mmdb) to write it as when.country with [geoip] database = FILE", c))
		case k == "country":
			for _, v := range values {
				w.Country = append(w.Country, strings.ToUpper(v))
			}
		case k == "role":
			why = append(why, fmt.Sprintf("%s reads the roles of the visitor's Netlify Identity token, which redirectd cannot know", c))
		case k == "cookie" && len(values) > 1:
			why = append(why, fmt.Sprintf("%s asks for any one of several cookies; redirectd's when.cookie asks for all it names", c))
		case k == "cookie":
			w.Cookie = append(w.Cookie, matcher.KeyValue{Name: values[0], Value: matcher.AnyValue}) // present, with any value
		}
	}
	if len(why) > 0 {
		return nil, strings.Join(why, "; ")
	}
	return w, ""
}
