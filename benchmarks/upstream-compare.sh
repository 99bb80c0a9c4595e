#!/usr/bin/env bash
# Forwarded misses, redirectd against nginx's proxy_pass with upstream
# keep-alive, side by side in one run: both proxies on the same CPU, the
# origin (nginx serving 1 KiB) and wrk on the other. Installs nginx and wrk
# from Debian's packages when missing. Traffic stays on 127.0.0.1.
#
#   make bench-upstream                     # DURATION=10 CONCURRENCY=50 RUNS=3
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
CONCURRENCY=${CONCURRENCY:-50}
RUNS=${RUNS:-3}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}

if ! command -v nginx >/dev/null || ! command -v wrk >/dev/null; then
	echo "installing nginx and wrk from Debian's packages" >&2
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx wrk >/dev/null
fi

work=$(mktemp -d)
chmod 755 "$work" # nginx workers run as an unprivileged user
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/redirectd" ./cmd/redirectd
head -c 1024 /dev/zero | tr '\0' x >"$work/1k"

nginx_conf() { # name, body of the http block
	mkdir -p "$work/$1/logs"
	cat >"$work/$1/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $work/$1/nginx.pid;
error_log $work/$1/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work/$1; proxy_temp_path $work/$1; fastcgi_temp_path $work/$1;
  uwsgi_temp_path $work/$1; scgi_temp_path $work/$1;
  $2
}
CONF
}

nginx_conf origin "server { listen 127.0.0.1:18081; location / { root $work; try_files /1k =404; } }"
nginx_conf proxy "upstream origin { server 127.0.0.1:18081; keepalive 64; }
  server { listen 127.0.0.1:18082; location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection \"\"; } }"
cat >"$work/redirectd.toml" <<CONF
[server]
listen = "127.0.0.1:18083"
event_loops = 1
max_connections_per_ip = 100000

[admin]
listen = "off"

[upstream]
servers = ["127.0.0.1:18081"]
max_conns_per_client = 100000

[[rule]]
from = "/only-this-redirects"
to = "/elsewhere"
CONF

taskset -c "$CLIENT_CPU" nginx -p "$work/origin" -c "$work/origin/nginx.conf" & pids+=($!)
taskset -c "$SERVER_CPU" nginx -p "$work/proxy" -c "$work/proxy/nginx.conf" & pids+=($!)
nginx_pid=$!
GOMAXPROCS=1 taskset -c "$SERVER_CPU" "$work/redirectd" serve -config "$work/redirectd.toml" 2>"$work/redirectd.log" & pids+=($!)
redirectd_pid=$!
sleep 1
for port in 18082 18083; do
	body=$(curl -s "http://127.0.0.1:$port/miss") || { echo "server on $port does not answer" >&2; exit 1; }
	[ "$body" = "$(cat "$work/1k")" ] || { echo "server on $port answers wrongly" >&2; exit 1; }
done

# cpu_ticks PID: user+system clock ticks of a process and its threads.
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
nginx_workers() { pgrep -P "$nginx_pid" | head -1; }

run() { # name pid port extra-wrk-args...
	local name=$1 pid=$2 port=$3; shift 3
	local t0 t1 out rps reqs
	t0=$(cpu_ticks "$pid")
	out=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONCURRENCY" -d"${DURATION}s" "$@" "http://127.0.0.1:$port/miss")
	t1=$(cpu_ticks "$pid")
	rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
	reqs=$(awk '/requests in/ {print $1}' <<<"$out")
	printf '%s\t%s\t%.1f\n' "$name" "$rps" "$(echo "($t1-$t0)*1000000/$(getconf CLK_TCK)/$reqs" | bc -l)"
}

echo "forwarded miss, 1 KiB from a local nginx origin; $CONCURRENCY connections, ${DURATION}s, $RUNS runs"
for mode in keepalive churn; do
	args=()
	[ $mode = churn ] && args=(-H "Connection: close")
	for i in $(seq "$RUNS"); do
		run "nginx $mode" "$(nginx_workers)" 18082 "${args[@]}"
		run "redirectd $mode" "$redirectd_pid" 18083 "${args[@]}"
	done
done | tee "$work/results.tsv"
echo
echo "medians (req/s, server CPU us per request):"
for mode in keepalive churn; do
	for s in nginx redirectd; do
		grep -P "^$s $mode\t" "$work/results.tsv" | sort -t$'\t' -k2 -n | awk -F'\t' -v s="$s $mode" '{r[NR]=$2; c[NR]=$3} END {m=int((NR+1)/2); printf "%-20s %10.0f req/s %8.1f us CPU/req\n", s, r[m], c[m]}'
	done
done | tee "$work/medians"
awk '/nginx keepalive/ {n=$3} /redirectd keepalive/ {r=$3} END {printf "keep-alive ratio redirectd/nginx: %.2f\n", r/n}' "$work/medians"
awk '/nginx churn/ {n=$3} /redirectd churn/ {r=$3} END {printf "new-connection ratio redirectd/nginx: %.2f\n", r/n}' "$work/medians"
