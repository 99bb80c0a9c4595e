package edits

import (
	"fmt"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/plural"
)

// A draft is held in memory until it is promoted or discarded, so what
// one token may hold is bounded: [admin] max_drafts drafts open, and
// max_draft_entries entries in them together. Entries count against the
// token that made the draft, whoever adds them. An upload stops reading
// once it holds more entries than the quota, so a refused upload costs
// no more memory than an accepted one.

// draftQuota returns ErrQuota when author may not open another draft
// (ed.mu held).
func (ed *State) draftQuota(author string) error {
	n := 0
	for _, d := range ed.drafts {
		if d.info.Author == author {
			n++
		}
	}
	if n >= ed.maxDrafts {
		return fmt.Errorf("%w: %q has %s open, the most [admin] max_drafts allows; promote or discard one", edit.ErrQuota, author, plural.Count(n, "draft", "drafts"))
	}
	return nil
}

// heldBy counts the entries of author's drafts but skip (ed.mu held).
func (ed *State) heldBy(author string, skip *draft) int {
	n := 0
	for _, d := range ed.drafts {
		if d.info.Author == author && d != skip {
			n += d.ov.Len()
		}
	}
	return n
}

// entryQuota returns ErrQuota when d would hold entries in all, with the
// other drafts of its author (ed.mu held).
func (ed *State) entryQuota(d *draft, entries int) error {
	held := ed.heldBy(d.info.Author, d)
	if held+entries > ed.maxEntries {
		return fmt.Errorf("%w: the drafts of %q would hold %d entries, over the %d [admin] max_draft_entries allows; promote or discard a draft, or split the upload", edit.ErrQuota, d.info.Author, held+entries, ed.maxEntries)
	}
	return nil
}
