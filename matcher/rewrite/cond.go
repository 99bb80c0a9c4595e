package rewrite

import (
	"fmt"
	"strings"
)

// compileCond compiles the words of "if (...)": "($var)", or "($var OP
// VALUE)" with OP one of = != ~ ~* !~ !~*. The parentheses come as nginx's
// lexer leaves them, on the first and last words or as words of their own.
func (c *compiler) compileCond(cd *cond, args []token, line int) error {
	words := make([]token, len(args))
	copy(words, args)
	if len(words) == 0 || !strings.HasPrefix(words[0].word, "(") || words[0].quoted {
		return fmt.Errorf("the condition must be in parentheses")
	}
	words[0].word = words[0].word[1:]
	if words[0].word == "" {
		words = words[1:]
	}
	if n := len(words); n == 0 || words[n-1].quoted && words[n-1].word != ")" || !strings.HasSuffix(words[n-1].word, ")") {
		return fmt.Errorf("the condition must be in parentheses")
	}
	last := &words[len(words)-1]
	last.word = last.word[:len(last.word)-1]
	if last.word == "" && !last.quoted {
		words = words[:len(words)-1]
	}
	if len(words) == 0 || !strings.HasPrefix(words[0].word, "$") || words[0].quoted {
		return fmt.Errorf("the condition starts with a variable; file tests (-f, -d, -e, -x) are not supported")
	}
	name, n, err := varName(words[0].word[1:])
	if err != nil || n != len(words[0].word)-1 {
		return fmt.Errorf("invalid variable %q", words[0].word)
	}
	if cd.left, err = c.variable(name, line); err != nil {
		return err
	}
	switch len(words) {
	case 1:
		cd.op = opTrue
		return nil
	case 3:
		return c.compileOperator(cd, words[1].word, words[2].word)
	}
	return fmt.Errorf("invalid condition: a variable, or a variable, an operator and a value")
}

// compileOperator compiles an if's operator and its right side.
func (c *compiler) compileOperator(cd *cond, op, value string) error {
	var err error
	switch op {
	case "=", "!=":
		cd.op = opEq
		if op == "!=" {
			cd.op = opNe
		}
		cd.right, err = c.compileScript(value, 0)
	case "~", "~*", "!~", "!~*":
		cd.op = opMatch
		if op[0] == '!' {
			cd.op = opNoMatch
		}
		cd.re, err = c.compileRegex(value, strings.HasSuffix(op, "*"))
	default:
		err = fmt.Errorf("unknown operator %q; operators are = != ~ ~* !~ !~*", op)
	}
	return err
}
