#!/usr/bin/env bash
# Compares the Go benchmarks of two commits with benchstat: the working
# tree against OLD (a git ref, default HEAD~1). Both test binaries are built
# first, then run alternately COUNT times, so drift on a shared machine
# falls on both alike.
#
#   make bench-benchstat OLD=main [COUNT=10] [BENCH=.] [PKGS="./matcher ./httpparse ./engine"]
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=${OLD:-HEAD~1}
COUNT=${COUNT:-10}
BENCH=${BENCH:-.}
PKGS=${PKGS:-./matcher ./httpparse ./engine}

git rev-parse --verify -q "$OLD^{commit}" >/dev/null || { echo "OLD=$OLD is not a commit of this repository" >&2; exit 1; }
. benchmarks/need-benchstat.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old-src" "$work/old" "$work/new"
git archive --format=tar "$OLD" | tar -x -C "$work/old-src"

for pkg in $PKGS; do
	name=$(echo "$pkg" | tr -c 'a-zA-Z0-9\n' _)
	(cd "$work/old-src" && go test -c -o "$work/old/$name.test" "$pkg")
	go test -c -o "$work/new/$name.test" "$pkg"
done
for i in $(seq "$COUNT"); do
	echo "run $i of $COUNT" >&2
	for side in old new; do
		for t in "$work/$side"/*.test; do
			# The package's directory, so testdata/ is found.
			pkg=$(basename "$t" .test | sed 's/^__*//; s/_/\//g')
			src=.; [ "$side" = old ] && src="$work/old-src"
			(cd "$src/$pkg" && "$t" -test.run '^$' -test.bench "$BENCH" -test.benchmem -test.count 1) >>"$work/$side.txt"
		done
	done
done
echo "benchstat: old = $OLD ($(git rev-parse --short "$OLD")), new = the working tree"
cd "$work" && benchstat "old=old.txt" "new=new.txt"
