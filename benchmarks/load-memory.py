# load-memory.py NAME=ARGV@PORT@PATH@STATUS ...: CPU and wall time to the
# first correct answer (as first-answer.py), the peak RSS until 3 s after
# it (VmHWM) and the RSS then ("settled"); for redirectd (ARGV has
# "serve") also a SIGHUP reload's peak (VmHWM reset through clear_refs)
# and the RSS 5 s after it. N rounds (3), alternating. Server on CPU 0,
# this on CPU 1. See benchmarks/README.md, "A million exact rules".
import subprocess, socket, time, sys, statistics, os, signal
sys.dont_write_bytecode = True
from startup_probe import read_specs, rounds, tree_cpu_ms
os.sched_setaffinity(0, {1})
def status(pid, key):
    for l in open(f"/proc/{pid}/status"):
        if l.startswith(key + ":"):
            return int(l.split()[1]) / 1024
def tree(p):
    # taskset execs, so p.pid is the server; haproxy -W forks; sum children too
    pids = [p.pid]
    try:
        for c in open(f"/proc/{p.pid}/task/{p.pid}/children").read().split():
            pids.append(int(c))
    except OSError: pass
    return pids
def run(argv, port, path, st):
    t0 = time.perf_counter()
    p = subprocess.Popen(["taskset", "-c", "0"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, GOMAXPROCS="1"))
    want = ("HTTP/1.1 %s" % st).encode()
    def ask():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: www.example.com\r\n\r\n".encode())
            d = s.recv(4096); s.close()
            return d.startswith(want)
        except OSError:
            return False
    while not ask():
        time.sleep(0.001)
        if time.perf_counter() - t0 > 120: raise SystemExit("no answer")
    took = (time.perf_counter() - t0) * 1000
    took = (took, tree_cpu_ms(p.pid))
    time.sleep(3)
    pids = tree(p)
    hwm = sum(status(x, "VmHWM") for x in pids); rss = sum(status(x, "VmRSS") for x in pids)
    out = [took[0], hwm, rss, took[1]]
    if "serve" in argv:
        open(f"/proc/{p.pid}/clear_refs", "w").write("5")
        base = status(p.pid, "VmHWM")
        p.send_signal(signal.SIGHUP)
        time.sleep(5)
        out += [status(p.pid, "VmHWM"), status(p.pid, "VmRSS")]
        out = out[:3] + out[4:] + [out[3]]
    p.terminate(); p.wait(); time.sleep(0.3)
    return out
specs = read_specs(sys.argv[1:])
res = {s[0]: [] for s in specs}
for s in rounds(specs, int(os.environ.get("N", "3"))):
    r = run(*s[1:]); res[s[0]].append(r)
    print(s[0], " ".join("%.1f" % x for x in r), flush=True)
for n, v in res.items():
    cols = list(zip(*v))
    med = [statistics.median(c) for c in cols]
    line = "%-10s CPU to first answer %6.1f ms (%.0f-%.0f), wall %7.1f ms (%.0f-%.0f)  peak %6.1f MiB  settled %6.1f MiB  peak/settled %.2f" % (n, med[-1], min(cols[-1]), max(cols[-1]), med[0], min(cols[0]), max(cols[0]), med[1], med[2], med[1]/med[2])
    if len(med) > 4:
        line += "  | reload peak %6.1f settled %6.1f  peak/settled %.2f" % (med[3], med[4], med[3]/med[4])
    print(line)
