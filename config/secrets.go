package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Secrets (the admin token, the source's header) may be named by a file
// instead of written in the config, so that a Kubernetes Secret or a
// systemd credential mounted as a file never enters the ConfigMap or the
// config's repository. The file is read at every load, start and reload
// alike: a rotated secret takes effect with a reload, and a file that
// is missing or unreadable is a config error naming the key, refused by
// check as by serve, rather than a 401 found later.

// maxSecretBytes bounds a secret file: a token is some dozens of bytes,
// and a path pointing at a large file by mistake must not be read whole.
const maxSecretBytes = 64 << 10

// readSecret reads the secret in the file at path, without the white
// space around it (the newline an editor or `echo` leaves).
func readSecret(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is in the message already
		}
		return "", fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretBytes+1))
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", path, err) // a folder, say
	}
	if len(b) > maxSecretBytes {
		return "", fmt.Errorf("%s is larger than %d KiB; it should hold the secret alone", path, maxSecretBytes>>10)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return s, nil
}

// secretPath returns path as read: relative to the config's folder.
func secretPath(file, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(filepath.Dir(file), path)
}

// checkAdminToken reads [admin] token_file into Admin.Token.
func checkAdminToken(file string, a *Admin, loc *locator, errs *errorList) {
	if a.TokenFile == "" {
		return
	}
	bad := func(format string, args ...any) {
		errs.add(&Error{File: file, Line: loc.line("admin", 0, "token_file"), What: "[admin]", Key: "token_file", Msg: fmt.Sprintf(format, args...)})
	}
	if a.Token != "" {
		bad("set token or token_file, not both")
		return
	}
	a.TokenFile = secretPath(file, a.TokenFile)
	token, err := readSecret(a.TokenFile)
	if err != nil {
		bad("%v", err)
		return
	}
	a.Token = token
}
