package config

import (
	"fmt"
	"path/filepath"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// AdminToken is one [[admin.tokens]] entry: a named token with a role,
// and optionally the hosts it may see and edit.
type AdminToken struct {
	// Name is who the token belongs to; the audit trail records it.
	Name string `toml:"name"`
	// Role is viewer, editor, publisher or admin (edit.ParseRole names them: the editing model's roles).
	Role string `toml:"role"`
	// Token or TokenFile (read at every load into Token, as the
	// [admin] token_file is) is the secret itself.
	Token     string `toml:"token"`
	TokenFile string `toml:"token_file"`
	// Hosts, when set, limit the token to the rules of these hosts, in
	// the rules' host syntax ("example.com", "*.example.com").
	Hosts []string `toml:"hosts"`
}

// DefaultMaxUploadBytes bounds an upload to a draft unless [admin]
// max_upload_bytes says otherwise: a million CSV rows of 200 bytes fit.
const DefaultMaxUploadBytes = 256 << 20

// The defaults of [admin] max_drafts and max_draft_entries: a token's
// open drafts and the entries they hold together. An entry held in a
// draft costs about 360 bytes of memory with a 60-byte from and to
// (TestDraftEntryMemory), so a token's million entries cost about
// 360 MB at most.
const (
	DefaultMaxDrafts       = 10
	DefaultMaxDraftEntries = 1_000_000
)

// checkAdminTokens reads each [[admin.tokens]] entry's token_file and
// checks its name, role and hosts.
func checkAdminTokens(file string, a *Admin, loc *locator, errs *errorList) {
	seen := map[string]bool{}
	for i := range a.Tokens {
		t := &a.Tokens[i]
		bad := func(key, format string, args ...any) {
			errs.add(&Error{File: file, Line: loc.line("admin.tokens", i, key), What: fmt.Sprintf("[[admin.tokens]] #%d", i+1), Key: key, Msg: fmt.Sprintf(format, args...)})
		}
		switch {
		case t.Name == "":
			bad("name", "is required: the audit trail records who promoted what by it")
		case seen[t.Name]:
			bad("name", "%q is the name of an earlier token; give each its own", cut(t.Name))
		}
		seen[t.Name] = true
		if _, err := edit.ParseRole(t.Role); err != nil {
			bad("role", "%v", err)
		}
		switch {
		case t.Token != "" && t.TokenFile != "":
			bad("token_file", "set token or token_file, not both")
		case t.Token == "" && t.TokenFile == "":
			bad("token_file", "is required: the file holding this token (or token, the token itself)")
		case t.TokenFile != "":
			t.TokenFile = secretPath(file, t.TokenFile)
			s, err := readSecret(t.TokenFile)
			if err != nil {
				bad("token_file", "%v", err)
			}
			t.Token = s
		}
		for j, h := range t.Hosts {
			name, msg := asciiHost(h)
			if msg != "" {
				bad("hosts", "%q %s", cut(h), msg)
			}
			t.Hosts[j] = name
		}
		if t.Hosts != nil && len(t.Hosts) == 0 {
			bad("hosts", "the list is empty; leave hosts out for every host")
		}
	}
}

// checkAdminEdits resolves [admin] edits_dir and audit_log and fills the
// upload bound. A node whose rules come from [rules] source cannot keep
// edits of its own: edits_dir is refused there.
func checkAdminEdits(file string, cfg *Config, loc *locator, errs *errorList) {
	a := &cfg.Admin
	bad := func(key, format string, args ...any) {
		errs.add(&Error{File: file, Line: loc.line("admin", 0, key), What: "[admin]", Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if a.EditsDir != "" {
		if cfg.Reload.Source != "" {
			bad("edits_dir", "this node's rules come from [rules] source: edit them on the node that serves it, and remove edits_dir here")
		}
		if !filepath.IsAbs(a.EditsDir) {
			a.EditsDir = filepath.Join(filepath.Dir(file), a.EditsDir)
		}
	}
	switch {
	case a.AuditLog == "off":
	case a.AuditLog == "" && a.EditsDir != "":
		a.AuditLog = filepath.Join(a.EditsDir, "audit.jsonl")
	case a.AuditLog != "" && !filepath.IsAbs(a.AuditLog):
		a.AuditLog = filepath.Join(filepath.Dir(file), a.AuditLog)
	}
	switch {
	case a.MaxUploadBytes == 0:
		a.MaxUploadBytes = DefaultMaxUploadBytes
	case a.MaxUploadBytes < 0:
		bad("max_upload_bytes", "%d is negative; give a size in bytes, such as %d (256 MiB)", a.MaxUploadBytes, DefaultMaxUploadBytes)
	}
	switch {
	case a.MaxDrafts == 0:
		a.MaxDrafts = DefaultMaxDrafts
	case a.MaxDrafts < 0:
		bad("max_drafts", "%d is negative; give the drafts one token may have open, such as %d", a.MaxDrafts, DefaultMaxDrafts)
	}
	switch {
	case a.MaxDraftEntries == 0:
		a.MaxDraftEntries = DefaultMaxDraftEntries
	case a.MaxDraftEntries < 0:
		bad("max_draft_entries", "%d is negative; give the entries one token's drafts may hold together, such as %d", a.MaxDraftEntries, DefaultMaxDraftEntries)
	}
}
