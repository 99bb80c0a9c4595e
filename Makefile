# redirectd: see README.md.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
BENCH_PKGS := ./matcher ./httpparse ./engine ./config

.PHONY: build run test test-lint test-race test-real-maps test-allocs test-without-race test-bench-allocs test-bench-smoke test-fleet test-console bench bench-startup bench-scale bench-upstream bench-compare bench-certs bench-benchstat fuzz install clean

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/redirectd ./cmd/redirectd

# Serves the built-in example on 127.0.0.1:8080.
run: build
	bin/redirectd serve

# staticcheck, vet, every test under the race detector, then what needs a
# build without it: the allocation tests (the race detector allocates),
# the real maps and every benchmark once (test-without-race), and the hot
# path's benchmarks' allocations.
test: test-lint test-race test-without-race test-bench-allocs

# staticcheck at a pinned version, fetched by go run from the module proxy
# (no install step, the same findings on every machine); zero findings.
# Then gofmt, go.mod and go.sum as go mod tidy leaves them, and no
# merge-conflict markers left in any tracked file (README's included).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
test-lint:
	$(GO) run $(STATICCHECK) ./...
	@files="$$(gofmt -l .)"; test -z "$$files" || { echo "gofmt would change these files (run gofmt -w):"; echo "$$files"; exit 1; }
	$(GO) mod tidy -diff
	@if git grep -nE '^(<<<<<<<|>>>>>>>)( |$$)' -- . ; then echo "merge-conflict markers above: resolve them"; exit 1; fi

# The imports of the real 42,000-key gwern map (which skip without
# ../shared/realmaps) run once translating and self-checking on one
# goroutine: under the race detector they took 145 of the 150 s of
# cmd/redirectd and found nothing it could (the importer's code runs
# under it in every other import test), so they run without it, in
# test-real-maps. So does werf's real site (7,755 requests to nginx and
# to redirectd): 31 s under the detector, 8 s without;
# and the real sites' .htaccess files against Apache (15,000 requests,
# one at a time): 51 s under it, 25 s without; the same comparison on
# the two sites kept in testdata (TestImportApacheSiteShapes), 7 CPU
# seconds under it, 4 without (the other Apache import tests run the
# importer and the self-check under it).
REAL_MAPS := ^(TestImportNginx(Gwern|Werf)|TestImportApache(RealSites|SiteShapes)$$)
# Property and budget tests that run the parser, the matcher's compiler,
# the nginx importer or the log's escaper on one goroutine over large
# inputs: the race detector has nothing to find there (each package's
# other tests run the same code under it) and slowed them 10 to 240
# times, to 122 s for TestParseResume (1 s without), 85 s for
# TestRuleBytesRefusedPeak (8 s), 36 s for TestSiteShapes (0.15 s), on a
# 2-CPU machine under load; with them matcher (206 s) and httpparse
# (148 s) were the suite's longest packages, 33 s and 10 s without.
# On a quiet machine: TestStructuralBigMaps (nginx) 11 s under it, 0.8 s
# without; TestImportLarge (Netlify) 23 s, 2.9 s.
# They run without it, in test-without-race.
ONE_GOROUTINE := ^(TestParseResume|TestErrorsAreFinal|TestSiteShapes|TestRuleBytesRefusedPeak|TestRuleBytesEstimate|TestAltIndexAsInTurn|TestRulesBytesHostileMap|TestDecodeRune|TestStructuralBigMaps|TestImportLarge)$$
NO_RACE := $(REAL_MAPS)|$(ONE_GOROUTINE)
# The console's browser tests keep a screenshot of each page in
# bin/console-screenshots (REDIRECTD_ARTIFACTS), for CI to keep. The
# results pass through internal/testreport, which writes what go test
# writes and then lists every skipped test with its reason.
#
# GORACE: a race-enabled test binary sleeps 1 s before it exits by
# default (atexit_sleep_ms), so that goroutines still running can report
# a race; with 60 test binaries that is 30 s of this 2-CPU machine's
# wall time. Our tests wait for the goroutines they start, so 100 ms is
# kept for any that are ending.
RACE_ENV := GORACE="atexit_sleep_ms=100 $(GORACE)"
test-race:
	$(GO) vet ./...
	@mkdir -p bin
	$(GO) build -o bin/testreport ./internal/testreport
	$(RACE_ENV) REDIRECTD_ARTIFACTS=$(CURDIR)/bin/console-screenshots $(GO) test -race -count=1 -json -skip '$(NO_RACE)' ./... 2>&1 | bin/testreport

test-real-maps:
	$(GO) test -count=1 -run '$(REAL_MAPS)' ./cmd/redirectd

test-allocs:
	$(GO) test -count=1 -run 'Allocs' ./...

# test-real-maps, test-allocs, the NO_RACE tests and test-bench-smoke in
# one go test: each package's test binary without the race detector is
# built, linked and started once rather than three times (52 packages on
# every run).
test-without-race:
	REDIRECTD_BENCH_SMOKE=1 $(GO) test -count=1 -run 'Allocs|$(NO_RACE)' -bench . -benchtime 1x ./...

