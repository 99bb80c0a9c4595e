package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/config/apache"
	"github.com/redirectd/redirectd/internal/regexsample"
)

// realMaps holds real sites' redirect files, beside the checkout (never
// copied into it); a site of .htaccess files is a folder with www/, its
// DocumentRoot.
var realMaps = filepath.Join("..", "..", "..", "shared", "realmaps")

// TestImportApacheRealSites serves each real site's .htaccess files with
// a real Apache and their import with redirectd, and asks both requests
// made from every Redirect, RedirectMatch and RewriteRule of them, with
// case, slash, query and encoding variants: every answer must agree.
// Directives the import leaves out are listed by it; their requests are
// compared all the same.
//
// REDIRECTD_REALMAPS names another folder of such sites, for material
// that is not in the shared folder.
func TestImportApacheRealSites(t *testing.T) {
	realMaps := realMaps
	if d := os.Getenv("REDIRECTD_REALMAPS"); d != "" {
		realMaps = d
	}
	roots, _ := filepath.Glob(filepath.Join(realMaps, "*", "www"))
	var sites []string
	for _, www := range roots {
		if len(htaccessFiles(t, www)) > 0 {
			sites = append(sites, www)
		}
	}
	if len(sites) == 0 {
		t.Skipf("no real site's .htaccess files under %s (a folder SITE/www/ with .htaccess files, in the shared folder beside the checkout): the real sites are not compared", realMaps)
	}
	for _, www := range sites {
		t.Run(filepath.Base(filepath.Dir(www)), func(t *testing.T) { realApacheSite(t, www) })
	}
}

// htaccessFiles returns the .htaccess files under www, by the URL path of
// their directory.
func htaccessFiles(t *testing.T, www string) map[string]string {
	files := map[string]string{}
	filepath.WalkDir(www, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == ".htaccess" {
			rel, _ := filepath.Rel(www, filepath.Dir(p))
			files["/"+strings.TrimPrefix(filepath.ToSlash(rel), ".")] = p
		}
		return nil
	})
	return files
}

func realApacheSite(t *testing.T, www string) {
	found := htaccessFiles(t, www)
	var dirs []string
	for d := range found {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	paths := map[string]bool{}
	contents := map[string]string{}
	for _, d := range dirs {
		b, err := os.ReadFile(found[d])
		if err != nil {
			t.Fatal(err)
		}
		rel := filepath.Join("www", filepath.FromSlash(strings.TrimPrefix(d, "/")), ".htaccess")
		contents[rel] = string(b)
		parsed, err := apache.Parse(found[d], b)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range samplePaths(parsed, d) {
			paths[p] = true
		}
	}
	var list []string
	for p := range paths {
		list = append(list, p)
	}
	sort.Strings(list)
	// Over plain HTTP and TLS both: real sites send http to https first,
	// and their other rules answer on https only. A real site's rules
	// may answer few of the requests made from them (conditions on
	// files, on headers): one answer of a rule (2 hosts, 2 schemes)
	// shows that Apache read the files; every answer must agree.
	apacheRoundTripEnv(t, func(e apacheEnv) map[string]string {
		out := map[string]string{"httpd.conf": apacheConf(e.dir, e.addr, siteModules()+apacheVhostPair(e, "", ""))}
		for k, v := range contents {
			out[k] = v
		}
		return out
	}, []string{"tree=www"}, []string{"example.test", "www.example.test"}, list, siteKnown(t, www), true, 4*len(list), true)
}

// siteKnown reads SITE/KNOWN, beside www/: lines "SCHEME:* reason", a
// scheme whose answers differ for a construct the import leaves out
// (and lists, with its file:line), as a <If>'s RewriteRule. Its
// requests are asked and not compared; one must still differ.
func siteKnown(t *testing.T, www string) map[string]string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(www), "KNOWN"))
	if err != nil {
		return nil
	}
	known := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, why, ok := strings.Cut(strings.TrimSpace(line), " "); ok && strings.HasSuffix(k, ":*") {
			known[k] = why
			t.Logf("not compared: %s (%s)", k, why)
		}
	}
	return known
}

