package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/config/geoip/geoiptest"
	"github.com/redirectd/redirectd/config/importer/importertest"
	"github.com/redirectd/redirectd/engine/testport"
)

// hostedCase is a request and the answer the service gives it, as its
// documentation describes: status and Location (0 and "" for a miss,
// which redirectd answers 404 without an upstream).
type hostedCase struct {
	host, target string
	status       int
	location     string
}

// condCase is a hostedCase asked with more header lines (each ending in
// "\r\n"): Accept-Language, X-Forwarded-For, a header or a cookie that a
// rule's conditions read.
type condCase struct {
	hostedCase
	headers string
}

// serveOpts are what a test gives the import and the server beyond the
// source: more import flags (-geoip FILE) and more [server] keys.
type serveOpts struct {
	args   []string
	server string
}

// serveImportWith runs `redirectd import KIND -o FILE SOURCE` with the
// built binary and the options, then serves the config written (behind a
// [server] table) and asks it each case on loopback, reading the raw
// answer.
func serveImportWith(t *testing.T, kind, source string, o serveOpts, cases []condCase) string {
	t.Helper()
	bin := buildBinary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "imported.toml")
	args := append(append([]string{"import", kind}, o.args...), "-o", out, source)
	code, _, report := runBinary(t, bin, args...)
	if code != 0 {
		t.Fatalf("import %s: exit %d\n%s", kind, code, report)
	}
	imported, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	addr := testport.Free(t)
	file := filepath.Join(dir, "redirectd.toml")
	os.WriteFile(file, fmt.Appendf(nil, "[server]\nlisten = %q\n%s\n[admin]\nlisten = \"off\"\n\n[access_log]\nenabled = false\n\n%s", addr, o.server, imported), 0o644)
	startNode(t, nodeConfig{File: file, Bin: bin})
	if _, _, err := firstAnswer(addr, "/", time.Now().Add(10*time.Second)); err != nil {
		t.Fatalf("no answer: %v", err)
	}
	for _, c := range cases {
		status, loc := rawAnswerWith(t, addr, c.host, c.target, c.headers)
		want := c.status
		if want == 0 {
			want = 404
		}
		if status != want || loc != c.location {
			t.Errorf("%s%s %q: %d %q, want %d %q", c.host, c.target, c.headers, status, loc, want, c.location)
		}
	}
	return report
}

func runBinary(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := execCommand(bin, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		code = cmd.ProcessState.ExitCode()
	}
	return code, stdout.String(), stderr.String()
}

