package daemon

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
)

func parseAll(ctype, body string) ([]string, error) {
	var got []string
	err := edits.Parse(configSyntax{}, ctype, strings.NewReader(body), func(line int, e edit.Entry) error {
		got = append(got, fmt.Sprintf("%d %s %s %s %s %d %s", line, e.Op, e.Host, e.From, e.To, e.Status, e.Kind))
		return nil
	})
	return got, err
}

// TestUploadParse checks both upload forms: the CSV shapes import csv reads
// (a header, a host, subdomains and subpaths), JSON lines, and that a
// bad line is named.
func TestUploadParse(t *testing.T) {
	t.Parallel()
	got, err := parseAll("text/csv; charset=utf-8", "source,target,status,preserve_query,include_subdomains,subpath_matching\n/a,/b,302\nexample.com/c,/d,,,true\n/e,/f,301,,,true\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2 add  /a /b 302 exact", "3 add example.com /c /d 301 exact", "3 add *.example.com /c /d 301 exact", "4 add  /e/ /f/ 301 prefix"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
	got, err = parseAll("application/x-ndjson", `{"op":"add","from":"/a","to":"/b"}`+"\n\n"+`{"op":"delete","host":"X.com","from":"/c"}`+"\n")
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"1 add  /a /b 301 ", "3 delete x.com /c  0 "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON lines (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ ctype, body, want string }{
		{"text/csv", "/a,/b,301\n/c,/d,999\n", "upload line 2: status \"999\""},
		{"text/csv", "/a,/b,301\n\"/c,/d\n", "upload line 2: cannot read the row"},
		{"text/csv", "/a,/b,301\nnot a path,/d,301\n", "upload line 2"},
		{"application/x-ndjson", `{"op":"add","from":"/a","to":"/b"}` + "\n" + `{"op":"add","from":"/a","to":"/b","x":1}`, "upload line 2: not an entry object"},
		{"application/x-ndjson", `{"op":"add","from":"/a","to":"/b"} {}`, "upload line 1: more than one JSON value"},
		{"application/x-ndjson", `{"op":"add","from":"a","to":"/b"}`, "upload line 1: from \"a\" must begin with /"},
		{"application/x-ndjson", strings.Repeat("x", 64<<10+1), "upload line 1: the line is longer than"},
		{"text/plain", "x", "Content-Type"},
		{"", "x", "Content-Type"},
	} {
		_, err := parseAll(tt.ctype, tt.body)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %.40q: %v, want an error holding %q", tt.ctype, tt.body, err, tt.want)
		}
	}
}

// TestUploadParseStopsOnCallback checks that fn's error ends the upload,
// named by its line.
func TestUploadParseStopsOnCallback(t *testing.T) {
	t.Parallel()
	stop := errors.New("out of scope")
	n := 0
	err := edits.Parse(configSyntax{}, edits.TypeCSV, strings.NewReader("/a,/b,301\n/c,/d,301\n/e,/f,301\n"), func(line int, _ edit.Entry) error {
		if n++; line == 2 {
			return stop
		}
		return nil
	})
	var le *edits.LineError
	if !errors.As(err, &le) || le.Line != 2 || !errors.Is(err, stop) || n != 2 {
		t.Errorf("err %v after %d entries, want a LineError at 2 wrapping fn's after 2", err, n)
	}
}

// FuzzUploadParse checks that no upload panics, and that every entry handed
// on has passed Check (an op, a from beginning with / unless a regex, no
// line break in to).
func FuzzUploadParse(f *testing.F) {
	f.Add("text/csv", "source,target,status\n/a,/b,301\nexample.com/c,/d,,,true,true\n")
	f.Add("application/x-ndjson", `{"op":"add","host":"a.com","from":"/a","to":"/b","status":302}`+"\n"+`{"op":"delete","from":"/c"}`)
	f.Add("text/csv", "\"unclosed,/b\n")
	f.Fuzz(func(t *testing.T, ctype, body string) {
		if len(body) > 1<<16 {
			return
		}
		edits.Parse(configSyntax{}, ctype, strings.NewReader(body), func(_ int, e edit.Entry) error {
			if e.Op != edit.OpAdd && e.Op != edit.OpChange && e.Op != edit.OpDelete {
				t.Fatalf("entry with op %q", e.Op)
			}
			if e.Kind != "regex" && !strings.HasPrefix(e.From, "/") {
				t.Fatalf("entry with from %q", e.From)
			}
			if strings.ContainsAny(e.To, "\r\n") {
				t.Fatalf("entry with a line break in to %q", e.To)
			}
			return nil
		})
	})
}
