package rewrite

// stepKind names a directive of the rewrite phase.
type stepKind uint8

const (
	stRewrite stepKind = iota
	stReturn
	stIf
	stSet
	stBreak
)

// flag is a rewrite's last argument.
type flag uint8

const (
	flagNone flag = iota
	flagLast
	flagBreak
	flagRedirect
	flagPermanent
)

// step is one compiled directive.
type step struct {
	kind stepKind
	line int
	// text is the directive as written, for Program.Explain.
	text string
	// re is a rewrite's regex.
	re *rx
	// uri and args are a rewrite's replacement split at its first
	// literal '?' (hasArgs); addArgs says to append the request's query
	// (no trailing '?'); redirect says the rewrite answers (its flag, or
	// a replacement naming a scheme); readsMap says it reads a map's
	// variable, which prepare evaluates first.
	uri, args          script
	hasArgs, addArgs   bool
	redirect, readsMap bool
	flag               flag
	code               int    // return's status; a rewrite redirect's 301 or 302
	value              script // return's URL or text, set's value
	hasValue           bool
	cond               cond
	body               []step // the steps of an if
	slot               int    // set's variable; slotArgs for $args
}

// condOp is an if's operator.
type condOp uint8

const (
	opTrue condOp = iota // if ($var): not empty and not "0"
	opEq
	opNe
	opMatch
	opNoMatch
)

// cond is an if's condition: a variable, an operator, and a string
// (opEq, opNe) or a regex (opMatch, opNoMatch).
type cond struct {
	op    condOp
	left  part
	right script
	re    *rx
}

// slotArgs is the slot of a set of $args: the
// request's query string, which the step replaces, not a variable slot.
const slotArgs = -1
