package daemon

import (
	"fmt"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// Ruleset returns the serving rules as a rule-set archive, made by
// package ruleset from the snapshot taken at the last swap, with a copy
// in edits_dir: an edited node can be a fleet's source.
func (s *service) Ruleset() (edit.Ruleset, error) {
	st := s.ed.Store()
	if st == nil {
		return edit.Ruleset{}, fmt.Errorf("%w: set [admin] edits_dir", edit.ErrNoRuleset)
	}
	return s.ruleset.Get(s.snap.Load(), st.Dir(), configSyntax{})
}
