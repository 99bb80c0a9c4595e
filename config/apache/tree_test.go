package apache

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFindHTAccess(t *testing.T) {
	root := t.TempDir()
	other := t.TempDir()
	writeTree(t, root, map[string]string{".htaccess": "a", "blog/.htaccess": "b", "blog/2020/.htaccess": "c", "img/x.png": "", "docs/readme": ""})
	writeTree(t, other, map[string]string{".htaccess": "secret", "sub/.htaccess": "secret"})
	// A linked .htaccess and a linked folder are not read.
	os.Symlink(filepath.Join(other, ".htaccess"), filepath.Join(root, "docs", ".htaccess"))
	os.Symlink(other, filepath.Join(root, "linked"))
	got, err := FindHTAccess(root)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, h := range got {
		dirs = append(dirs, h.Dir+"="+filepath.Base(filepath.Dir(h.File)))
	}
	want := []string{"/=" + filepath.Base(root), "/blog=blog", "/blog/2020=2020"}
	if diff := cmp.Diff(want, dirs); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if _, err := FindHTAccess(filepath.Join(root, "missing")); err == nil {
		t.Error("a missing tree is no error")
	}
}