// TestImportNetlifyServes imports the docs site's _redirects (305 lines
// of comments, domain moves, literal moves with and without status or
// trailing slash, splats, placeholders, query parameters, forced rules,
// 200 rewrites and proxies, 404 pages, conditions, a shadowed rule) and
// checks the answers of the real server against Netlify's documented
// behaviour: first match in file order, trailing slash ignored, query
// passed on unless the rule matches on it.
func TestImportNetlifyServes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const d = "docs.example.dev"
	cases := []hostedCase{
		{"old-docs.example.dev", "/guides/secrets", 301, "https://docs.example.dev/guides/secrets"},
		{"www.docs.example.dev", "/x?y=1", 301, "https://docs.example.dev/x?y=1"},
		{d, "/install.html", 302, "/docs/install/"},
		{d, "/configure.html", 301, "/docs/configure/"},
		{d, "/upgrade.html", 301, "/docs/upgrade/"}, // no status: 301
		{d, "/upgrade.html/?from=mail", 301, "/docs/upgrade/?from=mail"},
		{d, "/FAQ", 301, "/docs/faq/"},
		{d, "/faq", 0, ""}, // paths are case-sensitive
		{d, "/index.html", 301, "/"},
		{d, "/docs/v1/install", 301, "/docs/v2/install"}, // the splat comes first
		{d, "/docs/v1", 301, "/docs/v2/"},
		{d, "/docs/latest/api/keys", 302, "/docs/v3/api/keys"},
		{d, "/docs/stable/", 302, "/docs/v3/"},
		{d, "/api/v2/reference/auth", 301, "/reference/v2/auth"},
		{d, "/api/v3/changelog", 301, "/changelog/#v3"},
		{d, "/sdk/go/any/thing", 301, "/docs/sdk-go/"},
		{d, "/blog/2021/03/04/hello-world", 301, "/blog/hello-world"},
		{d, "/news/launch", 301, "/blog/launch"},
		{d, "/rss", 301, "/blog/rss.xml"},
		{d, "/blog/tag/go/", 301, "/blog/tags/go/"},
		{d, "/blog/category/x/y", 302, "/blog/"},
		{d, "/signup?ref=twitter", 302, "/register?source=twitter"},
		{d, "/signup?x=1&ref=hn", 302, "/register?source=hn"},
		{d, "/signup", 302, "/register"},
		{d, "/signup?other=1", 302, "/register?other=1"},
		{d, "/pricing?plan=team", 302, "/pricing/team/"},
		{d, "/pricing?plan=pro", 302, "/pricing/"},
		{d, "/pricing", 0, ""},
		{d, "/search?q=redirects", 302, "/docs/search/?query=redirects"},
		{d, "/go/spring", 302, "https://www.example.dev/campaigns/spring/"},
		{d, "/try?utm_source=newsletter&utm_medium=email", 302, "/register?from=newsletter"},
		{d, "/try?utm_source=newsletter", 0, ""},
		{d, "/app/dashboard", 0, ""}, // a 200 rewrite: not translated
		{d, "/legacy-api", 0, ""},    // 410: not translated
		{d, "/tutorials/first-project", 308, "/docs/reference/first-project/"},
		{d, "/tutorials/first-project/", 308, "/docs/reference/first-project/"},
		{d, "/integrations/service-accounts", 301, "/docs/how-to/service-accounts/"},
		{d, "/tutorials/new-thing", 301, "/docs/tutorials/new-thing"},
		{d, "/integrations/slack", 301, "https://integrations.example.dev/slack"},
		{d, "/unknown", 0, ""},
	}
	// Lines 85 and 86: / to /de/ for Language=de, to /uk/ for Country=gb,ie.
	asked := append(plain(cases),
		condCase{hostedCase{d, "/", 302, "/de/"}, "Accept-Language: de\r\n"},
		condCase{hostedCase{d, "/?x=1", 302, "/de/?x=1"}, "Accept-Language: de-AT, en;q=0.5\r\n"},
		condCase{hostedCase{d, "/", 0, ""}, "Accept-Language: en, de;q=0.9\r\n"}, // prefers English
		condCase{hostedCase{d, "/", 302, "/uk/"}, "X-Forwarded-For: 192.0.2.10\r\n"},
		condCase{hostedCase{d, "/", 302, "/de/"}, "X-Forwarded-For: 192.0.2.10\r\nAccept-Language: de\r\n"}, // line 85 first
		condCase{hostedCase{d, "/", 0, ""}, "X-Forwarded-For: 198.51.100.7\r\n"},
		condCase{hostedCase{d, "/", 0, ""}, ""},
	)
	report := serveImportWith(t, "netlify", filepath.Join(importertest.Extract(t, "../../config/netlify/testdata/import/docs.txt"), "_redirects"), geoipOpts(t), asked)
	for _, want := range []string{"_redirects:57: /docs/v1/install /docs/v2/getting-started 301 never applies: line 55", "_redirects:82: /app/* /app/index.html 200: a rewrite (200)",
		"_redirects:85: this rule has Language=, written as when.language", "_redirects:86: this rule has Country=, written as when.country",
		"_redirects:87: /admin/* /admin/:splat 200! Role=admin: Role=admin reads the roles"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
}

// plain turns cases into condCases without header lines.
func plain(cases []hostedCase) []condCase {
	out := make([]condCase, len(cases))
	for i, c := range cases {
		out[i].hostedCase = c
	}
	return out
}

// geoipOpts writes a country database (192.0.2.0/25 GB, 192.0.2.128/25
// CH, 198.51.100.0/24 AT, 203.0.113.0/24 FR), gives it to the import with
// -geoip, and has the server believe X-Forwarded-For from loopback, so
// that a request names its client's country.
func geoipOpts(t *testing.T) serveOpts {
	db := geoiptest.Write(t, map[string]string{"192.0.2.0/25": "GB", "192.0.2.128/25": "CH", "198.51.100.0/24": "AT", "203.0.113.0/24": "FR"})
	return serveOpts{args: []string{"-geoip", db}, server: "trusted_proxies = [\"127.0.0.1\"]\n"}
}

