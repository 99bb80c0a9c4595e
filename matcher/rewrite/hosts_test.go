package rewrite

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// serverNames are the servers of TestChooseServer and
// TestServersAgainstNginx, in order; the first is nginx's default.
var serverNames = []string{
	"example.com", "*.example.com", ".example.org", "www.example.*", "mail.*",
	"api.example.com", "*.eu.example.com", `~^(?<sub>[a-z]+)\.shop\.test$`, `~^(\d+)\.Num\.test$`, `~^.*\.example\.net$`, "x.example.net",
}

// hostMap is a hostnames map of $host that every server of
// hostSpecs reads, so that TestServersAgainstNginx checks its wildcards.
var hostMap = MapSpec{Source: "$host", Variable: "hn", Default: "none", Entries: `hostnames;
*.example.com star;
.example.org dot;
www.example.* tail;
a.b.example.com exact;
~^(?<lbl>[a-z]+)\.num\.test$ re-$lbl;`}

// hostSpecs is a HostSpec per server name, each answering its index and
// the captures a regex name gives.
func hostSpecs(names []string) []HostSpec {
	var specs []HostSpec
	for i, n := range names {
		body := fmt.Sprintf("server %d $hn", i)
		if strings.Contains(n, "?<sub>") {
			body += " $sub"
		}
		if strings.Contains(n, `(\d+)`) {
			body += " $1"
		}
		specs = append(specs, HostSpec{Host: n, Default: i == 0, Spec: Spec{Maps: []MapSpec{hostMap}, Locations: []LocationSpec{
			{Match: Prefix, Path: "/", Steps: fmt.Sprintf("return 200 %q;", body)}}}})
	}
	return specs
}

// bruteServer is nginx's choice by a scan of every name: exact, then the
// longest leading wildcard, then the longest trailing one, then the
// first regex, else the default (-1 here).
func bruteServer(names []string, host string) int {
	best, bestLen := -1, 0
	for i, n := range names {
		if n == host || strings.HasPrefix(n, ".") && n[1:] == host {
			return i
		}
	}
	for i, n := range names {
		suffix := ""
		switch {
		case strings.HasPrefix(n, "*."):
			suffix = n[1:]
		case strings.HasPrefix(n, "."):
			suffix = n
		default:
			continue
		}
		if strings.HasSuffix(host, suffix) && len(host) > len(suffix) && len(suffix) > bestLen {
			best, bestLen = i, len(suffix)
		}
	}
	if best >= 0 {
		return best
	}
	for i, n := range names {
		if prefix, ok := strings.CutSuffix(n, "*"); ok && strings.HasPrefix(host, prefix) && len(host) > len(prefix) && len(prefix) > bestLen {
			best, bestLen = i, len(prefix)
		}
	}
	if best >= 0 {
		return best
	}
	for i, n := range names {
		if re, ok := strings.CutPrefix(n, "~"); ok && regexp.MustCompile("(?i)"+re).MatchString(host) {
			return i
		}
	}
	return -1
}

func TestChooseServer(t *testing.T) {
	hosts, err := CompileHosts(hostSpecs(serverNames))
	if err != nil {
		t.Fatal(err)
	}
	labels := []string{"example", "com", "org", "www", "mail", "api", "eu", "shop", "test", "num", "net", "x", "a", "12", ""}
	rnd := rand.New(rand.NewPCG(1, 2))
	var s Scratch
	var res Result
	for range 20000 {
		n := 1 + rnd.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = labels[rnd.IntN(len(labels))]
		}
		host := strings.Join(parts, ".")
		want := bruteServer(serverNames, host)
		if want < 0 {
			want = 0 // the default server
		}
		req := request(host, "/", nil)
		hosts.Choose(&s, req.Host).Run(&s, req, &res)
		var got int
		if _, err := fmt.Sscanf(string(res.Body), "server %d", &got); err != nil || got != want {
			t.Fatalf("%q: %q, want server %d (%s)", host, res.Body, want, serverNames[want])
		}
	}
}

func TestChooseServerAllocatesNothing(t *testing.T) {
	hosts, err := CompileHosts(hostSpecs(serverNames))
	if err != nil {
		t.Fatal(err)
	}
	var s Scratch
	var res Result
	for _, host := range []string{"example.com", "a.b.example.com", "www.example.co.uk", "toys.shop.test", "7.num.test", "nowhere"} {
		req := request(host, "/", nil)
		run := func() { hosts.Choose(&s, req.Host).Run(&s, req, &res) }
		run()
		if n := testing.AllocsPerRun(100, run); n != 0 {
			t.Errorf("%s: %v allocations", host, n)
		}
	}
}

