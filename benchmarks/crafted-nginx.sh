#!/bin/bash
# CPU nginx spends on one crafted request, for the comparison in
# benchmarks/README.md ("Crafted paths: the work budget"). Usage:
#   crafted-nginx.sh PATHFILE MAPFILE...
# PATHFILE holds the request target (CRAFTED_PATH_OUT=... go test -bench
# CraftedGwern ./matcher writes the gwern one); each MAPFILE holds entries
# of `map $request_uri $new_uri`, included in order. nginx (one worker,
# pcre_jit on) answers 301 to $new_uri or 404; the worker's CPU time
# (utime+stime) over N requests on one connection is divided by N.
set -euo pipefail
path_file=$1; shift
N=${N:-50}
work=$(mktemp -d); chmod 755 "$work"; mkdir "$work/logs"
inc=""; for f in "$@"; do inc="$inc include $(realpath "$f");"; done
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pcre_jit on;
daemon off;
error_log $work/logs/error.log;
pid $work/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  large_client_header_buffers 4 64k;
  map_hash_bucket_size 128;
  map \$request_uri \$new_uri { $inc }
  server {
    listen 127.0.0.1:${PORT:-18099};
    location / { if (\$new_uri != "") { return 301 \$new_uri; } return 404; }
  }
}
CONF
nginx -p "$work" -c "$work/nginx.conf" & master=$!
trap 'kill $master; wait $master 2>/dev/null; rm -rf "$work"' EXIT
sleep 1.5
worker=$(pgrep -P $master | head -1)
url="http://127.0.0.1:${PORT:-18099}$(cat "$path_file")"
echo "answer: $(curl -s -o /dev/null -w '%{http_code}' "$url")"
urls=(); for _ in $(seq "$N"); do urls+=("$url"); done
t0=$(awk '{print $14+$15}' /proc/$worker/stat)
curl -s "${urls[@]}" >/dev/null
t1=$(awk '{print $14+$15}' /proc/$worker/stat)
echo "nginx CPU per request: $(echo "scale=3; ($t1-$t0)*1000/$(getconf CLK_TCK)/$N" | bc) ms ($N requests)"
