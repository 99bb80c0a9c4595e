package nginx

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// What a proxy_pass sends where: the upstream group of one location,
// from its proxy_pass, the upstream block it names, and the proxy_*
// directives it inherits (proxy_set_header Host, proxy_ssl_*).

// proxyLevel is the proxy_* directives of one level (the http block, a
// server, a location), which inherits from the level around it, as nginx
// merges them (ngx_http_proxy_merge_loc_conf): a proxy_set_header list
// is inherited whole, and only by a level that has none of its own; each
// proxy_ssl_* directive is inherited by a level that does not set it.
type proxyLevel struct {
	parent  *proxyLevel
	headers []*Directive
	ssl     map[string]*Directive
}

// proxySSL are the proxy_ssl_* directives the import translates.
var proxySSL = map[string]bool{
	"proxy_ssl_verify": true, "proxy_ssl_name": true, "proxy_ssl_server_name": true,
	"proxy_ssl_trusted_certificate": true, "proxy_ssl_certificate": true, "proxy_ssl_certificate_key": true,
}

// proxyLimits are the directives that become a group's timeouts and
// body limit, by the key each becomes.
var proxyLimits = map[string]string{
	"proxy_connect_timeout": "connect_timeout", "proxy_read_timeout": "read_timeout",
	"proxy_send_timeout": "write_timeout", "client_max_body_size": "max_request_body_bytes",
}

// add records d when it is a directive of p; it reports whether it was.
func (p *proxyLevel) add(d *Directive) bool {
	switch {
	case d.Name == "proxy_set_header":
		p.headers = append(p.headers, d)
	case (proxySSL[d.Name] || proxyLimits[d.Name] != "") && len(d.Args) == 1:
		if p.ssl == nil {
			p.ssl = map[string]*Directive{}
		}
		p.ssl[d.Name] = d
	default:
		return false
	}
	return true
}

// setHeaders is the proxy_set_header list in effect: that of the
// nearest level with any, which replaces the inherited one.
func (p *proxyLevel) setHeaders() []*Directive {
	for ; p != nil; p = p.parent {
		if len(p.headers) > 0 {
			return p.headers
		}
	}
	return nil
}

// host is the proxy_set_header Host in effect, nil for nginx's default
// ($proxy_host).
func (p *proxyLevel) host() *Directive {
	var h *Directive
	for _, d := range p.setHeaders() {
		if len(d.Args) == 2 && strings.EqualFold(d.Args[0], "host") {
			h = d
		}
	}
	return h
}

// sameHeaders are the proxy_set_header fields and values that redirectd
// sends alike on its own (engine/README.md, forwarding): it appends the
// client to X-Forwarded-For, sets X-Forwarded-Proto and X-Forwarded-Host,
// tunnels WebSocket upgrades and keeps its upstream connections alive.
var sameHeaders = map[string][]string{
	"x-forwarded-for":   {"$proxy_add_x_forwarded_for"},
	"x-forwarded-proto": {"$scheme"},
	"x-forwarded-host":  {"$host", "$http_host"},
	"upgrade":           {"$http_upgrade"},
	"connection":        {"upgrade", "$connection_upgrade", "", "keep-alive"},
}

// noteHeaders notes each proxy_set_header in effect at l, other than
// Host, that redirectd does not send alike.
func (t *translator) noteHeaders(l *location) {
	for _, d := range l.proxy.setHeaders() {
		if len(d.Args) != 2 || strings.EqualFold(d.Args[0], "host") {
			continue
		}
		if slices.Contains(sameHeaders[strings.ToLower(d.Args[0])], strings.ToLower(d.Args[1])) {
			continue
		}
		t.noteOnce(d, "proxy_set_header %s %s: redirectd forwards the client's fields as they came, sets X-Forwarded-For (appending the client), X-Forwarded-Proto and X-Forwarded-Host itself, and has no setting for other fields; left out", d.Args[0], d.Args[1])
	}
}

// get is the proxy_ssl_* directive name in effect, nil when none is set.
func (p *proxyLevel) get(name string) *Directive {
	for ; p != nil; p = p.parent {
		if d := p.ssl[name]; d != nil {
			return d
		}
	}
	return nil
}