// TestImportNetlifyConditionsServes imports the conditions folder's
// _redirects with -geoip and asks the real server as clients of several
// languages and countries: the answers are Netlify's first match in file
// order, for each client, where redirectd's own precedence (rules with
// conditions first for one path, exact before prefix before regex) would
// differ unless the import wrote the rules to keep it.
func TestImportNetlifyConditionsServes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const h = "example.com"
	de, fr, at := "Accept-Language: de\r\n", "Accept-Language: fr-BE, de;q=0.5\r\n", "X-Forwarded-For: 198.51.100.7\r\n"
	report := serveImportWith(t, "netlify", filepath.Join(importertest.Extract(t, "../../config/netlify/testdata/import/conditions.txt"), "_redirects"), geoipOpts(t), []condCase{
		{hostedCase{h, "/", 302, "/de/"}, de},
		{hostedCase{h, "/", 302, "/fr/"}, fr + "X-Forwarded-For: 203.0.113.5\r\n"},
		{hostedCase{h, "/", 302, "/en/"}, fr}, // no country: line 7 needs FR or BE
		{hostedCase{h, "/", 302, "/en/"}, "Accept-Language: en, de;q=0.9\r\n"},
		{hostedCase{h, "/", 302, "/en/"}, ""},
		{hostedCase{h, "/about", 301, "/company"}, de}, // line 12 never applies
		{hostedCase{h, "/blog/feed", 302, "/de/blog/feed"}, de},
		{hostedCase{h, "/blog/feed/", 302, "/de/blog/feed/"}, de},
		{hostedCase{h, "/blog/feed", 301, "/feed.xml"}, ""},
		{hostedCase{h, "/blog/other", 0, ""}, ""},
		{hostedCase{h, "/blog", 302, "/de/blog/"}, de},
		{hostedCase{h, "/shop/cart", 302, "/at/shop/cart"}, at},
		{hostedCase{h, "/shop/cart", 302, "/cart"}, ""},
		{hostedCase{h, "/shop/cart", 302, "/cart"}, "X-Forwarded-For: 203.0.113.5\r\n"},
		{hostedCase{h, "/shop/shoes", 302, "/at/shop/shoes"}, at},
		{hostedCase{h, "/docs/a/b", 302, "/docs/es/a/b"}, "Accept-Language: pt-BR\r\n"},
		{hostedCase{h, "/docs/a/b", 0, ""}, de},
		{hostedCase{"shop.example.com", "/sale", 302, "https://shop.example.com/ch/sale"}, "X-Forwarded-For: 192.0.2.200\r\n"},
		{hostedCase{"shop.example.com", "/sale", 0, ""}, "X-Forwarded-For: 192.0.2.10\r\n"},
		{hostedCase{h, "/sale", 0, ""}, "X-Forwarded-For: 192.0.2.200\r\n"},
		{hostedCase{h, "/members/x", 0, ""}, ""},                         // Role=: left out
		{hostedCase{h, "/beta", 302, "/beta/new"}, "Cookie: beta=1\r\n"}, // Cookie=: present, any value
		{hostedCase{h, "/beta", 302, "/beta/new"}, "Cookie: a=1; beta=\r\n"},
		{hostedCase{h, "/beta", 0, ""}, "Cookie: betas=1\r\n"},
		{hostedCase{h, "/beta", 0, ""}, ""},
		{hostedCase{h, "/app/old", 301, "/app/new"}, ""},
	})
	for _, want := range []string{"_redirects:12: /about /de/firma 301 Language=de never applies: line 11 comes first",
		"_redirects:31: /app/old (Accept-Language: de): line 31 (a 200 rewrite, not translated) applies, redirectd answers with line 32"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
}

// TestImportNetlifyCountryNeedsGeoIP checks that without -geoip a
// Country= rule is left out with a note that says what to give, and that
// -geoip with a file that is not a database is refused.
func TestImportNetlifyCountryNeedsGeoIP(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("_redirects", []byte("/ /uk/ 302 Country=gb\n/ /de/ 302 Language=de\n"), 0o644)
	code, cfg, report := runCmd("import", "netlify", "_redirects")
	if code != 0 || strings.Contains(cfg, "country") || !strings.Contains(cfg, "when = { language = ['de'] }") ||
		!strings.Contains(report, "_redirects:1: / /uk/ 302 Country=gb: Country=gb needs a country database: give import -geoip FILE") {
		t.Errorf("exit %d\n%s\n%s", code, cfg, report)
	}
	os.WriteFile("not.mmdb", []byte("no"), 0o644)
	code, _, report = runCmd("import", "netlify", "-geoip", "not.mmdb", "_redirects")
	if code != 1 || !strings.Contains(report, "-geoip:") || !strings.Contains(report, "is not a MaxMind database") {
		t.Errorf("exit %d\n%s", code, report)
	}
}

