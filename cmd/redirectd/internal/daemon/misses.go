package daemon

import (
	"context"
	"errors"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/admin"
)

// Misses makes the service an admin.MissReporter: GET /misses.
func (s *service) Misses(ctx context.Context, host string, limit int) ([]admin.MissInfo, error) {
	list, err := s.srv.Misses(ctx, host, limit)
	if errors.Is(err, engine.ErrMissesOff) {
		return nil, admin.ErrMissesOff
	}
	return list, err
}
