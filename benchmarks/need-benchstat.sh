# Sourced by the scripts that compare benchmark runs: puts benchstat, at
# the version the figures in README.md were made with, on PATH, installing
# it from the module proxy when it is missing.
BENCHSTAT_VERSION=v0.0.0-20260908200009-22c9c6c9d4da
if ! command -v benchstat >/dev/null; then
	echo "installing benchstat ($BENCHSTAT_VERSION) from the module proxy" >&2
	go install "golang.org/x/perf/cmd/benchstat@$BENCHSTAT_VERSION"
	PATH=$PATH:$(go env GOPATH)/bin
fi
