package config

import (
	"github.com/redirectd/redirectd/matcher"
)

// Config is a loaded, validated configuration.
type Config struct {
	// Path is the file it was read from.
	Path   string
	Server Server
	// Rules lists every rule, from [[rule]] tables and map files, in file
	// order; Set is them compiled.
	Rules []matcher.Rule
	Set   *matcher.Set
}

// Server is the [server] table.
type Server struct {
	// Listen is the traffic port's address.
	Listen string `toml:"listen"`
	// EventLoops is the number of event loops; 0 means one per CPU.
	EventLoops int `toml:"event_loops"`
}

// DefaultListen is the traffic address when [server] listen is not set.
const DefaultListen = "127.0.0.1:8080"

// DefaultStatus is the status of a rule that sets none.
const DefaultStatus = 301

// known lists the keys each table accepts. Keys are compared exactly, so a
// misspelt or differently cased key is reported rather than ignored.
var known = map[string][]string{
	"":       {"server", "rule", "map"},
	"server": {"listen", "event_loops"},
	"rule":   {"match", "from", "to", "status", "host"},
	"map":    {"file", "match", "status", "host"},
}
