package config

import (
	"fmt"
	"time"
)

// Duration is a TOML duration written as a string, such as "10s" or
// "1m30s". A bare integer is refused: BurntSushi/toml would read it as
// nanoseconds into a time.Duration, so `idle_timeout = 10` would mean 10 ns.
type Duration time.Duration

// UnmarshalTOML implements toml.Unmarshaler.
func (d *Duration) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("must be a duration in quotes, such as \"10s\", not %s", tomlType(v))
	}
	t, err := time.ParseDuration(s)
	if err != nil || t < 0 {
		return fmt.Errorf("%q is not a duration; write one such as \"500ms\", \"10s\" or \"1m\"", s)
	}
	*d = Duration(t)
	return nil
}

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }
