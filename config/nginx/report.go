package nginx

import "github.com/redirectd/redirectd/config/importer"

// Report is what `import nginx` prints for the files written: paths
// relative to dir when they lie in it (dir "" keeps them as they are).
func (r *Result) Report(written []string, dir string) *importer.Report {
	forms := r.Counts()
	for _, st := range r.Structural {
		forms["location (location model)"] += countLocs(st.Locations)
		if len(st.Steps) > 0 {
			forms["server_rewrite (location model)"]++
		}
	}
	return &importer.Report{Files: written, Dir: dir, Forms: forms, Notes: r.Notes}
}
