package edit

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestVersionStored: a version reads back as Marshal wrote it, a
// promoted one and a fetched one alike, and the files of older
// redirectds (a promoted version's, a fetched version's record) read as
// the versions they were.
func TestVersionStored(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range []Version{
		{Number: 3, Base: 2, Author: "pub", Message: "m", Time: at, Counts: &Counts{Added: 1}, Rollback: true, RollbackOf: 1,
			Edits: []Edit{{Entry: Entry{Op: OpAdd, From: "/a", To: "/b", Status: 301}, By: "pub", At: at, Version: 3}}},
		{Number: 4, Base: 3, Author: "pub", Message: "back to the config", Time: at, Counts: &Counts{Removed: 1}, Rollback: true},
		{Hash: "0123456789ab", Entry: "rules/redirectd.toml", Source: "https://a.example/r.tar.gz", ETag: `"x"`, LastModified: "Fri, 01 May 2026 12:00:00 GMT", FetchedAt: at},
	} {
		b, err := v.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var got Version
		if err := got.Unmarshal(b); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(v, got); diff != "" {
			t.Errorf("%s read back (-want +got):\n%s", b, diff)
		}
	}
	for file, want := range map[string]Version{
		`{"number":1,"base":0,"author":"ada","message":"m","time":"2026-05-01T12:00:00Z","counts":{"added":2,"changed":0,"removed":0},"edits":null}`: {
			Number: 1, Author: "ada", Message: "m", Time: at, Counts: &Counts{Added: 2}},
		`{"number":3,"base":2,"author":"ada","message":"m","time":"2026-05-01T12:00:00Z","rollback_of":1}`: {
			Number: 3, Base: 2, Author: "ada", Message: "m", Time: at, Rollback: true, RollbackOf: 1},
		`{"hash":"0123456789ab","entry":"r.toml","source":"https://a.example/r","etag":"\"x\"","fetched_at":"2026-05-01T12:00:00Z"}`: {
			Hash: "0123456789ab", Entry: "r.toml", Source: "https://a.example/r", ETag: `"x"`, FetchedAt: at},
	} {
		var got Version
		if err := got.Unmarshal([]byte(file)); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", file, diff)
		}
	}
}
