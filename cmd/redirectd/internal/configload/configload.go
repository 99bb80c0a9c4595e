// Package configload loads the config a command names, or without one the
// built-in example, which package main embeds (an embedded file must sit
// beside or below the package that embeds it, and the example is
// cmd/redirectd/example).
package configload

import (
	"io/fs"

	"github.com/redirectd/redirectd/config"
)

// Loader loads configs, the example when no file is named.
type Loader struct {
	// Example holds the built-in example; Name is its config's path in
	// Example, which is how messages and logs name it.
	Example fs.FS
	Name    string
}

// Load loads file, or the example when file is "".
func (l Loader) Load(file string) (*config.Config, error) {
	if file == "" {
		return config.LoadFS(l.Example, l.Name)
	}
	return config.Load(file)
}
