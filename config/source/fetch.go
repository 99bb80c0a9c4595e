package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redirectd/redirectd/internal/ascii"
)

// DefaultMaxBytes bounds a download: a million-rule map is about 50 MiB,
// so more than ten times that is a mistake at the source, not a rule set.
const DefaultMaxBytes = 512 << 20

// Fetcher fetches a rule set from one URL. Its fields are read by Fetch and
// must not change while one runs.
type Fetcher struct {
	URL string
	// Header returns one extra header to send ("Authorization", "Bearer
	// ..."), or "" for none. It is called at each fetch, so a secret read
	// from a file may change between fetches.
	Header func() (name, value string, err error)
	// MaxBytes bounds the body (DefaultMaxBytes when 0).
	MaxBytes int64
	// Limits bound what an archive unpacks to (DefaultLimits when zero).
	Limits Limits
	// Client makes the requests (NewClient's when nil).
	Client *http.Client
}

// Validators are what a source said about a version, sent back to ask
// whether it changed.
type Validators struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
}

// Fetched is a rule set written into the folder given to Fetch.
type Fetched struct {
	// Entry is the rules TOML to load, a slash-separated path in the folder.
	Entry string
	// Hash is the rule set's content hash (see Hash).
	Hash string
	Validators
}

// defaultClient is shared, so that its idle connection is reused by the
// next poll rather than a Transport left behind at each.
var defaultClient = NewClient()

// NewClient returns the client Fetch uses by default: bounded connect,
// TLS and first-byte waits, so that a source that accepts and then says
// nothing is a failure within a minute rather than a stuck poller. The
// body itself is bounded by the context given to Fetch.
func NewClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConns:          2,
	}}
}

// Fetch asks the source for the rule set, sending prev as If-None-Match and
// If-Modified-Since. It returns nil, nil when the source answers 304 Not
// Modified; otherwise it writes the rule set into dir, an empty folder,
// synced, and describes it. An archive is unpacked (Extract); a single
// file is written as redirectd.toml when the URL's path ends in .toml,
// otherwise as rules.csv (.csv) or rules.map (anything else) with a
// redirectd.toml that names it. Errors are *Error.
func (f *Fetcher) Fetch(ctx context.Context, dir string, prev Validators) (*Fetched, error) {
	resp, err := f.get(ctx, prev)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && (prev.ETag != "" || prev.LastModified != ""):
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096)) // keep the connection
		return nil, nil
	case resp.StatusCode != http.StatusOK:
		return nil, statusError(resp)
	}
	max := f.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	if resp.ContentLength > max {
		return nil, fail(ReasonTooLarge, "the source's rule set is %d bytes, more than the %d allowed; make it smaller (a .tar.gz of map files)", resp.ContentLength, max)
	}
	// The body goes to disk, not memory: it may be hundreds of MiB.
	tmp := filepath.Join(dir, ".download")
	n, err := saveBody(tmp, resp.Body, max)
	if err != nil {
		return nil, err
	}
	entry, err := f.place(dir, tmp, n)
	if err != nil {
		return nil, err
	}
	if err := syncTree(dir); err != nil {
		return nil, err
	}
	hash, err := Hash(dir)
	if err != nil {
		return nil, err
	}
	return &Fetched{Entry: entry, Hash: hash, Validators: Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}}, nil
}

func (f *Fetcher) get(ctx context.Context, prev Validators) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
	if err != nil {
		return nil, fail(ReasonNetwork, "cannot make a request for %q: %v", f.URL, err)
	}
	if prev.ETag != "" {
		req.Header.Set("If-None-Match", prev.ETag)
	}
	if prev.LastModified != "" {
		req.Header.Set("If-Modified-Since", prev.LastModified)
	}
	var name string
	if f.Header != nil {
		var value string
		name, value, err = f.Header()
		if err != nil {
			return nil, fail(ReasonNetwork, "cannot read the source header: %v", err)
		}
		if name != "" {
			req.Header.Set(name, value)
		}
	}
	c := f.Client
	if c == nil {
		c = defaultClient
	}
	cc := *c // the same Transport and its idle connections
	cc.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		return checkRedirect(next, via, name)
	}
	resp, err := cc.Do(req)
	if err != nil {
		return nil, fail(ReasonNetwork, "cannot reach the source: %v", err)
	}
	return resp, nil
}

// maxRedirects is as many redirects as a fetch follows, as net/http's
// default.
const maxRedirects = 10

// checkRedirect lets a fetch follow a redirect, with the configured header
// (named name) only to the origin the configured URL names: the same
// scheme, host and port. net/http would send a header of any other name
// to every host a redirect names, and Authorization to subdomains, or over
// plain HTTP to the same host: a source (or whoever can make it redirect)
// would collect the secret. A redirect from https to http is refused
// outright: the rule set itself would then travel unprotected.
func checkRedirect(next *http.Request, via []*http.Request, name string) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	first := via[0].URL
	if first.Scheme == "https" && next.URL.Scheme != "https" {
		return fmt.Errorf("the source redirected from https to %s://%s, which is refused: point [rules] source at the final https URL", next.URL.Scheme, next.URL.Host)
	}
	if name != "" && originOf(next.URL) != originOf(first) {
		next.Header.Del(name)
	}
	return nil
}

