package vercel

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config/importer"
)

// TestParseLines checks that each entry carries the line it starts on,
// minified or not, that an unknown field is noted at its entry's line,
// and that a file that is not a JSON object is an error.
func TestParseLines(t *testing.T) {
	src := `{
  "cleanUrls": false,
  "redirects": [
    { "source": "/a", "destination": "/b" },
    {
      "source": "/c",
      "destination": "/d",
      "permanent": false
    },
    {"source": "/e", "destination": "/f", "locale": false}, {"source": "/g", "destination": "/h", "statusCode": 301}
  ]
}`
	got, notes, err := Parse("vercel.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := false
	want := []Redirect{
		{Index: 0, Line: 4, Source: "/a", Destination: "/b"},
		{Index: 1, Line: 5, Source: "/c", Destination: "/d", Permanent: &f},
		{Index: 3, Line: 10, Source: "/g", Destination: "/h", StatusCode: 301},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Parse (-want +got):\n%s", d)
	}
	wantNotes := []importer.Note{{File: "vercel.json", Line: 10, Kind: importer.LeftOut, Msg: `redirects[2]: json: unknown field "locale"; left out`}}
	if d := cmp.Diff(wantNotes, notes); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
	for _, bad := range []string{"", "[]", `{"redirects": {}}`, `{"redirects": [1,`} {
		if _, _, err := Parse("vercel.json", []byte(bad)); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
