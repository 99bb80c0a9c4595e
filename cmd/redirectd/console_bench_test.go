package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// BenchmarkConsolePages1M fetches every console page over HTTP, with a
// signed-in publisher's session, from the binary serving a config with a
// million-line [[map]] file (and the edit node's tokens and rules): the
// overview, the rules (no query, a search matching one rule, one
// matching none, page 2,000), explain, misses (200 missed paths), the
// drafts list, a 10,000-entry draft's diff page and a large draft's
// (CONSOLE_LARGE_DRAFT entries, 200,000 unless set; its first and its
// 500th page), the versions and the diff of the config's version with
// the serving one (a promoted draft). Each page reports its first fetch
// (ms-first: the overview, first after sign-in, waits for the rules
// index to be built; a version diff rebuilds the other version) beside
// ns/op, the fetches after.
//
// It is long because it sets up the node (map file, drafts, a promote,
// misses) before its sub-benchmarks, which share it.
func BenchmarkConsolePages1M(b *testing.B) {
	if testing.Short() {
		b.Skip("builds the binary and a million-line map")
	}
	large := testutil.BenchSize(200_000)
	if v := os.Getenv("CONSOLE_LARGE_DRAFT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 1_000_000 {
			b.Fatalf("CONSOLE_LARGE_DRAFT=%q: want a count of entries, 1 to a million", v)
		}
		large = n
	}
	size := testutil.BenchSize(1_000_000)
	n := startMillionNode(b, size)
	api := func(method, path, ctype, body string, want int) string {
		b.Helper()
		req, _ := http.NewRequest(method, "http://"+n.adminAddr+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer pub-token")
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		got, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			b.Fatalf("%s %s: %d %.300s, want %d", method, path, resp.StatusCode, got, want)
		}
		return string(got)
	}
	draft := func(entries int, prefix string) string {
		b.Helper()
		var d draftRef
		json.Unmarshal([]byte(api("POST", "/drafts", "", "", 201)), &d)
		var csv strings.Builder
		csv.WriteString("source,target,status\n")
		for i := range entries {
			fmt.Fprintf(&csv, "www.brand-b.com/%s/%d,/landing/%d,301\n", prefix, i, i)
		}
		api("POST", "/drafts/"+d.ID+"/upload", "text/csv", csv.String(), 201)
		return d.ID
	}
	small, big := draft(10_000, "bulk"), draft(large, "large")
	var versions []struct {
		Hash    string `json:"hash"`
		Serving bool   `json:"serving"`
	}
	json.Unmarshal([]byte(api("GET", "/versions", "", "", 200)), &versions)
	configVersion := versions[0].Hash
	promoted := draft(10, "promoted")
	api("POST", "/drafts/"+promoted+"/promote", "application/json", `{"message":"ten rules"}`, 200)
	for i := range 200 {
		conn, err := net.Dial("tcp", n.addr)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(conn, "GET /missing/%d HTTP/1.1\r\nHost: www.brand-a.com\r\nConnection: close\r\n\r\n", i)
		io.Copy(io.Discard, conn)
		conn.Close()
	}

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (int, string) {
		resp, err := c.Get("http://" + n.adminAddr + path)
		if err != nil {
			b.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	_, form := get("/ui/signin")
	resp, err := c.PostForm("http://"+n.adminAddr+"/ui/signin", url.Values{"csrf": {consoleCSRF.FindStringSubmatch(form)[1]}, "token": {"pub-token"}})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		b.Fatalf("sign-in: %v %v", resp, err)
	}
	resp.Body.Close()

	nth := size * 543 / 1000 // a key in the middle of the map
	key := rules.MapKey(nth)
	count := commas(size)
	for _, p := range []struct{ name, path, want string }{
		{"overview", "/", count[:len(count)-2]}, // the map and a few more
		{"rules", "/ui/rules", "/old/section-"},
		{"rules-search-one", "/ui/rules?q=" + url.QueryEscape(key), key},
		{"rules-search-none", "/ui/rules?q=nothing-matches-this", "rule-count"},
		{"rules-page-" + strconv.Itoa(size/500), "/ui/rules?page=" + strconv.Itoa(size/500), "/old/section-"},
		{"explain", "/ui/explain?url=" + url.QueryEscape("http://www.brand-a.com"+key), rules.MapTarget(nth)},
		{"misses", "/ui/misses", "/missing/1"},
		{"drafts", "/ui/drafts", small},
		{"draft-10000", "/ui/drafts/" + small, "/bulk/"},
		{"draft-large", "/ui/drafts/" + big, "/large/"},
		{"draft-large-page-" + strconv.Itoa(large/400), "/ui/drafts/" + big + "?page=" + strconv.Itoa(large/400), "/large/"},
		{"versions", "/ui/versions", "ten rules"},
		{"version-diff", "/ui/versions/diff?from=" + configVersion, "/promoted/"},
	} {
		b.Run(p.name, func(b *testing.B) {
			start := time.Now()
			code, body := get(p.path)
			first := time.Since(start)
			if code != 200 || !strings.Contains(body, p.want) {
				b.Fatalf("GET %s: %d, want 200 with %q:\n%.1500s", p.path, code, p.want, body)
			}
			for b.Loop() {
				if code, _ := get(p.path); code != 200 {
					b.Fatalf("GET %s: %d", p.path, code)
				}
			}
			b.ReportMetric(float64(first.Microseconds())/1000, "ms-first")
		})
	}
}

// startMillionNode starts the binary on the edit node's config with a
// million-line [[map]] file added, waiting for the map's last entry to
// answer.
func startMillionNode(b *testing.B, size int) *editNode {
	n := &editNode{bin: buildBinary(b), dir: b.TempDir(), addr: testport.Free(b), adminAddr: testport.Free(b)}
	n.file = filepath.Join(n.dir, "r.toml")
	os.MkdirAll(filepath.Join(n.dir, "tokens"), 0o755)
	for _, name := range []string{"vera", "ed", "pub", "ada", "alice", "paula"} {
		os.WriteFile(filepath.Join(n.dir, "tokens", name), []byte(name+"-token\n"), 0o600)
	}
	mapFile := filepath.Join(n.dir, "big.map")
	writeFile(b, mapFile, func(w io.Writer) error { return rules.WriteMap(w, size) })
	os.WriteFile(n.file, []byte(editConfig(n.addr, n.adminAddr)+fmt.Sprintf("\n[[map]]\nfile = %q\n", mapFile)), 0o644)
	n.cmd = exec.Command(n.bin, "serve", "-config", n.file, "-log-format", "json")
	n.stderr = &testutil.LockedBuffer{}
	n.cmd.Stderr = n.stderr
	if err := n.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { n.cmd.Process.Signal(syscall.SIGTERM); n.cmd.Wait() })
	if st, _, err := firstAnswer(n.addr, rules.MapKey(size-1), time.Now().Add(2*time.Minute)); err != nil || st != 301 {
		b.Fatalf("first answer: %d %v\n%s", st, err, n.stderr.String())
	}
	testutil.WaitFor(b, 30*time.Second, "the admin listener", func() bool {
		c, err := net.Dial("tcp", n.adminAddr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return n
}

// commas writes n as the console does: 1,000,000.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
