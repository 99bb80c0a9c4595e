package rewrite

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// parser reads directives from the tokens of one step text.
type parser struct {
	c    *compiler
	toks []token
	i    int
	// pages are the error_page directives read; depth is how many if
	// blocks the parser is in.
	pages    []errorPage
	try      *tryFiles
	internal bool
	depth    int
}

// parseSteps reads directives up to the end or a '}' (inBlock).
func (p *parser) parseSteps(inBlock bool) ([]step, error) {
	var steps []step
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		if t.punct && t.word == "}" {
			if !inBlock {
				return nil, errAt(t.line, "unexpected '}'")
			}
			p.i++
			return steps, nil
		}
		args, end, err := p.directive()
		if err != nil {
			return nil, err
		}
		if ok, err := p.declaration(args, end); ok || err != nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		st, err := p.compileDirective(args, end)
		if err != nil {
			if e, ok := err.(*Error); ok {
				return nil, e
			}
			return nil, errAt(args[0].line, "%s: %v", args[0].word, err)
		}
		steps = append(steps, st)
	}
	if inBlock {
		return nil, errAt(p.toks[len(p.toks)-1].line, "unexpected end of steps: an if block lacks its '}'")
	}
	return steps, nil
}

// declaration reads a directive that declares something of the block
// (error_page, try_files, internal) rather than being a step; ok is
// false for any other. None of them is taken inside if.
func (p *parser) declaration(args []token, end string) (ok bool, err error) {
	name := args[0]
	if name.quoted || end != ";" {
		return false, nil
	}
	switch name.word {
	case "internal":
		if len(args) > 1 || p.depth > 0 {
			return true, errAt(name.line, "internal: takes no arguments, and not inside if")
		}
		p.internal = true
		return true, nil
	case "error_page":
		var pages []errorPage
		if pages, err = p.c.compileErrorPage(args[1:]); err == nil && p.depth == 0 {
			p.pages = append(p.pages, pages...)
		}
	case "try_files":
		var try *tryFiles
		if try, err = p.c.compileTryFiles(args[1:]); err == nil && p.depth == 0 {
			p.try = try
		}
	default:
		return false, nil
	}
	if err == nil && p.depth > 0 {
		err = fmt.Errorf("not supported inside if")
	}
	if err != nil {
		return true, errAt(name.line, "%s: %v", name.word, err)
	}
	return true, nil
}

// directive reads the words of one directive and what ends it, ';' or
// '{'.
func (p *parser) directive() ([]token, string, error) {
	start := p.i
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		p.i++
		if t.punct {
			if t.word == "}" {
				return nil, "", errAt(t.line, "unexpected '}' (a ';' is missing before it)")
			}
			if p.i-1 == start {
				return nil, "", errAt(t.line, "unexpected %q", t.word)
			}
			return p.toks[start : p.i-1], t.word, nil
		}
	}
	return nil, "", errAt(p.toks[start].line, "%s: missing ';' at the end", p.toks[start].word)
}

// compileDirective compiles one directive; an if reads its block.
func (p *parser) compileDirective(args []token, end string) (step, error) {
	name := args[0].word
	if args[0].quoted {
		name = "" // a quoted word names no directive
	}
	if (name == "if") != (end == "{") {
		if name == "if" {
			return step{}, fmt.Errorf("needs a { block }")
		}
		return step{}, fmt.Errorf("takes no block")
	}
	st := step{line: args[0].line, text: directiveText(args)}
	var err error
	switch name {
	case "rewrite":
		err = p.c.compileRewrite(&st, args[1:])
	case "return":
		err = p.c.compileReturn(&st, args[1:])
	case "set":
		err = p.c.compileSet(&st, args[1:])
	case "break":
		st.kind = stBreak
		if len(args) != 1 {
			err = fmt.Errorf("takes no arguments")
		}
	case "if":
		st.kind = stIf
		if err = p.c.compileCond(&st.cond, args[1:], st.line); err == nil {
			p.depth++
			st.body, err = p.parseSteps(true)
			p.depth--
			if err != nil {
				return st, err
			}
		}
	default:
		return st, fmt.Errorf("unknown directive; steps are rewrite, return, if, set, break, error_page, try_files and internal")
	}
	return st, err
}

