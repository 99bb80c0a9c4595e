package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// h2load 1.52's summary, as it prints it.
const h2loadOut = `starting benchmark...
spawning thread #0: 1 total client(s). Timing-based test with 1s warm-up time and 2s main duration
Warm-up phase is over for thread #0.
Main benchmark duration is started for thread #0.
Main benchmark duration is over for thread #0. Stopping all clients.

finished in 2.00s, 65102.50 req/s, 4.88MB/s
requests: 130205 total, 130305 started, 130205 done, 130205 succeeded, 0 failed, 0 errored, 0 timeout
status codes: 0 2xx, 130205 3xx, 0 4xx, 0 5xx
traffic: 9.77MB (10239780) total, 7.85MB (8234421) headers (space savings 40.29%), 0B (0) data
                     min         max         mean         sd        +/- sd
time for request:      201us      5.49ms      1.34ms       0.31ms    71.10%
time for connect:        0us         0us         0us         0us     0.00%
`

func TestParseH2load(t *testing.T) {
	got, err := parseH2load([]byte(h2loadOut))
	if err != nil {
		t.Fatal(err)
	}
	want := h2loadSummary{Succeeded: 130205, Seconds: 2, MeanUS: 1340, Status3xx: 130205}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseH2load (-want +got):\n%s", diff)
	}
	if _, err := parseH2load([]byte("no protocol negotiated\n")); err == nil {
		t.Error("parseH2load took output without a summary")
	}
}
