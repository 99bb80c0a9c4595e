#!/usr/bin/env bash
# The figures of benchmarks/README.md's "Certificates: storage and
# issuance": engine/tlsconf's storage benchmarks against the in-process
# Pebble and a real redis-server (Debian's redis-server), the two
# storages alternating in each of COUNT runs of one test binary, then
# benchstat with the storage as the column.
#
#   benchmarks/cert-figures.sh [COUNT=8] [HANDSHAKES=600] [NAMES=20] [ISSUE_COUNT=3]
set -euo pipefail
cd "$(dirname "$0")/../engine/tlsconf"
COUNT=${COUNT:-8}
HANDSHAKES=${HANDSHAKES:-600}
NAMES=${NAMES:-20}
ISSUE_COUNT=${ISSUE_COUNT:-3}
. ../../benchmarks/need-benchstat.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/tlsconf.test" .
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for i in $(seq "$COUNT"); do
	echo "run $i of $COUNT" >&2
	"$work/tlsconf.test" -test.run '^$' -test.bench 'HandshakeStorage' -test.benchtime "${HANDSHAKES}x" \
		-test.cpu 1 -test.count 1 >>"$work/warm.txt"
	"$work/tlsconf.test" -test.run '^$' -test.bench 'ColdHandshake' -test.benchtime "${NAMES}x" \
		-test.cpu 1 -test.count 1 >>"$work/cold.txt"
done
for i in $(seq "$ISSUE_COUNT"); do
	echo "issuance run $i of $ISSUE_COUNT" >&2
	"$work/tlsconf.test" -test.run '^$' -test.bench 'OnDemandIssuance' -test.benchtime "${NAMES}x" \
		-test.cpu 1 -test.count 1 >>"$work/issue.txt"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for f in warm cold issue; do
	echo "== $f"
	benchstat -col /storage "$work/$f.txt"
done
if [ -n "${KEEP:-}" ]; then cp "$work"/*.txt "$KEEP"/; fi
