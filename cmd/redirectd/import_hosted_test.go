package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostedCase is a request and the answer the service gives it, as its
// documentation describes: status and Location (0 and "" for a miss,
// which redirectd answers 404 without an upstream).
type hostedCase struct {
	host, target string
	status       int
	location     string
}

// serveImport runs `redirectd import KIND -o FILE SOURCE` with the built
// binary, then serves the config written (behind a [server] table) and
// asks it each case on loopback, reading the raw answer.
func serveImport(t *testing.T, kind, source string, cases []hostedCase) string {
	t.Helper()
	bin := buildBinary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "imported.toml")
	code, _, report := runBinary(t, bin, "import", kind, "-o", out, source)
	if code != 0 {
		t.Fatalf("import %s: exit %d\n%s", kind, code, report)
	}
	imported, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	file := filepath.Join(dir, "redirectd.toml")
	os.WriteFile(file, fmt.Appendf(nil, "[server]\nlisten = %q\n\n[admin]\nlisten = \"off\"\n\n[access_log]\nenabled = false\n\n%s", addr, imported), 0o644)
	stop := startServe(t, bin, file)
	defer stop()
	if _, _, err := firstAnswer(addr, "/", time.Now().Add(10*time.Second)); err != nil {
		t.Fatalf("no answer: %v", err)
	}
	for _, c := range cases {
		status, loc := rawAnswer(t, addr, c.host, c.target)
		want := c.status
		if want == 0 {
			want = 404
		}
		if status != want || loc != c.location {
			t.Errorf("%s%s: %d %q, want %d %q", c.host, c.target, status, loc, want, c.location)
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
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const d = "docs.example.dev"
	report := serveImport(t, "netlify", "../../config/netlify/testdata/docs/_redirects", []hostedCase{
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
	})
	for _, want := range []string{"_redirects:57: /docs/v1/install /docs/v2/getting-started 301 never applies: line 55", "_redirects:82: /app/* /app/index.html 200: a rewrite (200)",
		"_redirects:85: / /de/ 302 Language=de: the conditions Language=de are not translated"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
}

// TestImportVercelServes does the same for an app's vercel.json: host
// rules, literal sources, :param, :param*, :param+, :param?, (.*) with
// $1, custom patterns, has on host and query, permanent and statusCode.
func TestImportVercelServes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const h = "acme.dev"
	report := serveImport(t, "vercel", "../../config/vercel/testdata/app/vercel.json", []hostedCase{
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
		{h, "/dashboard/x", 0, ""}, // missing: not translated
	})
	for _, want := range []string{`redirects[29]: json: unknown field "basePath"; left out`, "lookarounds such as (?!...) have no equivalent",
		"trailingSlash: false makes Vercel redirect (308)"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
}
