package casetest

import "testing"

// TestCaseLocation: an absolute Location made with the test server's
// own port is given the port of the case's Host (none for 80); every
// other Location is left as the server sent it.
func TestCaseLocation(t *testing.T) {
	const server = "127.0.0.1:40421"
	for _, tt := range []struct {
		loc, host, want string
	}{
		{"http://old.example:40421/company", "old.example", "http://old.example/company"},
		{"http://old.example:40421/company", "Old.Example.", "http://old.example/company"},
		{"http://old.example:40421/company", "old.example:80", "http://old.example/company"},
		{"http://old.example:40421/company?x=1", "old.example:8080", "http://old.example:8080/company?x=1"},
		{"http://old.example:40421", "old.example", "http://old.example"},
		{"http://old.example:40421?q", "old.example", "http://old.example?q"},
		{"http://[::1]:40421/a", "[::1]", "http://[::1]/a"},
		// Not the test server's origin: as sent.
		{"http://old.example:404210/a", "old.example", "http://old.example:404210/a"},
		{"http://other.example:40421/a", "old.example", "http://other.example:40421/a"},
		{"https://old.example:40421/a", "old.example", "https://old.example:40421/a"},
		{"http://old.example/a", "old.example", "http://old.example/a"},
		{"/company", "old.example", "/company"},
		{"", "old.example", ""},
	} {
		if got := caseLocation(tt.loc, tt.host, server); got != tt.want {
			t.Errorf("caseLocation(%q, %q) = %q, want %q", tt.loc, tt.host, got, tt.want)
		}
	}
}
