package nginx

import "github.com/redirectd/redirectd/config/importer"

// Report is what `import nginx` prints for the files written: paths
// relative to dir when they lie in it (dir "" keeps them as they are).
func (r *Result) Report(written []string, dir string) *importer.Report {
	return &importer.Report{Files: written, Dir: dir, Forms: r.Counts(), Notes: r.Notes}
}
