package rewrite

import (
	"fmt"
	"strconv"
)

// tryFiles is a location's try_files as redirectd, which has no files,
// runs it: every file and folder it names is missing, so nginx's
// fallback, its last argument, is taken for every request the
// location's steps leave (ngx_http_try_files_handler): "=CODE" answers
// CODE, "@name" goes to that named location, and a URI is an internal
// redirect, its query replacing the request's when it has a '?'.
type tryFiles struct {
	code     int
	fallback script
}

// compileTryFiles compiles "try_files FILE... FALLBACK".
func (c *compiler) compileTryFiles(args []token) (*tryFiles, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("takes one or more files and a fallback URI, @name or =CODE")
	}
	last := args[len(args)-1].word
	if len(last) > 1 && last[0] == '=' {
		n, err := strconv.Atoi(last[1:])
		if err != nil || n < 100 || n > 999 {
			return nil, fmt.Errorf("invalid code %q", last)
		}
		return &tryFiles{code: n}, nil
	}
	fb, err := c.compileScript(last, args[0].line)
	if err != nil {
		return nil, err
	}
	return &tryFiles{fallback: fb}, nil
}

// runTryFiles takes loc's try_files fallback for a request its steps
// left: it sets res and reports true for an answer, else it changes the
// URI (or sets named) for runLocations to choose the location again.
func (p *Program) runTryFiles(s *Scratch, req *Request, loc *location, res *Result, named **location) bool {
	tf := loc.try
	if tf.code > 0 {
		*res = Result{Action: Answer, Status: tf.code, Where: loc.name}
		return true
	}
	s.prepare(req, tf.fallback.parts)
	start := len(s.arena)
	s.arena = s.appendScript(s.arena, req, &tf.fallback, false)
	t := s.arena[start:]
	if len(t) > 0 && t[0] == '@' {
		if *named = p.named[string(t[1:])]; *named == nil {
			*res = Result{Action: Answer, Status: 500, Where: loc.name}
			return true
		}
		return false
	}
	u := t
	if i := indexByte(t, '?'); i >= 0 {
		u = t[:i]
		s.args = span{start + i + 1, len(t) - i - 1}
	}
	s.uri = span{start, len(u)}
	s.rewritten = true
	return false
}
