package daemon

import (
	"log/slog"
	"os"
	"testing"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/configload"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/promtext"
)

// exampleLoader loads the built-in example from cmd/redirectd/example, as
// package main embeds it.
var exampleLoader = configload.Loader{Example: os.DirFS("../.."), Name: "example/redirectd.toml"}

// TestServiceMetricHelp fails when a family newService registers has no
// line in serviceMetricHelp.
func TestServiceMetricHelp(t *testing.T) {
	cfg, err := exampleLoader.Load("")
	if err != nil {
		t.Fatal(err)
	}
	svc := newService(engine.New(engine.Options{}, cfg.Set), cfg, "", exampleLoader, nil, slog.New(slog.DiscardHandler))
	for _, fam := range promtext.Missing(svc.set, serviceMetricHelp) {
		t.Errorf("metric family %s has no help: add a one-line description to serviceMetricHelp in cmd/redirectd/internal/daemon/backend.go", fam)
	}
}