// isURL reports whether a rewrite's replacement or a return's argument
// names a scheme, as nginx tells a redirect by it.
func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "$scheme")
}

// compileRewrite compiles "rewrite REGEX REPLACEMENT [FLAG]".
func (c *compiler) compileRewrite(st *step, args []token) error {
	st.kind = stRewrite
	if len(args) < 2 || len(args) > 3 {
		return fmt.Errorf("takes a regex, a replacement and an optional flag")
	}
	if len(args) == 3 {
		f, ok := map[string]flag{"last": flagLast, "break": flagBreak, "redirect": flagRedirect, "permanent": flagPermanent}[args[2].word]
		if !ok {
			return fmt.Errorf("invalid flag %q; flags are last, break, redirect and permanent", args[2].word)
		}
		st.flag = f
	}
	re, err := c.compileRegex(args[0].word, false)
	if err != nil {
		return err
	}
	st.re = re
	repl := args[1].word
	st.addArgs = true
	if strings.HasSuffix(repl, "?") {
		repl, st.addArgs = repl[:len(repl)-1], false
	}
	st.redirect = st.flag == flagRedirect || st.flag == flagPermanent || isURL(repl)
	st.code = 302
	if st.flag == flagPermanent {
		st.code = 301
	}
	uri, args2, hasArgs := strings.Cut(repl, "?")
	st.hasArgs = hasArgs
	if st.uri, err = c.compileScript(uri, st.line); err != nil {
		return err
	}
	st.args, err = c.compileScript(args2, st.line)
	st.readsMap = readsMap(st.uri) || readsMap(st.args)
	return err
}

// readsMap reports whether sc reads a map's variable, which prepare
// evaluates first.
func readsMap(sc script) bool {
	return slices.ContainsFunc(sc.parts, func(pt part) bool { return pt.kind == vMap })
}

// compileReturn compiles "return CODE [TEXT|URL]" and "return URL".
func (c *compiler) compileReturn(st *step, args []token) error {
	st.kind = stReturn
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("takes a status and an optional URL or text, or a URL")
	}
	code, err := strconv.Atoi(args[0].word)
	text := ""
	switch {
	case err == nil && !args[0].quoted && code >= 0 && code <= 999:
		if len(args) == 2 {
			text, st.hasValue = args[1].word, true
		}
	case len(args) == 1 && isURL(args[0].word):
		code, text, st.hasValue = 302, args[0].word, true
	default:
		return fmt.Errorf("invalid status %q", args[0].word)
	}
	st.code = code
	st.value, err = c.compileScript(text, st.line)
	return err
}

// compileSet compiles "set $var VALUE".
func (c *compiler) compileSet(st *step, args []token) error {
	st.kind = stSet
	if len(args) != 2 {
		return fmt.Errorf("takes a variable and a value")
	}
	if strings.EqualFold(args[0].word, "$args") {
		// nginx lets set change the query string: $args, $is_args,
		// $arg_NAME and the arguments a rewrite appends read it after.
		// ($query_string, the same variable, it refuses to set.)
		st.slot = slotArgs
		var err error
		st.value, err = c.compileScript(args[1].word, st.line)
		return err
	}
	if err := checkSettable(args[0].word); err != nil {
		return err
	}
	st.slot = c.define(args[0].word[1:])
	var err error
	st.value, err = c.compileScript(args[1].word, st.line)
	return err
}

// checkSettable reports why set (or a map) cannot define the variable
// word ("$name"); nil when it can.
func checkSettable(word string) error {
	name, ok := strings.CutPrefix(word, "$")
	if !ok || name == "" {
		return fmt.Errorf("invalid variable %q: a '$' and a name", word)
	}
	for i := 0; i < len(name); i++ {
		if !isNameByte(name[i]) {
			return fmt.Errorf("invalid variable name %q", word)
		}
	}
	lower := strings.ToLower(name)
	if _, builtin := builtins[lower]; builtin || lower[0] >= '0' && lower[0] <= '9' ||
		strings.HasPrefix(lower, "arg_") || strings.HasPrefix(lower, "http_") || strings.HasPrefix(lower, "cookie_") {
		return fmt.Errorf("cannot set %q: it is the request's", word)
	}
	return nil
}
