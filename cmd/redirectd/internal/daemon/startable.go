package daemon

import (
	"fmt"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/admin"
)

// Startable reports what serve would refuse in a config that loads,
// short of a port being taken: the traffic and TLS addresses, and the
// admin address and token. check and serve both call it, so that a
// config check passes is one serve starts with (and an ExecStartPre check
// means what it says).
func Startable(cfg *config.Config) error {
	if err := engine.CheckListen(cfg.Server.Listen); err != nil {
		return fmt.Errorf("%s: [server] listen: %w", cfg.Path, err)
	}
	if cfg.TLS.Listen != "" {
		if err := engine.CheckListen(cfg.TLS.Listen); err != nil {
			return fmt.Errorf("%s: [tls] listen: %w", cfg.Path, err)
		}
	}
	if cfg.Admin.Listen != "off" {
		if err := admin.Check(adminOptions(cfg)); err != nil {
			return fmt.Errorf("%s: [admin]: %w", cfg.Path, err)
		}
	}
	return nil
}
