package config_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// loadText loads a config named c.toml with the map file r.map beside it.
func loadText(toml, mapFile string) (*config.Config, error) {
	return config.LoadFS(fstest.MapFS{
		"c.toml": {Data: []byte(toml)},
		"r.map":  {Data: []byte(mapFile)},
	}, "c.toml")
}

// checkLoaded holds for every load: an error names a file and a line or the
// config file; a success has every rule placed and compiled.
func checkLoaded(t *testing.T, cfg *config.Config, err error) {
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(line, "c.toml") && !strings.HasPrefix(line, "r.map:") &&
				!strings.HasPrefix(line, "cannot read config") && !strings.HasPrefix(line, "and ") {
				t.Fatalf("error line %q does not say where", line)
			}
		}
		return
	}
	if cfg.Set.Len() != len(cfg.Set.Rules()) {
		t.Fatalf("%d rules, %d compiled", len(cfg.Set.Rules()), cfg.Set.Len())
	}
	for _, r := range cfg.Set.Rules() {
		if r.File == "" || r.Line <= 0 {
			t.Fatalf("rule %+v has no source", r)
		}
	}
}

func FuzzLoad(f *testing.F) {
	f.Add("[server]\nlisten = \"127.0.0.1:1\"\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nstatus = 302\n")
	f.Add("[[rule]]\nmatch = \"regex\"\nfrom = '^/(\\d+)$'\nto = \"/$1\"\nhost = \"x.com\"\n")
	f.Add("[[rule]]\nmatch = \"prefix\"\nfrom = \"/p/\"\nto = \"/q/\"\n[[map]]\nfile = \"r.map\"\n")
	f.Add("[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nquery = { ref = \"*\", u = \"x y\" }\nhost = [\"bücher.example\", \"*.ÜBER.example\"]\n")
	f.Add("[[rule]]\nfrom = \"/a\"\ntraget = \"/b\"\n")
	f.Add("[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nmode = \"shadow\"\nactive = { from = 2026-12-01T00:00:00Z, until = \"2027-01-07T00:00:00+01:00\" }\n")
	f.Add("[[map]]\nfile = \"r.map\"\nactive = { until = 2026-12-01T00:00:00 }\n")
	f.Add("[[rule]]\nfrom = '''\n/a\n'''\nto = \"/b\"\n[[rule]]\nfrom = 3\n")
	f.Add("[server]\nheaders = { X-Frame-Options = \"DENY\" }\n[[rule]]\nfrom = \"/g\"\nstatus = 410\nheaders = { Cache-Control = \"max-age=60\" }\n")
	f.Add("[rules.defaults]\nfallback = true\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nfallback_status = [404, 410]\n[[map]]\nfile = \"r.map\"\nfallback = false\nfallback_status = [200]\n")
	f.Add("[[rule]]\nfrom = \"/h\"\nto = \"/de/\"\nwhen = { language = [\"de\", \"de-*\"], header = { X-Device = \"mobile\" }, cookie = { lang = \"fr\" } }\n[[rule]]\nfrom = \"/h\"\nto = \"/en/\"\n")
	f.Add("[[map]]\nfile = \"r.map\"\nstatus = 451\nwhen = { country = \"AT\" }\nheaders = { Link = \"<x>\" }\n[misses]\ncapacity = 64\n")
	f.Add("[[rule]]\nfrom = \"/w\"\nto = \"/n\"\nwhen = { cookie = { s = \"*\" }, unless = { cookie = { seen = \"*\" }, header = { X-Beta = \"1\" }, query = { stay = \"*\" }, language = \"de\" } }\n")
	f.Add("[upstream]\nservers = [\"127.0.0.1:9\"]\n[[location_map]]\nvariable = \"$m\"\nsource = \"$uri\"\nfile = \"r.map\"\n[[server_rewrite]]\nhost = '~^(?<s>.+)\\.test$'\ndefault_server_ports = [80]\nsteps = \"error_page 404 @n;\"\n[[location]]\nhosts = [\"*.a.com\", \".b.com\", \"www.c.*\"]\npath = \"/\"\nupstream = \"default\"\nintercept_errors = true\nsteps = \"return 302 /$m;\"\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		cfg, err := loadText(text, "/m /n;\n")
		checkLoaded(t, cfg, err)
	})
}

func FuzzMapFile(f *testing.F) {
	f.Add("/a /b;\n")
	f.Add("# c\n\"/a b\" '/c';\n~^/x/(\\d+)$ /y/$1;\n~*^/Z$ /z;\n")
	f.Add("default /x;\n")
	f.Add("/a /b /c;\n/d")
	f.Add("volatile;\ndefault \"\";\n\"~^/GPT-3\\).*$\" \"/gpt-3\";\n\"~*^/x.*$\" \"\";\n\\/e /f;\n")
	f.Add("~^/a{2}$ /b;\n}\n\"/c\"/d /e;\n/f\\ g /h#i;\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		cfg, err := loadText("[[map]]\nfile = \"r.map\"\nstatus = 302\n", text)
		checkLoaded(t, cfg, err)
		if err == nil {
			for _, r := range cfg.Set.Rules() {
				if r.File != "r.map" || r.Status != 302 && !r.Pass {
					t.Fatalf("map rule %+v lost its file or status", r)
				}
			}
		}
		// With invalid = "skip", only what cannot be left out entry by
		// entry fails the load: a quote never closed, which hides the
		// rest of the file, and duplicates found once the map is read.
		cfg, err = loadText("[[map]]\nfile = \"r.map\"\nstatus = 302\ninvalid = \"skip\"\n", text)
		checkLoaded(t, cfg, err)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.Contains(line, "quoted word not closed") && !strings.Contains(line, "duplicate") && !strings.HasPrefix(line, "and ") {
					t.Fatalf("invalid = \"skip\" failed the load: %q", line)
				}
			}
			return
		}
		for _, e := range cfg.Skipped {
			if e.File != "r.map" || e.Line < 1 || e.Line > strings.Count(text, "\n")+1 {
				t.Fatalf("skipped entry %v is not placed in the file", e)
			}
		}
	})
}

func FuzzCSV(f *testing.F) {
	f.Add("source,target,status\n/a,/b,301\nexample.com/c,https://x/d,302,false,true,true\n")
	f.Add("\"/a,b\",/c,\n# c\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		rules, bad := config.ReadCSV("bulk.csv", []byte(text))
		// A bad row says where it is, and costs that row only: every
		// line holds at most one rule's row or one bad row.
		lines := map[int]bool{}
		for _, e := range bad {
			if !strings.HasPrefix(e.Error(), "bulk.csv:") || e.Line <= 0 || lines[e.Line] {
				t.Fatalf("bad row %q does not say where, or twice", e.Error())
			}
			lines[e.Line] = true
		}
		for _, r := range rules {
			if lines[r.Line] {
				t.Fatalf("line %d is both a rule and a bad row", r.Line)
			}
			if r.Line <= 0 || !matcher.ValidStatus(r.Status) || r.From == "" {
				t.Fatalf("bad rule %+v", r)
			}
		}
	})
}