// Group is one upstream group the import writes: [upstream] when its
// Name is "default", else [upstreams.NAME].
type Group struct {
	Name    string
	Servers []string // "host:port" or "https://host[:port]"
	Balance string   // "" (round robin) or "least_conn"
	// HostHeader is "preserve" or the literal host nginx sends.
	HostHeader string
	// TLSServerName, CAFile, ClientCert and ClientKey are its TLS keys,
	// "" for none; Unreadable names the keys whose files cannot be read
	// where the import runs, written as comments.
	TLSServerName, CAFile, ClientCert, ClientKey string
	Unreadable                                   []string
	// Limits are connect_timeout, read_timeout, write_timeout and
	// max_request_body_bytes as written ("30s", "1048576"), from nginx's
	// directives where set.
	Limits map[string]string
	// Origin is the first proxy_pass that sends to the group.
	Origin *Directive
	base   string // the name before deduplication
}

// key is what makes two groups the same group.
func (g *Group) key() string {
	return fmt.Sprint(g.Servers, g.Balance, g.HostHeader, g.TLSServerName, g.CAFile, g.ClientCert, g.ClientKey, g.Limits)
}

// proxyGroup makes the group of location l's proxy_pass; ok is false when
// it cannot be one (each reason noted). The groups, deduplicated and
// named, are kept in t.groups.
func (t *translator) proxyGroup(l *location) (*Group, bool) {
	if l == nil || l.pass == nil {
		return nil, false
	}
	if g, seen := t.passGroup[l]; seen {
		return g, g != nil
	}
	g := t.makeGroup(l)
	if g != nil {
		if same := t.groupByKey[g.key()]; same != nil {
			g = same
		} else {
			t.groupByKey[g.key()] = g
			t.groups = append(t.groups, g)
		}
	}
	t.passGroup[l] = g
	return g, g != nil
}

// nameGroups names the groups after their upstream block or host, each
// name once ("default" is [upstream]'s, which the import does not write).
func (t *translator) nameGroups() {
	used := map[string]bool{"default": true}
	for _, g := range t.groups {
		base := strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				return r
			}
			return '-'
		}, strings.Trim(g.base, "[]"))
		if len(base) > 60 {
			base = base[:60]
		}
		if base == "" {
			base = "upstream"
		}
		name := base
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		used[name], g.Name = true, name
	}
}

// makeGroup reads l's proxy_pass into a group, noting what it cannot
// express.
func (t *translator) makeGroup(l *location) *Group {
	m, d := t.m, l.pass
	if len(d.Args) != 1 {
		m.note(d, "proxy_pass takes one URL; left out")
		return nil
	}
	target := d.Args[0]
	scheme, rest, _ := strings.Cut(target, "://")
	switch {
	case scheme != "http" && scheme != "https" || !strings.Contains(target, "://"):
		m.note(d, "proxy_pass %s: only http:// and https:// URLs are translated; left out", target)
		return nil
	case strings.Contains(target, "$"):
		m.note(d, "proxy_pass %s: redirectd forwards to the fixed servers of a group, not to an address a variable names; the forward is left out", target)
		return nil
	case strings.HasPrefix(rest, "unix:"):
		m.note(d, "proxy_pass %s: redirectd forwards over TCP only; left out", target)
		return nil
	}
	host, uri, hasURI := strings.Cut(rest, "/")
	if m.upstreams[host] == nil && !validAddr(hostPort(host, "80")) {
		m.note(d, "proxy_pass %s: %q is not a host and port redirectd can dial; left out", target, host)
		return nil
	}
	if hasURI {
		t.noteURI(l, target, "/"+uri)
	}
	overTLS := scheme == "https"
	defPort := map[bool]string{false: "80", true: "443"}[overTLS]
	g := &Group{Origin: d}
	// $proxy_host: the host and port as proxy_pass writes them, the
	// port left out when it is the scheme's (ngx_http_proxy_set_vars).
	proxyHost := host
	if u := m.upstreams[host]; u != nil {
		if len(u.servers) == 0 {
			m.note(d, "proxy_pass %s: upstream %s has no server redirectd can use; left out", target, host)
			return nil
		}
		g.base, g.Balance = host, u.balance
		for _, s := range u.servers {
			g.Servers = append(g.Servers, serverURL(s, overTLS))
		}
	} else {
		addr := hostPort(host, defPort)
		if h, p, err := net.SplitHostPort(addr); err == nil && p == defPort {
			proxyHost = h
			if strings.Contains(h, ":") {
				proxyHost = "[" + h + "]"
			}
		}
		g.base = proxyHost
		g.Servers = []string{serverURL(addr, overTLS)}
	}
	g.HostHeader = t.hostHeader(l, proxyHost)
	t.noteHeaders(l)
	t.groupLimits(l, g)
	if overTLS {
		t.groupTLS(l, g, host, m.upstreams[host] != nil)
	}
	return g
}

