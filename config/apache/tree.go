package apache

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// maxTreeFiles bounds the .htaccess files one tree gives.
const maxTreeFiles = 100_000

// FindHTAccess returns every .htaccess under root, a DocumentRoot, with
// the URL path of its folder, shallowest first. Folders that are
// symbolic links are not followed, and a .htaccess that is not a plain
// file (a link) is skipped: the import may run as root, and a link could
// name any file.
func FindHTAccess(root string) ([]HTAccess, error) {
	var out []HTAccess
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != ".htaccess" || !d.Type().IsRegular() {
			return nil
		}
		if len(out) >= maxTreeFiles {
			return fmt.Errorf("%s: more than %d .htaccess files", root, maxTreeFiles)
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		out = append(out, HTAccess{Dir: "/" + strings.TrimPrefix(filepath.ToSlash(rel), "."), File: p})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool {
		return len(out[i].Dir) < len(out[j].Dir) || len(out[i].Dir) == len(out[j].Dir) && out[i].Dir < out[j].Dir
	})
	return out, nil
}
