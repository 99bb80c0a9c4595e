package main

import (
	"embed"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/configload"
	"github.com/redirectd/redirectd/config"
)

//go:embed example
var exampleFS embed.FS

// exampleName is how the embedded example is named in messages.
const exampleName = "example/redirectd.toml"

// loader loads the config a command names, the embedded example when
// none is named.
var loader = configload.Loader{Example: exampleFS, Name: exampleName}

// loadConfig loads file, or the embedded example when file is "".
func loadConfig(file string) (*config.Config, error) {
	return loader.Load(file)
}
