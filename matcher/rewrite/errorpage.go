package rewrite

import (
	"fmt"
	"strconv"
	"strings"
)

// errorPage is one status of an error_page directive: where a request
// goes when its answer has that status. error_page is a declaration of
// the block it is written in, not a step run in order: it is written in
// the steps text (as nginx writes it among the rewrite directives, so
// that the import copies a block as it is) and filed on the location,
// whose nested locations take the whole list when they have none of
// their own, as nginx merges it.
type errorPage struct {
	status int
	// overwrite is the "=CODE" answer's status, 0 for a bare "=" (the
	// status the target answers), -1 without '=' (the original one).
	overwrite int
	// target is a URI ("/404.html?from=x": an internal redirect), a
	// named location ("@err") or a URL (a redirect).
	target script
}

// compileErrorPage compiles "error_page CODE... [=[CODE]] TARGET".
func (c *compiler) compileErrorPage(args []token) ([]errorPage, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("takes one or more statuses and a URI, @name or URL")
	}
	target, err := c.compileScript(args[len(args)-1].word, args[0].line)
	if err != nil {
		return nil, err
	}
	codes := args[:len(args)-1]
	overwrite := -1
	if w := codes[len(codes)-1].word; strings.HasPrefix(w, "=") {
		codes = codes[:len(codes)-1]
		overwrite = 0
		if w != "=" {
			n, err := strconv.Atoi(w[1:])
			if err != nil || n < 200 || n > 599 {
				return nil, fmt.Errorf("invalid response %q: =CODE with a status from 200 to 599, or a bare =", w)
			}
			overwrite = n
		}
	}
	if len(codes) == 0 {
		return nil, fmt.Errorf("takes one or more statuses before the URI")
	}
	var out []errorPage
	for _, t := range codes {
		n, err := strconv.Atoi(t.word)
		if err != nil || n < 300 || n > 599 || n == 499 {
			return nil, fmt.Errorf("invalid status %q: from 300 to 599, not 499", t.word)
		}
		out = append(out, errorPage{status: n, overwrite: overwrite, target: target})
	}
	return out, nil
}

// pageFor returns the error page of pages for res, nil when none
// applies: nginx's special response, for an error without a body of its
// own (return CODE with CODE >= 400 and no text), once per request. A
// redirect is never sent elsewhere (TestAgainstNginx: error_page 302
// leaves return 302 URL and rewrite ... redirect as they are).
func (s *Scratch) pageFor(pages []errorPage, res *Result) *errorPage {
	if s.errorPage || len(pages) == 0 || res.Action != Answer || res.Status < 400 || len(res.Body) > 0 {
		return nil
	}
	s.errorPage = true // recursive_error_pages off
	for i := range pages {
		if pages[i].status == res.Status {
			return &pages[i]
		}
	}
	return nil
}

// sendErrorPage follows ep for an answer of status: a named location
// (named is set), an internal redirect to a URI (the URI and query
// change, the server's steps run again and the location is chosen
// anew), or a redirect (res set). It reports false when res is the
// answer.
func (p *Program) sendErrorPage(s *Scratch, req *Request, ep *errorPage, res *Result, named **location) bool {
	s.errStatus = res.Status
	if ep.overwrite >= 0 {
		s.errStatus = ep.overwrite
	}
	where := res.Where
	s.prepare(req, ep.target.parts)
	start := len(s.arena)
	s.arena = s.appendScript(s.arena, req, &ep.target, false)
	t := s.arena[start:]
	switch {
	case len(t) > 0 && t[0] == '/':
		u, a := t, []byte(nil)
		if i := indexByte(t, '?'); i >= 0 {
			u, a = t[:i], t[i+1:]
		}
		s.uri = span{start, len(u)}
		s.args = span{}
		if a != nil {
			s.args = span{start + len(u) + 1, len(a)}
		}
		s.rewritten = true
		// nginx asks the error page with GET (HEAD stays HEAD).
		s.asGET = string(req.Method) != "HEAD"
		return true
	case len(t) > 0 && t[0] == '@':
		l := p.named[string(t[1:])]
		if l == nil {
			*res = Result{Action: Answer, Status: 500, Where: where}
			return false
		}
		*named = l
		return true
	}
	status := s.errStatus
	if !isRedirectStatus(status) {
		status = 302
	}
	s.out = appendLocationSafe(s.out[:0], t)
	*res = Result{Action: Redirect, Status: status, Location: s.out, Where: where}
	return false
}

// finish gives a body the target of an error page answered the status
// the error page set (nginx's err_status wins in ngx_http_send_header);
// an error or a redirect of its own keeps its status.
func (s *Scratch) finish(res *Result) {
	if s.errStatus <= 0 {
		return
	}
	switch {
	case res.Action == Forward, res.Action == Answer && (res.Status < 400 || len(res.Body) > 0):
		res.Status = s.errStatus
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