// TestServersAgainstNginx serves serverNames by a real nginx, a server
// block each, and asks both for a set of hosts.
func TestServersAgainstNginx(t *testing.T) {
	bin := testutil.FindNginx(t)
	dir := t.TempDir()
	addr, addr2 := testport.Free(t), testport.Free(t)
	port2 := addr2[strings.LastIndexByte(addr2, ':')+1:]
	// The second port's default server is the second server.
	specs := hostSpecs(serverNames)
	specs[1].Default, specs[1].DefaultPorts = true, []string{port2}
	hosts, err := CompileHosts(specs)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(testutil.NginxHTTPHead(dir))
	fmt.Fprintf(&b, "map %s $%s {\ndefault %s;\n%s\n}\n", hostMap.Source, hostMap.Variable, hostMap.Default, hostMap.Entries)
	for i, spec := range hostSpecs(serverNames) {
		def, def2 := "", ""
		switch i {
		case 0:
			def = " default_server"
		case 1:
			def2 = " default_server"
		}
		fmt.Fprintf(&b, "server {\nlisten %s%s;\nlisten %s%s;\nserver_name %q;\nlocation / {\n%s\n}\n}\n",
			addr, def, addr2, def2, spec.Host, spec.Spec.Locations[0].Steps)
	}
	b.WriteString("}\n")
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.RunNginx(t, bin, dir, conf, addr)
	var s Scratch
	var res Result
	for _, host := range []string{"example.com", "EXAMPLE.com", "a.example.com", "a.b.example.com", "example.org", "w.example.org",
		"www.example.com", "www.example.co.uk", "mail.x", "api.example.com", "x.eu.example.com", "eu.example.com",
		"toys.shop.test", "Toys.Shop.test", "7.num.test", "x7.num.test", "a.example.net", "x.example.net", "example.net", "nowhere", "www.example.org", "a.b.example.com", "c.a.b.example.com", "abc.num.test", "example.org.", "www.example.org."} {
		want := nginxAnswer(t, addr, host+" /")
		// The engine gives $host lower case, without a trailing dot.
		req := request(strings.TrimSuffix(strings.ToLower(host), "."), "/", nil)
		hosts.Choose(&s, req.Host).Run(&s, req, &res)
		if got := answerText(res.Status, "", string(res.Body), true); got != want {
			t.Errorf("%s:\n nginx     %s\n redirectd %s", host, want, got)
		}
		want = nginxAnswer(t, addr2, host+" /")
		hosts.ChooseOn(&s, req.Host, []byte(port2), false).Run(&s, req, &res)
		if got := answerText(res.Status, "", string(res.Body), true); got != want {
			t.Errorf("%s on the second port:\n nginx     %s\n redirectd %s", host, want, got)
		}
	}
}

// TestChooseServerKept: the choice a Scratch keeps from its last request
// answers as a fresh choice does, regex names' captures included, as
// the host, the port and the scheme change and repeat.
func TestChooseServerKept(t *testing.T) {
	specs := append(hostSpecs(serverNames),
		HostSpec{Host: "s.test", Scheme: "http", Spec: Spec{Steps: []Text{{Src: `return 200 "http";`}}}},
		HostSpec{Host: "s.test", Scheme: "https", Spec: Spec{Steps: []Text{{Src: `return 200 "https";`}}}})
	hosts, err := CompileHosts(specs)
	if err != nil {
		t.Fatal(err)
	}
	var kept Scratch
	for _, tc := range []struct {
		host, port string
		https      bool
	}{
		{"toys.shop.test", "80", false}, {"toys.shop.test", "80", false}, {"cars.shop.test", "80", false},
		{"7.num.test", "80", false}, {"7.num.test", "80", false}, {"toys.shop.test", "80", false},
		{"s.test", "80", false}, {"s.test", "80", true}, {"s.test", "80", true}, {"s.test", "443", false},
		{"example.com", "80", false}, {"example.com", "81", false}, {"nowhere", "80", false}, {"", "80", false}, {"", "80", false},
	} {
		answer := func(s *Scratch) string {
			req := request(tc.host, "/", nil)
			req.Port, req.HTTPS = []byte(tc.port), tc.https
			var res Result
			p := hosts.ChooseOn(s, req.Host, req.Port, tc.https)
			if p == nil {
				return "none"
			}
			p.Run(s, req, &res)
			return string(res.Body)
		}
		if got, want := answer(&kept), answer(new(Scratch)); got != want {
			t.Errorf("%+v: %q with the kept choice, %q fresh", tc, got, want)
		}
	}
}

// TestChooseServerReload: a Scratch that kept a choice of one Hosts
// holds it, and the whole config behind it, until its next request or
// Forget; once told to Forget (a loop idle after a reload is), the
// replaced Hosts is freed, and the Scratch answers from the Hosts that
// replaced it as a fresh Scratch does.
func TestChooseServerReload(t *testing.T) {
	var kept Scratch
	released := make(chan struct{}, 1)
	answer := func(hosts *Hosts, s *Scratch, host string) string {
		req := request(host, "/", nil)
		var res Result
		p := hosts.ChooseOn(s, req.Host, req.Port, false)
		if p == nil {
			return "none"
		}
		p.Run(s, req, &res)
		return string(res.Body)
	}
	func() {
		old, err := CompileHosts(hostSpecs(serverNames))
		if err != nil {
			t.Fatal(err)
		}
		runtime.AddCleanup(old, func(ch chan struct{}) { ch <- struct{}{} }, released)
		answer(old, &kept, "toys.shop.test") // chosen by a regex name
	}()
	freed := func() bool {
		for range 20 {
			runtime.GC()
			select {
			case <-released:
				return true
			default:
				runtime.Gosched()
			}
		}
		return false
	}
	if freed() {
		t.Fatal("the Hosts was freed while a Scratch kept its choice: the test shows nothing")
	}
	kept.Forget()
	if !freed() {
		t.Error("after Forget, the replaced Hosts is still held")
	}
	reloaded, err := CompileHosts(hostSpecs(append([]string{"toys.shop.test"}, serverNames...)))
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"toys.shop.test", "7.num.test", "toys.shop.test"} {
		if got, want := answer(reloaded, &kept, host), answer(reloaded, new(Scratch), host); got != want {
			t.Errorf("%s after the reload: %q with the kept Scratch, %q fresh", host, got, want)
		}
	}
}
