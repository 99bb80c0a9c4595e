package daemon

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadOnlyMapping(t *testing.T) {
	const exe = "/usr/bin/redirectd"
	type want struct {
		Lo, Hi uintptr
		OK     bool
	}
	cases := []struct {
		name, line string
		want       want
	}{
		{"code", "00400000-010d3000 r-xp 00000000 08:01 123 /usr/bin/redirectd", want{0x400000, 0x10d3000, true}},
		{"read-only data", "010d3000-01d21000 r--p 00cd3000 08:01 123 /usr/bin/redirectd", want{0x10d3000, 0x1d21000, true}},
		{"data segment", "01d21000-01dd1000 rw-p 01921000 08:01 123 /usr/bin/redirectd", want{}},
		{"another file", "7f36-7f37 r-xp 00000000 08:01 9 /usr/lib/libc.so.6", want{}},
		{"anonymous", "01dd1000-03e43000 rw-p 00000000 00:00 0", want{}},
		{"a path with a space", "1000-2000 r-xp 00000000 08:01 5 /opt/my dir/redirectd", want{}},
		{"an empty range", "2000-2000 r-xp 00000000 08:01 123 /usr/bin/redirectd", want{}},
		{"not hex", "zz-2000 r-xp 00000000 08:01 123 /usr/bin/redirectd", want{}},
		{"no dash", "2000 r-xp 00000000 08:01 123 /usr/bin/redirectd", want{}},
		{"short", "1000-2000 r-xp", want{}},
	}
	for _, c := range cases {
		lo, hi, ok := readOnlyMapping([]byte(c.line), exe)
		if diff := cmp.Diff(c.want, want{lo, hi, ok}); diff != "" {
			t.Errorf("%s: %q (-want +got):\n%s", c.name, c.line, diff)
		}
	}
	if _, _, ok := readOnlyMapping([]byte("1000-2000 r-xp 00000000 08:01 5 /opt/my dir/redirectd"), "/opt/my dir/redirectd"); !ok {
		t.Error("a path with a space: not matched to itself")
	}
}

// TestPageOutExecutable checks that the test binary's own resident pages
// drop once paged out: the call reaches the kernel with the right ranges.
func TestPageOutExecutable(t *testing.T) {
	before, ok := exeResident(t)
	if !ok {
		t.Skip("/proc/self/smaps is absent: no mappings to read")
	}
	pageOutExecutable()
	after, _ := exeResident(t)
	t.Logf("the test binary's resident read-only pages: %d KiB before, %d KiB after", before, after)
	if after >= before {
		t.Errorf("resident pages of the executable %d KiB after paging out, %d before: want fewer", after, before)
	}
}

// exeResident sums the Rss of the executable's read-only mappings in
// /proc/self/smaps, in KiB.
func exeResident(t *testing.T) (int, bool) {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, false
	}
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	total, in := 0, false
	for _, line := range strings.Split(string(smaps), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			_, _, in = readOnlyMapping([]byte(line), exe)
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Rss:"); in && ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatalf("smaps: %q: %v", line, err)
			}
			total += kb
		}
	}
	return total, true
}