// TestImportVercelServes does the same for an app's vercel.json: host
// rules, literal sources, :param, :param*, :param+, :param?, (.*) with
// $1, custom patterns, has on host and query, permanent and statusCode.
func TestImportVercelServes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const h = "acme.dev"
	cases := []hostedCase{
		{"acme.io", "/", 308, "https://acme.dev/"},
		{"www.acme.dev", "/docs/intro?x=1", 308, "https://acme.dev/docs/intro?x=1"},
		{h, "/docs", 307, "/docs/getting-started"},
		{h, "/docs/v1/guides/setup", 308, "/docs/v2/guides/setup"},
		{h, "/docs/v3/api/users", 308, "/reference/v3/users"},
		{h, "/docs/v4/api/users", 0, ""},
		{h, "/blog/2024/05/launch", 301, "/blog/launch"},
		{h, "/blog/launch", 308, "/articles/launch"},
		{h, "/blog/archive", 308, "/articles/archive"}, // the :slug entry comes first
		{h, "/blog/launch/", 0, ""},                    // strict about the trailing slash
		{h, "/changelog", 308, "https://github.com/acme/app/releases/"},
		{h, "/changelog/v2.1", 308, "https://github.com/acme/app/releases/v2.1"},
		{h, "/old-blog/a/b", 308, "/blog/a/b"},
		{h, "/team/jane/doe", 308, "/about/team/jane/doe"},
		{h, "/team", 0, ""},
		{h, "/files/report.pdf", 307, "https://cdn.acme.dev/files/report.pdf"},
		{h, "/discord", 307, "https://discord.gg/acme"},
		{h, "/careers", 302, "https://jobs.acme.dev"},
		{h, "/pricing?plan=enterprise", 308, "/contact-sales?plan=enterprise"},
		{h, "/pricing?ref=x", 308, "/pricing/referral?ref=x"},
		{h, "/pricing", 0, ""},
		{h, "/api/v1/users/1", 308, "/api/v2/users/1"},
		{h, "/shop/shoes/42", 308, "/store/shoes/items/42"},
		{h, "/shop/shoes/x", 0, ""},
		{h, "/legacy/page.php", 301, "/"},
		{h, "/help/billing/invoices", 308, "https://help.acme.dev/billing/invoices"},
		{h, "/news/acme-2-0", 308, "/blog/acme-2-0"},
		{h, "/news/intro-to-acme", 307, "/blog/intro-to-acme"},
		{h, "/gone", 0, ""},
		{h, "/dashboard/x", 307, "/login"}, // missing cookie session: when.unless
	}
	// Entries 18 and 19: / to /de for the header x-vercel-ip-country: DE,
	// to /fr for the cookie lang=fr.
	asked := append(plain(cases),
		condCase{hostedCase{h, "/", 307, "/de"}, "X-Vercel-IP-Country: DE\r\n"},
		condCase{hostedCase{h, "/", 307, "/fr"}, "Cookie: a=1; lang=fr\r\n"},
		condCase{hostedCase{h, "/", 307, "/de"}, "Cookie: lang=fr\r\nx-vercel-ip-country: DE\r\n"}, // entry 18 first
		condCase{hostedCase{h, "/", 0, ""}, "X-Vercel-IP-Country: de\r\nCookie: lang=FR\r\n"},      // values compared whole, with case
		condCase{hostedCase{h, "/dashboard/x", 0, ""}, "Cookie: session=abc\r\n"},                  // the cookie is there
	)
	report := serveImportWith(t, "vercel", filepath.Join(importertest.Extract(t, "../../config/vercel/testdata/import/app.txt"), "vercel.json"), serveOpts{}, asked)
	for _, want := range []string{"redirects[29]: json: unknown field \"basePath\"\n", "lookarounds such as (?!...) have no equivalent",
		"trailingSlash: false makes Vercel redirect (308)",
		"redirects[18] / -> /de: x-vercel-ip-country is a header Vercel's edge sets"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
}

