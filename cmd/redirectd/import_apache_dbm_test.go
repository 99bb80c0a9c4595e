package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/redirectd/redirectd/internal/testutil"
)

// TestImportApacheDBM: dbm: RewriteMaps made by Apache's own httxt2dbm
// in the formats the import reads (the default type, Debian's Berkeley
// DB hash; dbm=db; dbm=sdbm), looked up by rules in conditions and
// substitutions, against a real Apache reading the same files.
func TestImportApacheDBM(t *testing.T) {
	t.Parallel()
	findApache(t)
	bin, err := exec.LookPath("httxt2dbm")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/httxt2dbm"); err != nil {
			testutil.Missing(t, "httxt2dbm is not installed (apt-get install apache2-utils); the dbm: maps are not compared")
		}
	}
	text := "# moved\nold-a /new-a\nOld-B http://ex.test/b\nsp%20x /spaced\nlong /l/o/n/g/er/than/most\n"
	for i := range 40 {
		text += "page-" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + " /pages/" + string(rune('a'+i%26)) + "\n"
	}
	server := "RewriteEngine On\nRewriteMap def dbm:maps/def\nRewriteMap bdb dbm=db:maps/bdb\nRewriteMap sd dbm=SDBM:maps/sd\n" +
		"RewriteRule ^/def/(.*)$ ${def:$1|/def-none} [R=301,L]\nRewriteRule ^/bdb/(.*)$ ${bdb:$1} [R=302,L]\n" +
		"RewriteCond ${sd:%{QUERY_STRING}|NONE} !=NONE\nRewriteRule ^/sd$ ${sd:%{QUERY_STRING}}? [R=302,L]\n"
	paths := []string{"/def/old-a", "/def/OLD-A", "/def/Old-B", "/def/old-b", "/def/none", "/def/sp%20x", "/def/sp%2520x", "/def/long", "/def/page-ab", "/def/page-nb?x=1",
		"/bdb/old-a", "/bdb/Old-B?q", "/bdb/zz", "/bdb/page-cb", "/sd?old-a", "/sd?Old-B", "/sd?zz", "/sd", "/sd?page-ab", "/sd?sp%20x"}
	apacheRoundTrip(t, func(dir, addr string) map[string]string {
		maps := filepath.Join(dir, "maps")
		if err := os.MkdirAll(maps, 0o755); err != nil {
			t.Fatal(err)
		}
		src := filepath.Join(maps, "moved.txt")
		if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, f := range [][2]string{{"", "def"}, {"DB", "bdb"}, {"SDBM", "sd"}} {
			args := []string{"-i", src, "-o", filepath.Join(maps, f[1])}
			if f[0] != "" {
				args = append(args, "-f", f[0])
			}
			if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
				t.Fatalf("httxt2dbm %v: %v\n%s", args, err, out)
			}
		}
		return map[string]string{"httpd.conf": apacheConf(dir, addr, server), "www/.keep": ""}
	}, nil, []string{"example.test"}, paths, nil)
}
