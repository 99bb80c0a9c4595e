// Package pcre runs the regexes nginx's PCRE accepts and RE2 cannot
// express: lookahead and lookbehind, atomic groups, possessive
// quantifiers, backreferences, \Q...\E, inline flags with PCRE's scope,
// \K. It is a backtracking engine over bytes, as nginx runs PCRE2 (no
// UTF mode: `.` is one byte, `\w` and case folding are ASCII), and only
// that; regexes RE2 can express stay on package matcher's RE2 path (Needs
// tells them apart).
//
// Contract: Compile bounds what a hostile pattern may cost (its length,
// nesting and compiled size). Match allocates nothing once its Scratch
// has grown to the pattern and input, and spends at most *budget steps
// (an instruction run or a choice point undone), so a crafted path costs
// bounded work whatever the pattern; a match that runs out is abandoned
// and reported as exhausted. A Regexp is immutable and safe for
// concurrent use; a Scratch is per goroutine.
package pcre
