package daemon

import (
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// TestEntryCheck checks what an entry may hold.
func TestEntryCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		e    edit.Entry
		want string // "" for none
	}{
		{edit.Entry{Op: "add", From: "/a", To: "/b"}, ""},
		{edit.Entry{Op: "add", Host: "Www.A.com.", From: "/a", To: "/b"}, ""},
		{edit.Entry{Op: "delete", From: "/a"}, ""},
		{edit.Entry{Op: "add", Kind: "regex", From: "^/a", To: "/b"}, ""},
		{edit.Entry{Op: "", From: "/a", To: "/b"}, "op is missing"},
		{edit.Entry{Op: "put", From: "/a", To: "/b"}, `op "put"`},
		{edit.Entry{Op: "add", From: "a", To: "/b"}, "must begin with /"},
		{edit.Entry{Op: "add", From: "/a"}, "to is empty"},
		{edit.Entry{Op: "add", From: "/a", To: "/b", Status: 200}, "status 200"},
		{edit.Entry{Op: "add", From: "/a", Status: 410}, ""},
		{edit.Entry{Op: "add", Host: "a.com/x", From: "/a", To: "/b"}, "not a host name"},
		{edit.Entry{Op: "add", Host: "a.*.com", From: "/a", To: "/b"}, "'*' other than"},
		{edit.Entry{Op: "add", Host: "\xff.com", From: "/a", To: "/b"}, "internationalised host name"},
		{edit.Entry{Op: "add", From: "/caf\xe9", To: "/b"}, "not UTF-8"},
		{edit.Entry{Op: "add", From: "/a", To: "/\xe9"}, "not UTF-8"},
		{edit.Entry{Op: "add", From: "/del\x7fbyte", To: "/b"}, ""},     // written as \u007f in the archive
		{edit.Entry{Op: "add", From: "/caf\ufffd", To: "/b"}, "U+FFFD"}, // what JSON makes of "/caf\xe9"
		{edit.Entry{Op: "add", From: "/a", To: "/b\r\nSet-Cookie: x"}, "line break"},
		{edit.Entry{Op: "add", Kind: "glob", From: "/a", To: "/b"}, "kind"},
	} {
		err := tt.e.Check(configSyntax{})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (tt.want == "") != (got == "") || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%+v: %q, want %q", tt.e, got, tt.want)
		}
	}
}
