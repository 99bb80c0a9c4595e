package apache

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadDBM reads the files Apache's httxt2dbm writes, in each format
// it makes: SDBM and Berkeley DB read back whole; GDBM refused, saying
// so.
func TestReadDBM(t *testing.T) {
	bin, err := exec.LookPath("httxt2dbm")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/httxt2dbm"); err != nil {
			t.Skip("httxt2dbm is not installed (apt-get install apache2-utils): the dbm: formats are not read back")
		}
	}
	dir := t.TempDir()
	var text strings.Builder
	want := map[string]string{}
	for i := range 300 {
		k, v := "key-"+strings.Repeat("k", i%7)+string(rune('a'+i%26))+itoa3(i), "/value/"+strings.Repeat("v", i%40)+itoa3(i)
		text.WriteString(k + " " + v + "\n")
		want[k] = v
	}
	src := filepath.Join(dir, "m.txt")
	if err := os.WriteFile(src, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"SDBM", "DB", "GDBM", "default"} {
		out := filepath.Join(dir, strings.ToLower(f))
		if b, err := exec.Command(bin, "-f", f, "-i", src, "-o", out).CombinedOutput(); err != nil {
			t.Fatalf("httxt2dbm -f %s: %v\n%s", f, err, b)
		}
	}
	for typ, file := range map[string]string{"sdbm": "sdbm", "db": "db", "": "default"} {
		pairs, err := readDBM(typ, filepath.Join(dir, file))
		if err != nil {
			t.Fatalf("dbm=%s: %v", typ, err)
		}
		got := map[string]string{}
		for _, p := range pairs {
			got[p[0]] = p[1]
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("dbm=%s (-want +got):\n%s", typ, d)
		}
	}
	for typ, msg := range map[string]string{"gdbm": "a GDBM file", "": "a GDBM file", "ndbm": "NDBM"} {
		if _, err := readDBM(typ, filepath.Join(dir, "gdbm")); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("dbm=%s of a GDBM file: %v, want %q", typ, err, msg)
		}
	}
	if _, err := readDBM("", filepath.Join(dir, "none")); err == nil {
		t.Error("a missing file read")
	}
}

func itoa3(i int) string {
	return string(rune('0'+i/100)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
}

// FuzzDBM reads arbitrary bytes as SDBM and Berkeley DB files: errors,
// never a panic, and every pair read lies inside the input.
func FuzzDBM(f *testing.F) {
	page := make([]byte, 1024)
	copy(page, []byte{2, 0, 0xfb, 3, 0xf8, 3})
	copy(page[0x3f8:], "val")
	copy(page[0x3fb:], "key")
	f.Add(page)
	meta := make([]byte, 8192)
	copy(meta[12:], []byte{0x61, 0x15, 0x06, 0, 9, 0, 0, 0, 0, 0x10, 0, 0, 0, 8})
	copy(meta[4096+20:], []byte{2, 0, 0xf0, 0x0f, 0, 13, 0xfa, 0x0f, 0xf0, 0x0f})
	copy(meta[4096+0xff0:], "\x01value\x01key")
	f.Add(meta)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, read := range []func() ([][2]string, error){
			func() ([][2]string, error) { return sdbmPairs("f", data) },
			func() ([][2]string, error) { return readBDBHash(data) },
		} {
			pairs, err := read()
			if err != nil {
				continue
			}
			for _, p := range pairs {
				if len(p[0])+len(p[1]) > len(data) {
					t.Fatalf("pair %q longer than the input", p)
				}
			}
		}
	})
}