// originOf returns u's scheme, host and port, the port made explicit.
func originOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")) + ":" + port
}

// statusError describes an answer that is neither 200 nor 304, with the
// start of its body (a message from the object store, often) made safe to
// log.
func statusError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	body := strings.Map(func(r rune) rune {
		if ascii.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, string(b))
	hint := ""
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = "; check [rules] source_header"
	case http.StatusNotFound:
		hint = "; check [rules] source"
	}
	return fail(ReasonStatus, "the source answered %s%s (body: %q)", resp.Status, hint, strings.TrimSpace(body))
}

// saveBody writes at most max bytes of r to name, synced, and returns its
// size; a body over max is ReasonTooLarge, a cut one ReasonNetwork.
func saveBody(name string, r io.Reader, max int64) (int64, error) {
	out, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, fmt.Errorf("cannot write the download: %w", err)
	}
	n, err := io.Copy(out, io.LimitReader(r, max+1))
	if err == nil && n > max {
		err = fail(ReasonTooLarge, "the source's rule set is more than the %d bytes allowed; make it smaller (a .tar.gz of map files)", max)
	} else if err != nil {
		err = fail(ReasonNetwork, "the download broke off after %d bytes: %v", n, err)
	}
	if err == nil {
		if err = out.Sync(); err != nil {
			err = fmt.Errorf("cannot write the download: %w", err)
		}
	}
	out.Close()
	return n, err
}

// place turns the download tmp (n bytes) into the rule set's files in dir
// and returns the entry TOML's name.
func (f *Fetcher) place(dir, tmp string, n int64) (string, error) {
	kind := kindOf(f.URL, tmp)
	if kind == "archive" {
		in, err := os.Open(tmp)
		if err != nil {
			return "", err
		}
		lim := f.Limits
		if lim.Files == 0 {
			lim = DefaultLimits
		}
		err = Extract(in, dir, lim)
		in.Close()
		os.Remove(tmp)
		if err != nil {
			return "", err
		}
		return findEntry(dir)
	}
	if n == 0 {
		return "", fail(ReasonArchive, "the source's file is empty")
	}
	if kind == "toml" {
		return "redirectd.toml", os.Rename(tmp, filepath.Join(dir, "redirectd.toml"))
	}
	file, table := "rules.map", "map"
	if kind == "csv" {
		file, table = "rules.csv", "csv"
	}
	if err := os.Rename(tmp, filepath.Join(dir, file)); err != nil {
		return "", err
	}
	toml := fmt.Sprintf("# Written by redirectd for the single file at the source.\n[[%s]]\nfile = %q\n", table, file)
	return "redirectd.toml", writeSynced(filepath.Join(dir, "redirectd.toml"), []byte(toml))
}

// kindOf tells an archive by its first bytes (gzip's magic, or tar's
// "ustar" at offset 257), and other files by the URL path's extension.
func kindOf(rawURL, tmp string) string {
	if head, err := readHead(tmp, 262); err == nil {
		if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b ||
			len(head) >= 262 && string(head[257:262]) == "ustar" {
			return "archive"
		}
	}
	p := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		p = u.Path
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".toml":
		return "toml"
	case ".csv":
		return "csv"
	}
	return "map"
}

func readHead(name string, n int) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return b[:k], err
}

// findEntry returns the rules TOML of an unpacked archive: redirectd.toml
// at its top, else the only .toml there; an archive whose top holds only
// one folder (tar -czf site.tar.gz site/) is looked into.
func findEntry(dir string) (string, error) {
	prefix := ""
	for range 2 {
		ents, err := os.ReadDir(filepath.Join(dir, prefix))
		if err != nil {
			return "", err
		}
		var tomls []string
		for _, e := range ents {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".toml") {
				tomls = append(tomls, e.Name())
			}
		}
		for _, t := range tomls {
			if t == "redirectd.toml" {
				return path.Join(prefix, t), nil
			}
		}
		switch {
		case len(tomls) == 1:
			return path.Join(prefix, tomls[0]), nil
		case len(tomls) > 1:
			return "", fail(ReasonArchive, "the archive holds %d .toml files at its top (%s) and no redirectd.toml: name the one to load redirectd.toml", len(tomls), strings.Join(tomls, ", "))
		case len(ents) == 1 && ents[0].IsDir() && prefix == "":
			prefix = ents[0].Name()
			continue
		}
		break
	}
	return "", &Error{Reason: ReasonArchive, Err: ErrNoEntry}
}
