# first-answer.py NAME=ARGV@PORT@PATH@STATUS ...: for each server, the time
# from launch to the first answer with that status to GET PATH on
# 127.0.0.1:PORT, and the server's CPU time until then (schedstat of all
# its threads and children's: robust where other jobs share the CPUs).
# Servers on CPU 0 with GOMAXPROCS=1, this poller on CPU 1; N rounds (7),
# the servers alternating. See benchmarks/README.md, "Start-up".
import subprocess, socket, time, sys, statistics, os
sys.dont_write_bytecode = True
from startup_probe import read_specs, rounds, tree_cpu_ms
os.sched_setaffinity(0, {1})
def first_answer(argv, port, path, status):
    t0 = time.perf_counter()
    p = subprocess.Popen(["taskset", "-c", "0"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=dict(os.environ, GOMAXPROCS="1"))
    want = ("HTTP/1.1 %s" % status).encode()
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: www.example.com\r\n\r\n".encode())
            d = s.recv(4096)
            s.close()
            if d.startswith(want):
                break
        except OSError:
            time.sleep(0.001)
        if time.perf_counter() - t0 > 60: raise SystemExit("no answer: " + " ".join(argv))
    took = time.perf_counter() - t0
    cpu = tree_cpu_ms(p.pid)
    p.terminate(); p.wait()
    time.sleep(0.2)
    return took * 1000, cpu
specs = read_specs(sys.argv[1:])
res = {s[0]: [] for s in specs}
for s in rounds(specs, int(os.environ.get("N", "7"))):
    res[s[0]].append(first_answer(*s[1:]))
for n, v in res.items():
    w = [x[0] for x in v]; c = [x[1] for x in v]
    print("%-12s wall median %7.1f ms  min %7.1f  max %7.1f | CPU median %6.1f ms  min %6.1f  max %6.1f" % (n, statistics.median(w), min(w), max(w), statistics.median(c), min(c), max(c)))
