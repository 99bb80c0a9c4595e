#!/bin/bash
# CPU per request that nginx and redirectd spend on one path crafted
# from the literals of 500 unanchored PCRE rewrites inside a location,
# both serving the same rewrites, for benchmarks/README.md ("Crafted
# paths against 500 PCRE rewrites in a location"). Usage, from the
# repository's root:
#   benchmarks/crafted-rewrites.sh
# Each rewrite is werf's docs shape with a lookahead, which RE2 cannot
# run (matcher/pcre's BenchmarkCrafted500 has the same 500):
#   rewrite ^(.*)/w017(?!\.html)/?$ $1/w017/overview.html redirect;
#   rewrite ^(.*)/w018/(?=\d)(.*)$ $1/w018/$2 redirect;
# all in `location /docs/`, then `return 404`. The crafted path is
# /docs/ and every rewrite's literal, then .html: every regex runs over
# it and none matches. nginx 1.22 runs with one worker, pcre_jit off
# (its default) and, in a second instance, on; redirectd with one event
# loop and GOMAXPROCS=1. Each server is pinned to CPU 0 (SERVER_CPU),
# wrk to CPU 1 (CLIENT_CPU); the server's utime+stime over DURATION
# seconds of wrk (4 connections) is divided by the requests answered.
# Before timing, each server's answers are checked: 404 for the
# crafted path, a 302 for a path one rewrite matches.
set -euo pipefail
N=${N:-500}
DURATION=${DURATION:-10}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
work=$(mktemp -d); chmod 755 "$work"; mkdir "$work/logs"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"' EXIT

steps=$work/rewrites.conf
path=/docs
for ((i = 0; i < N; i++)); do
	w=$(printf 'w%03d' "$i")
	if ((i % 2 == 0)); then
		echo "rewrite ^(.*)/$w(?!\\.html)/?\$ \$1/$w/overview.html redirect;"
	else
		echo "rewrite ^(.*)/$w/(?=\\d)(.*)\$ \$1/$w/\$2 redirect;"
	fi
	path=$path/$w
done >"$steps"
echo "return 404;" >>"$steps"
crafted=$path.html
hit=/docs/v1/w250/
hit_location=/docs/v1/w250/overview.html

go build -o "$work/redirectd" ./cmd/redirectd
cat >"$work/redirectd.toml" <<CONF
[server]
listen = "127.0.0.1:18097"
event_loops = 1

[admin]
listen = "off"

[access_log]
enabled = false

[[location]]
path = "/docs/"
steps = '''
$(cat "$steps")
'''
CONF

nginx_conf() { # port, pcre_jit
	cat <<CONF
worker_processes 1;
pcre_jit $2;
daemon off;
error_log $work/logs/error-$1.log;
pid $work/nginx-$1.pid;
events { worker_connections 64; }
http {
  access_log off;
  absolute_redirect off;
  large_client_header_buffers 4 16k;
  server {
    listen 127.0.0.1:$1;
    location /docs/ { include $steps; }
  }
}
CONF
}
nginx_conf 18098 off >"$work/nginx-off.conf"
nginx_conf 18099 on >"$work/nginx-on.conf"

taskset -c "$SERVER_CPU" env GOMAXPROCS=1 "$work/redirectd" serve -config "$work/redirectd.toml" >"$work/logs/redirectd.log" 2>&1 &
rd=$!; pids+=("$rd")
taskset -c "$SERVER_CPU" nginx -p "$work" -c "$work/nginx-off.conf" &
off=$!; pids+=("$off")
taskset -c "$SERVER_CPU" nginx -p "$work" -c "$work/nginx-on.conf" &
on=$!; pids+=("$on")

ready() { # port
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
		sleep 0.1
	done
	echo "nothing answers on port $1" >&2; exit 1
}
ready 18097; ready 18098; ready 18099

cpu_ticks() { # pids...: utime+stime of all of them
	local t=0
	for p in "$@"; do t=$((t + $(awk '{print $14+$15}' "/proc/$p/stat"))); done
	echo "$t"
}

measure() { # name, port, pids to count
	local name=$1 port=$2; shift 2
	local got
	got=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$crafted")
	[ "$got" = 404 ] || { echo "$name: the crafted path got $got, want 404" >&2; exit 1; }
	got=$(curl -s -o /dev/null -w '%{http_code} %header{location}' "http://127.0.0.1:$port$hit")
	[ "$got" = "302 $hit_location" ] || { echo "$name: $hit got $got, want 302 $hit_location" >&2; exit 1; }
	taskset -c "$CLIENT_CPU" wrk -t1 -c4 -d1s "http://127.0.0.1:$port$crafted" >/dev/null
	local t0 t1 out reqs
	t0=$(cpu_ticks "$@")
	out=$(taskset -c "$CLIENT_CPU" wrk -t1 -c4 -d"${DURATION}s" "http://127.0.0.1:$port$crafted")
	t1=$(cpu_ticks "$@")
	reqs=$(echo "$out" | awk '/requests in/ {print $1}')
	echo "$name: $(echo "scale=4; ($t1-$t0)*1000/$(getconf CLK_TCK)/$reqs" | bc) ms CPU per request ($reqs requests)"
}

echo "path: $((${#crafted})) bytes, $N rewrites"
measure "nginx (pcre_jit off)" 18098 $(pgrep -P "$off")
measure "nginx (pcre_jit on)" 18099 $(pgrep -P "$on")
measure redirectd 18097 "$rd"
