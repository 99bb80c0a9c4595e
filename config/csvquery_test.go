package config_test

import "testing"

// TestCSVSourceQuery: a source's path is a [[rule]]'s from, with or
// without a host: a '?' or '#' in it is refused at its row by every
// reader of the form ([[csv]], import csv's ReadCSV, the upload's
// StreamCSV), and so is a query right after the host; with
// path = "decoded", which compares the decoded path, both forms keep them
// as bytes of the path.
func TestCSVSourceQuery(t *testing.T) {
	t.Parallel()
	const why = "holds '?' or '#': a source matches the request's path, without its query"
	for _, tt := range []struct {
		name, csv, defaults string
		want                []string // host|from|to|status@line
		err                 string
	}{
		{"path", "/a?b,/t\n", "", nil, `bulk.csv:1: source "/a?b" ` + why},
		{"host and path", "/ok,/t\nexample.com/a?b,/t\n", "", nil, `bulk.csv:2: source "example.com/a?b" ` + why},
		{"URL with a fragment", "https://example.com/a#f,/t\n", "", nil, `bulk.csv:1: source "https://example.com/a#f" ` + why},
		{"path with a fragment", "/a#f,/t\n", "", nil, `bulk.csv:1: source "/a#f" ` + why},
		{"query after the host", "example.com?b,/t\n", "", nil, `bulk.csv:1: source "example.com?b" holds a query or fragment after its host`},
		{"escaped", "/a%3Fb,/t\nexample.com/c%3Fd,/t\n", "", []string{"|/a%3Fb|/t|301@1", "example.com|/c%3Fd|/t|301@2"}, ""},
		{"decoded path", "/a?b,/t\nexample.com/c?d,/t\n", "path = \"decoded\"\n", []string{"|/a?b|/t|301@1", "example.com|/c?d|/t|301@2"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkCSVReaders(t, tt.csv, tt.defaults, tt.want, tt.err)
		})
	}
}