# The hot path's benchmarks (parse, match, answer, access log line) must
# report 0 allocs/op: a CI-speed guard next to the AllocsPerRun tests.
HOT_BENCH_PKGS := ./matcher ./httpparse ./httpparse/proxyproto ./engine ./engine/accesslog ./engine/h2
HOT_BENCH      := ^Benchmark(Lookup|LookupExact|LookupConditions|LookupSitemap|Serve|ServeAnswers|Parse|ParseSplit|Append|Backtrack/port|ConnAnswer|Traffic|ConnChurn)(/|$$)
test-bench-allocs:
	@mkdir -p bin
	$(GO) test -count=1 -run '^$$' -bench 'Lookup|Serve|Parse|Append|Backtrack|ConnAnswer|Traffic|ConnChurn' -benchmem -benchtime 1000x $(HOT_BENCH_PKGS) >bin/hot-bench.txt || (cat bin/hot-bench.txt; exit 1)
	$(GO) run ./benchmarks/allocguard -match '$(HOT_BENCH)' <bin/hot-bench.txt

# Every benchmark once, so none rots between benchmark runs.
# REDIRECTD_BENCH_SMOKE: the benchmarks of a million rules build a
# hundredth of them here (testutil.BenchSize).
test-bench-smoke:
	REDIRECTD_BENCH_SMOKE=1 $(GO) test -count=1 -run '^$$' -bench . -benchtime 1x ./...

# The console's browser tests in headless Chromium, keeping a screenshot of
# every page in bin/console-screenshots (an absolute path: go test runs each
# package in its own folder).
test-console:
	REDIRECTD_ARTIFACTS=$(CURDIR)/bin/console-screenshots $(GO) test -count=1 -run 'TestConsole|TestDiffPageBrowser' ./cmd/redirectd ./engine/admin/console

# The fleet drill (deploy/README.md, "Running a fleet"): two nodes in network
# namespaces behind HAProxy under load for 30 s. Needs root, ip and haproxy.
test-fleet:
	REDIRECTD_FLEET=1 $(GO) test -count=1 -v -timeout 5m -run '^TestFleet(ACME)?$$' ./cmd/redirectd

# Go benchmarks: lookups, parsing, answering, loading the reference rule set,
# and start-up to the first answer.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(BENCH_PKGS)
	$(GO) test -run '^$$' -bench Startup -benchtime 5x ./cmd/redirectd

# Start-up time and memory of the binary with map files of 100k, 1M and
# 10M exact rules (writes up to 850 MB of map file), lookups in a packed
# table of 10k vs 1M rules, then the memory of RELOAD_RULES rules loaded
# and reloaded 5 times under a little loopback load, which fails on a
# failed request or a peak or settled RSS over its targets (benchmarks/README.md).
MAP_RULES ?= 100000,1000000,10000000
RELOAD_RULES ?= 1000000
bench-scale:
	MAP_RULES=$(MAP_RULES) $(GO) test -run '^$$' -bench StartupMap -benchtime 3x -timeout 30m ./cmd/redirectd
	$(GO) test -run '^$$' -bench LookupExact -benchmem ./matcher
	MAP_RULES=$(RELOAD_RULES) $(GO) test -run '^$$' -bench ReloadMap -benchtime 1x ./cmd/redirectd

# Forwarded misses against nginx's proxy_pass, side by side (installs nginx
# and wrk from Debian's packages when missing).
bench-upstream:
	benchmarks/upstream-compare.sh

# redirectd against nginx, HAProxy and Caddy (see benchmarks/README.md, "Benchmarks
# against nginx, HAProxy and Caddy"); settings from the environment:
# EXACT PREFIX REGEX DURATION RUNS CONCURRENCY SERVER_CPUS ONLY QUICK
# BASELINE SOAK SCALE SITEMAP SCENARIOS README.
bench-compare:
	$(GO) build -o bin/bench-compare ./benchmarks/compare
	bin/bench-compare

# Certificates: handshakes with the ACME storage local and in Redis, a
# restarted node's first handshake, on-demand issuance against Pebble
# (benchmarks/README.md, "Certificates: storage and issuance").
bench-certs:
	benchmarks/cert-figures.sh

# Go benchmarks of the working tree against OLD (a git ref) with benchstat.
OLD ?= HEAD~1
bench-benchstat:
	OLD=$(OLD) benchmarks/benchstat.sh

# A short run of every fuzz target.
FUZZTIME ?= 20s
fuzz:
	@set -e; for file in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
		pkg=./$$(dirname $${file#./}); \
		for name in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$file); do \
			par=; if [ "$$name" = FuzzExtract ]; then par='-parallel 1'; fi; \
			echo "$$pkg $$name"; \
			$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$par $$pkg; \
		done; \
	done

# Installs the binary, the systemd unit, the config (kept when present) and
# the logrotate file: make install [PREFIX=/usr/local] [DESTDIR=]
PREFIX     ?= /usr/local
SYSCONFDIR ?= /etc
UNITDIR    ?= /etc/systemd/system
install: build
	install -D -m 0755 bin/redirectd $(DESTDIR)$(PREFIX)/bin/redirectd
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/redirectd $(DESTDIR)$(SYSCONFDIR)/logrotate.d
	sed -e 's|/usr/local/bin/redirectd|$(PREFIX)/bin/redirectd|g' -e 's|/etc/redirectd/|$(SYSCONFDIR)/redirectd/|g' \
		deploy/redirectd.service > $(DESTDIR)$(UNITDIR)/redirectd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/redirectd.service
	test -e $(DESTDIR)$(SYSCONFDIR)/redirectd/redirectd.toml || \
		install -m 0644 deploy/redirectd.toml $(DESTDIR)$(SYSCONFDIR)/redirectd/redirectd.toml
	install -m 0644 deploy/logrotate/redirectd $(DESTDIR)$(SYSCONFDIR)/logrotate.d/redirectd
	install -D -m 0644 deploy/sysctl/90-redirectd.conf $(DESTDIR)$(SYSCONFDIR)/sysctl.d/90-redirectd.conf

clean:
	rm -rf bin
