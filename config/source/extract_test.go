package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// entry is one tar entry for tarball.
type entry struct {
	name, body string
	typ        byte   // tar.TypeReg when 0
	link       string // for links
}

// tarball builds a tar archive of ents, gzip-compressed when gz.
func tarball(t testing.TB, gz bool, ents ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	var tw *tar.Writer
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		tw = tar.NewWriter(zw)
	} else {
		tw = tar.NewWriter(&buf)
	}
	for _, e := range ents {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Typeflag: typ, Linkname: e.link, Mode: 0o600, Format: tar.FormatPAX}
		if typ == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	if zw != nil {
		zw.Close()
	}
	return buf.Bytes()
}

// tree lists the files under dir with their contents, "name/" for
// folders, and fails on anything else (a link).
func tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case rel == ".":
		case d.IsDir():
			out[filepath.ToSlash(rel)+"/"] = ""
		case d.Type().IsRegular():
			b, _ := os.ReadFile(p)
			out[filepath.ToSlash(rel)] = string(b)
		default:
			t.Errorf("%s is a %v, not a file or folder", rel, d.Type())
		}
		return nil
	})
	return out
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name    string
		ents    []entry
		lim     Limits
		want    map[string]string // nil: an error
		reason  Reason
		errPart string
	}{
		{name: "files and folders", ents: []entry{{name: "./", typ: tar.TypeDir}, {name: "./redirectd.toml", body: "x"}, {name: "maps/", typ: tar.TypeDir}, {name: "maps/a.map", body: "/a /b;"}},
			want: map[string]string{"redirectd.toml": "x", "maps/": "", "maps/a.map": "/a /b;"}},
		{name: "file in a folder not listed", ents: []entry{{name: "deep/er/a.map", body: "y"}},
			want: map[string]string{"deep/": "", "deep/er/": "", "deep/er/a.map": "y"}},
		{name: "double slash cleaned", ents: []entry{{name: "a//b", body: "z"}}, want: map[string]string{"a/": "", "a/b": "z"}},
		{name: "dot dot", ents: []entry{{name: "../evil", body: "x"}}, reason: ReasonArchive, errPart: `"../evil" climbs out`},
		{name: "dot dot inside", ents: []entry{{name: "a/../../evil", body: "x"}}, reason: ReasonArchive, errPart: "climbs out"},
		{name: "dot dot that stays inside is refused too", ents: []entry{{name: "a/../b", body: "x"}}, reason: ReasonArchive, errPart: "climbs out"},
		{name: "absolute", ents: []entry{{name: "/etc/cron.d/x", body: "x"}}, reason: ReasonArchive, errPart: "absolute path"},
		{name: "symlink", ents: []entry{{name: "l", typ: tar.TypeSymlink, link: "/etc"}}, reason: ReasonArchive, errPart: `"l" is a link (to "/etc")`},
		{name: "symlink then through it", ents: []entry{{name: "l", typ: tar.TypeSymlink, link: ".."}, {name: "l/x", body: "x"}}, reason: ReasonArchive, errPart: "is a link"},
		{name: "hard link", ents: []entry{{name: "a", body: "x"}, {name: "h", typ: tar.TypeLink, link: "/etc/passwd"}}, reason: ReasonArchive, errPart: "is a link"},
		{name: "fifo", ents: []entry{{name: "f", typ: tar.TypeFifo}}, reason: ReasonArchive, errPart: "only regular files and folders"},
		{name: "device", ents: []entry{{name: "d", typ: tar.TypeChar}}, reason: ReasonArchive, errPart: "only regular files and folders"},
		{name: "twice", ents: []entry{{name: "a", body: "1"}, {name: "./a", body: "2"}}, reason: ReasonArchive, errPart: `holds "a" twice`},
		{name: "backslash", ents: []entry{{name: `..\evil`, body: "x"}}, reason: ReasonArchive, errPart: "not a plain relative path"},
		{name: "empty", ents: nil, reason: ReasonArchive, errPart: "empty"},
		{name: "too many", ents: []entry{{name: "a", body: "1"}, {name: "b", body: "2"}, {name: "c", body: "3"}}, lim: Limits{Files: 2, Bytes: 100},
			reason: ReasonTooLarge, errPart: "more than 2 entries"},
		{name: "too big", ents: []entry{{name: "a", body: "123456"}, {name: "b", body: "123456"}}, lim: Limits{Files: 10, Bytes: 10},
			reason: ReasonTooLarge, errPart: "more than 10 bytes"},
	}
	for _, tt := range tests {
		for _, gz := range []bool{true, false} {
			t.Run(tt.name+map[bool]string{true: " gz", false: " tar"}[gz], func(t *testing.T) {
				dir := t.TempDir()
				lim := tt.lim
				if lim.Files == 0 {
					lim = DefaultLimits
				}
				err := Extract(bytes.NewReader(tarball(t, gz, tt.ents...)), dir, lim)
				if tt.want == nil {
					var e *Error
					if !errors.As(err, &e) || e.Reason != tt.reason || !strings.Contains(err.Error(), tt.errPart) {
						t.Fatalf("Extract = %v, want a %s error with %q", err, tt.reason, tt.errPart)
					}
					tree(t, dir) // whatever was written is files and folders only
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, tree(t, dir)); diff != "" {
					t.Errorf("unpacked (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestExtractNotAnArchive(t *testing.T) {
	for name, b := range map[string][]byte{
		"gzip of text":  gzipped("just text"),
		"broken gzip":   {0x1f, 0x8b, 8, 0, 0},
		"truncated tar": tarball(t, false, entry{name: "a", body: strings.Repeat("x", 2000)})[:1200],
	} {
		t.Run(name, func(t *testing.T) {
			err := Extract(bytes.NewReader(b), t.TempDir(), DefaultLimits)
			if ReasonOf(err) != ReasonArchive {
				t.Errorf("Extract = %v, want an archive error", err)
			}
		})
	}
}

func gzipped(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

// FuzzExtract unpacks arbitrary bytes into a folder inside a parent, and
// checks that nothing was written outside the folder, that the folder
// holds only files and folders, and that an error always has a Reason.
func FuzzExtract(f *testing.F) {
	f.Add(tarball(f, true, entry{name: "redirectd.toml", body: "[[rule]]"}, entry{name: "m/a.map", body: "/a /b;"}))
	f.Add(tarball(f, false, entry{name: "../x", body: "x"}))
	f.Add(tarball(f, false, entry{name: "l", typ: tar.TypeSymlink, link: "/"}, entry{name: "l/x", body: "x"}))
	f.Add(tarball(f, false, entry{name: "a/", typ: tar.TypeDir}, entry{name: "a/../../y", body: "y"}))
	f.Add(tarball(f, true, entry{name: "h", typ: tar.TypeLink, link: "../../etc/passwd"}))
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		parent := t.TempDir()
		dir := filepath.Join(parent, "in")
		os.Mkdir(dir, 0o755)
		err := Extract(bytes.NewReader(b), dir, Limits{Files: 50, Bytes: 1 << 20})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error without a Reason: %v", err)
			}
		}
		var outside []string
		ents, _ := os.ReadDir(parent)
		for _, e := range ents {
			outside = append(outside, e.Name())
		}
		sort.Strings(outside)
		if !cmp.Equal(outside, []string{"in"}) {
			t.Fatalf("written outside the folder: %v", outside)
		}
		tree(t, dir)
	})
}