// TestImportVercelConditionsServes imports the conditions folder's
// vercel.json and asks the real server with headers and cookies: has on a
// header or cookie with a literal value is when.header or when.cookie,
// one without a value asks for the field or cookie with any ("*"),
// missing is when.unless; one with a regex is left out; and the answers
// keep Vercel's first match in file order for every client.
func TestImportVercelConditionsServes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const h = "acme.dev"
	mobile, fr, beta := "X-Device: mobile\r\n", "Cookie: lang=fr\r\n", "Cookie: theme=dark; beta=1\r\n"
	report := serveImportWith(t, "vercel", filepath.Join(importertest.Extract(t, "../../config/vercel/testdata/import/conditions.txt"), "vercel.json"), serveOpts{}, []condCase{
		{hostedCase{h, "/", 307, "/m/"}, mobile},
		{hostedCase{h, "/", 307, "/m/"}, "x-device:  mobile \r\n"},
		{hostedCase{h, "/", 307, "/home"}, "X-Device: Mobile\r\n"},
		{hostedCase{h, "/?ref=x", 307, "/fr/?ref=x"}, fr},
		{hostedCase{h, "/?ref=x", 307, "/m/?ref=x"}, mobile + fr}, // entry 0 first
		{hostedCase{h, "/", 307, "/home"}, fr},                    // entry 1 needs ?ref too
		{hostedCase{h, "/", 307, "/home"}, ""},
		{hostedCase{h, "/about", 308, "/company"}, "Cookie: lang=de\r\n"}, // entry 4 never applies
		{hostedCase{h, "/blog/feed", 308, "/beta/blog/feed"}, beta},
		{hostedCase{h, "/blog/a/b", 308, "/beta/blog/a/b"}, beta},
		{hostedCase{h, "/blog/feed", 308, "/feed.xml"}, ""},
		{hostedCase{h, "/blog/feed", 308, "/feed.xml"}, "Cookie: beta=2\r\n"},
		{hostedCase{h, "/app", 308, "/app/new"}, "X-App-Version: 2\r\nUser-Agent: Android\r\n"}, // has without a value: present
		{hostedCase{h, "/app", 0, ""}, "User-Agent: Android\r\n"},                               // entry 8 (a regex) is left out
		{hostedCase{h, "/account", 307, "/login"}, ""},                                          // missing cookie session
		{hostedCase{h, "/account", 307, "/login"}, "Cookie: sessions=1; a=session\r\n"},
		{hostedCase{h, "/account", 0, ""}, "Cookie: theme=dark; session=abc\r\n"},
		{hostedCase{h, "/account", 0, ""}, "Cookie: session=\r\n"}, // present, empty
	})
	for _, want := range []string{"redirects[4] /about -> /de/firma never applies: line 20 comes first",
		"redirects[8] /app -> /app/android: a has condition on the header user-agent with the regex"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
}

// TestImportNetlifyOrderServes serves the import of the order cases
// (config/netlify/testdata/import/order.txt) and asks the real server:
// the first rule in file order answers, whatever its form and host, so
// the shop host's catch-all after the host-less rules does not take
// their paths on its host.
func TestImportNetlifyOrderServes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const shop = "shop.example.com"
	cases := []hostedCase{
		{"example.com", "/a/special", 301, "/b/special"}, // the splat comes first
		{"example.com", "/p/new", 301, "/products/new"},  // the placeholder comes first
		{"example.com", "/p/new/x", 302, "/new-arrivals/x"},
		{"example.com", "/docs/api/k", 301, "/api/k"},
		{"example.com", "/go?to=x", 302, "/out/x"},
		{"example.com", "/go", 302, "/home"},
		{"example.com", "/moved", 301, "/here"},
		{shop, "/moved", 301, "/here"}, // the host-less line 24 before the host's line 25
		{shop, "/a/special", 301, "/b/special"},
		{shop, "/go", 302, "/home"},
		{shop, "/other/page", 301, "https://example.com/shop/other/page"},
		{"example.com", "/other/page", 0, ""},
	}
	report := serveImportWith(t, "netlify", filepath.Join(importertest.Extract(t, "../../config/netlify/testdata/import/order.txt"), "_redirects"), serveOpts{}, plain(cases))
	if strings.Contains(report, "answers that differ") {
		t.Errorf("the import finds answers that differ:\n%s", report)
	}
}