// validAddr reports whether addr is a host:port redirectd's servers take:
// a host of letters, digits, '-', '.' and '_' (or an IP address) and a
// port from 1 to 65535.
func validAddr(addr string) bool {
	h, p, err := net.SplitHostPort(addr)
	if err != nil || h == "" {
		return false
	}
	if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
		return false
	}
	if net.ParseIP(h) != nil {
		return true
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// serverURL writes one server as redirectd's servers list takes it: an
// https:// one with its scheme (its port when not 443).
func serverURL(addr string, overTLS bool) string {
	if !overTLS {
		return addr
	}
	if h, p, err := net.SplitHostPort(addr); err == nil && p == "443" {
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		return "https://" + h
	}
	return "https://" + addr
}

// noteURI notes a proxy_pass URI part where nginx refuses it: in a
// regex or named location (nginx -t fails). Elsewhere the location's
// upstream_uri replaces the part of $uri its path matched, as nginx does.
func (t *translator) noteURI(l *location, target, uri string) {
	if l.re != nil || l.mod == "@" {
		t.m.note(l.pass, "proxy_pass %s in a regex or named location: nginx refuses a URI part there (nginx -t fails); the URI part is left out", target)
	}
}

// hostHeader is the group's host_header for l: nginx sends
// proxy_set_header Host when set at l or inherited, else $proxy_host
// (ngx_http_proxy_headers: "Host: $proxy_host" is nginx's default), which
// is the literal proxyHost.
func (t *translator) hostHeader(l *location, proxyHost string) string {
	d := l.proxy.host()
	if d == nil {
		return t.literalHost(l.pass, proxyHost)
	}
	v := d.Args[1]
	switch {
	case v == "$host" || v == "$http_host":
		return "preserve"
	case v == "$proxy_host":
		return t.literalHost(d, proxyHost)
	case strings.HasPrefix(v, "$host:") || strings.HasPrefix(v, "$http_host:"):
		t.m.note(d, "proxy_set_header Host %s: redirectd sends the client's Host as it came (host_header = \"preserve\"), with the port the client gave, if any", v)
		return "preserve"
	case v == "":
		t.m.note(d, "proxy_set_header Host \"\": nginx sends no Host, which HTTP/1.1 requires; redirectd sends $proxy_host (%s), nginx's default", proxyHost)
		return t.literalHost(d, proxyHost)
	case strings.Contains(v, "$"):
		t.m.note(d, "proxy_set_header Host %s: a Host made per request from variables has no host_header equivalent; redirectd sends $proxy_host (%s), nginx's default; left out", v, proxyHost)
		return t.literalHost(d, proxyHost)
	}
	return t.literalHost(d, v)
}

// literalHost is host as a host_header literal; "preserve" and "upstream"
// are keywords, and what is not a host is noted.
func (t *translator) literalHost(d *Directive, host string) string {
	for i := 0; i < len(host); i++ {
		if c := host[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._:[]", c) >= 0) {
			t.m.note(d, "Host %q is not a host name host_header can hold; redirectd sends the client's Host; left out", host)
			return "preserve"
		}
	}
	if host == "" || len(host) > 255 || strings.EqualFold(host, "preserve") || strings.EqualFold(host, "upstream") {
		t.m.note(d, "Host %q reads as a host_header keyword; redirectd sends the client's Host; left out", host)
		return "preserve"
	}
	return host
}

// groupTLS sets the TLS keys of an https group from the proxy_ssl_*
// directives in effect at l, and notes where redirectd's TLS differs from
// nginx's: nginx verifies nothing by default (proxy_ssl_verify off) and
// sends no SNI (proxy_ssl_server_name off), where redirectd always
// verifies and sends SNI.
func (t *translator) groupTLS(l *location, g *Group, host string, block bool) {
	p := l.proxy
	on := func(name string) bool { d := p.get(name); return d != nil && d.Args[0] == "on" }
	verify, sni := on("proxy_ssl_verify"), on("proxy_ssl_server_name")
	// nginx's name to verify and send: proxy_ssl_name, else $proxy_host
	// (the upstream block's name); redirectd's default is each server's
	// own host, which is the same for a proxy_pass naming a host.
	name := ""
	if d := p.get("proxy_ssl_name"); d != nil {
		switch v := d.Args[0]; {
		case strings.Contains(v, "$"):
			t.m.note(d, "proxy_ssl_name %s: a name made per request has no tls_server_name equivalent; redirectd sends and verifies each server's own host; left out", v)
		default:
			name = v
		}
	} else if block && (verify || sni) {
		name = host // nginx verifies and sends the upstream block's name
	}
	if h, _, err := net.SplitHostPort(name); err == nil {
		name = h
	}
	switch {
	case name == "":
	case strings.ContainsAny(name, "*/:?#@ \t[]") || strings.IndexFunc(name, func(r rune) bool { return r >= 0x80 || r < ' ' }) >= 0:
		t.m.note(l.pass, "proxy_pass %s: nginx verifies the name %q, which is not a host name tls_server_name can hold; redirectd verifies each server's own host; left out", l.pass.Args[0], name)
	default:
		g.TLSServerName = strings.ToLower(name)
	}
	t.groupFiles(p, g)
	servers := strings.Join(g.Servers, ", ")
	verified := "the system's roots"
	if g.CAFile != "" {
		verified = "ca_file (" + g.CAFile + ")"
	}
	switch {
	case !verify:
		t.m.note(l.pass, "proxy_pass %s: nginx accepts any certificate from %s (proxy_ssl_verify is off, nginx's default)%s; redirectd verifies it against %s and the server's name, and answers 502 where that fails: set ca_file to the CA that issued it (nginx's proxy_ssl_trusted_certificate, with proxy_ssl_verify on), or tls_server_name to the name it holds",
			l.pass.Args[0], servers, map[bool]string{true: "", false: " and sends no SNI"}[sni], verified)
	case !sni:
		t.m.note(l.pass, "proxy_pass %s: redirectd sends the name it verifies in SNI, which nginx sends only with proxy_ssl_server_name on", l.pass.Args[0])
	}
}

// groupFiles sets the group's ca_file and client certificate from
// proxy_ssl_trusted_certificate and proxy_ssl_certificate(_key), each
// read as the loader will read it: one that it would refuse (unreadable,
// no certificate, a pair that does not match) is written as a comment,
// with a note.
func (t *translator) groupFiles(p *proxyLevel, g *Group) {
	files := []struct {
		directive string
		to        *string
		key       string
	}{
		{"proxy_ssl_trusted_certificate", &g.CAFile, "ca_file"},
		{"proxy_ssl_certificate", &g.ClientCert, "client_cert_file"},
		{"proxy_ssl_certificate_key", &g.ClientKey, "client_key_file"},
	}
	for _, f := range files {
		d := p.get(f.directive)
		if d == nil {
			continue
		}
		if strings.Contains(d.Args[0], "$") || strings.HasPrefix(d.Args[0], "data:") {
			t.m.note(d, "%s %s: only a file is translated; left out", f.directive, d.Args[0])
			continue
		}
		*f.to = certPath(t.dirs, d.Args[0])
		b, err := os.ReadFile(*f.to)
		switch {
		case err != nil:
			g.Unreadable = append(g.Unreadable, f.key)
			t.m.note(d, "%s cannot be read here: %s is written as a comment, to uncomment where the file is", *f.to, f.key)
		case f.key == "ca_file" && !strings.Contains(string(b), "-----BEGIN CERTIFICATE-----"):
			g.Unreadable = append(g.Unreadable, f.key)
			t.m.note(d, "%s holds no PEM certificate, which ca_file needs: it is written as a comment", *f.to)
		}
	}
	readable := func(key string) bool { return !slices.Contains(g.Unreadable, key) }
	switch {
	case (g.ClientCert == "") != (g.ClientKey == ""):
		t.m.note(g.Origin, "proxy_pass %s: a client certificate needs both proxy_ssl_certificate and proxy_ssl_certificate_key; left out", g.Origin.Args[0])
		g.ClientCert, g.ClientKey = "", ""
		g.Unreadable = slices.DeleteFunc(g.Unreadable, func(k string) bool { return k != "ca_file" })
	case g.ClientCert == "":
	case !readable("client_cert_file") || !readable("client_key_file"):
		// Both as comments: the loader takes neither alone.
		g.Unreadable = slices.DeleteFunc(g.Unreadable, func(k string) bool { return k != "ca_file" })
		g.Unreadable = append(g.Unreadable, "client_cert_file", "client_key_file")
	default:
		// The loader refuses a pair that does not match.
		if _, err := tls.LoadX509KeyPair(g.ClientCert, g.ClientKey); err != nil {
			g.Unreadable = append(g.Unreadable, "client_cert_file", "client_key_file")
			t.m.note(p.get("proxy_ssl_certificate"), "proxy_ssl_certificate %s: %v; client_cert_file and client_key_file are written as comments", g.ClientCert, err)
		}
	}
}

// groupLimits sets the group's timeouts and body limit from nginx's
// proxy_connect_timeout, proxy_read_timeout (between two reads of the
// answer, as read_timeout), proxy_send_timeout (between two writes, as
// write_timeout) and client_max_body_size where the config sets them.
// Where it does not, nginx's defaults (60 s each, 1 MB) are not written:
// redirectd's own apply (config/README.md), and the README says so.
func (t *translator) groupLimits(l *location, g *Group) {
	for _, name := range []string{"proxy_connect_timeout", "proxy_read_timeout", "proxy_send_timeout", "client_max_body_size"} {
		d := l.proxy.get(name)
		if d == nil {
			continue
		}
		v, ok := nginxDuration(d.Args[0])
		if name == "client_max_body_size" {
			v, ok = nginxSize(d.Args[0])
		}
		if !ok {
			t.noteOnce(d, "%s %s: not a value the import reads; left out", name, d.Args[0])
			continue
		}
		if g.Limits == nil {
			g.Limits = map[string]string{}
		}
		g.Limits[proxyLimits[name]] = v
	}
}

// nginxDuration writes an nginx time ("30", "30s", "1m30s", "500ms") as a
// Go duration.
func nginxDuration(v string) (string, bool) {
	if v == "" {
		return "", false
	}
	if strings.Trim(v, "0123456789") == "" {
		v += "s" // nginx reads a bare number as seconds
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 || strings.ContainsAny(v, "-+.") {
		return "", false
	}
	return d.String(), true
}

// nginxSize reads an nginx size ("1m", "512k", "1g", "1024") as bytes.
func nginxSize(v string) (string, bool) {
	mult := int64(1)
	switch {
	case v == "":
		return "", false
	case strings.HasSuffix(v, "k") || strings.HasSuffix(v, "K"):
		mult, v = 1<<10, v[:len(v)-1]
	case strings.HasSuffix(v, "m") || strings.HasSuffix(v, "M"):
		mult, v = 1<<20, v[:len(v)-1]
	case strings.HasSuffix(v, "g") || strings.HasSuffix(v, "G"):
		mult, v = 1<<30, v[:len(v)-1]
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return "", false
	}
	return strconv.FormatInt(n*mult, 10), true
}