// siteModules loads the modules whose directives real .htaccess files
// hold beside their redirects (Deny, AddType, Header, DirectoryIndex,
// ExpiresActive, SetEnvIf...): without them Apache answers 500 for every
// path under such a file. DirectorySlash Off: the site's folders are
// only the ones its .htaccess files lie in, and mod_dir's redirect of
// /folder to /folder/ is the files', not the rules' (the import does
// not have the site's files). Not mod_autoindex: it answers a folder
// with 403 where no index file is, which the test would take for a
// rule's [F].
func siteModules() string {
	var b strings.Builder
	for _, m := range []string{"access_compat", "authz_host", "authn_core", "authn_file", "auth_basic", "authz_user",
		"mime", "include", "headers", "dir", "expires", "setenvif", "deflate", "filter", "env"} {
		so := "/usr/lib/apache2/modules/mod_" + m + ".so"
		if _, err := os.Stat(so); err == nil {
			fmt.Fprintf(&b, "LoadModule %s_module %s\n", m, so)
		}
	}
	b.WriteString("<IfModule dir_module>\n    DirectorySlash Off\n</IfModule>\n<IfModule mime_module>\n    TypesConfig /dev/null\n</IfModule>\n")
	return b.String()
}

// samplePaths makes requests for each redirecting directive of a
// .htaccess of the directory dir: its path or a string its regex
// matches, then variants of it.
func samplePaths(dirs []*apache.Directive, dir string) []string {
	var out []string
	var query string  // what the pending conditions ask of the query
	var uris []string // and of the path
	add := func(p string) {
		if !strings.HasPrefix(p, "/") {
			return
		}
		p = clientTarget(p)
		out = append(out, p, p+"/", p+"/x", p+"x", strings.ToUpper(p), p+"?q=1", strings.Replace(p, "/", "//", 1), p+"%20a")
	}
	for _, d := range dirs {
		args := d.Args
		if d.Section {
			// <IfModule mod_rewrite.c> and the like hold most real
			// files' rules.
			out = append(out, samplePaths(d.Block, dir)...)
			continue
		}
		switch strings.ToLower(d.Name) {
		case "redirect", "redirectpermanent", "redirecttemp":
			for _, a := range args {
				if strings.HasPrefix(a, "/") {
					add(a)
					break
				}
			}
		case "redirectmatch":
			if len(args) > 0 {
				add(regexSample(args[len(args)-2]))
			}
		case "rewriterule":
			if len(args) > 0 {
				s := regexSample(args[0])
				if !strings.HasPrefix(s, "/") {
					s = strings.TrimSuffix(dir, "/") + "/" + s
				}
				add(s)
				// With the query its conditions ask for, where they do.
				if query != "" {
					out = append(out, clientTarget(s)+"?"+query)
				}
				for _, u := range uris {
					add(u)
				}
			}
			query, uris = "", nil
		case "rewritecond":
			if len(args) >= 2 && !strings.HasPrefix(args[1], "!") {
				switch args[0] {
				case "%{QUERY_STRING}":
					query = clientTarget(strings.TrimPrefix(regexSample(args[1]), "?"))
				case "%{REQUEST_URI}":
					uris = append(uris, regexSample(args[1]))
				}
			}
		}
	}
	return out
}

// regexSample returns a string the regex matches, "" where there is
// none Go's syntax reads; a RewriteCond's '!' is dropped.
func regexSample(src string) string {
	s, _ := regexsample.Of(strings.TrimPrefix(src, "!"))
	return s
}

// TestImportApacheSiteShapes is TestImportApacheRealSites on two sites
// kept in testdata/apache-sites: a WordPress site's .htaccess with the
// redirects SEO plugins and migrations add, and one of every flag and
// form the self-check's model of Apache follows ([C], [S], [OR], [NE],
// [QSA], [QSD], [END], RewriteBase, nested directories). Each answer
// of Apache's must be the import's, and the model's where it answers.
func TestImportApacheSiteShapes(t *testing.T) {
	t.Parallel()
	for _, site := range []string{"wp", "tricky"} {
		t.Run(site, func(t *testing.T) { realApacheSite(t, filepath.Join("testdata", "apache-sites", site, "www")) })
	}
}
