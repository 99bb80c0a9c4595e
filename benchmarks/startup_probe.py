# What first-answer.py and load-memory.py share: their NAME=ARGV@PORT@PATH@STATUS
# arguments, the alternating order of their rounds, and the CPU time of a
# started server's threads and its children's.
import os, shlex

def read_specs(args):
    """(name, argv, port, path, status) for each NAME=ARGV@PORT@PATH@STATUS."""
    specs = []
    for a in args:
        name, rest = a.split("=", 1)
        argv, port, path, status = rest.split("@")
        specs.append((name, shlex.split(argv), int(port), path, status))
    return specs

def rounds(specs, n):
    """The specs n times, every other round backwards, so that drift on a
    shared machine falls on every server alike."""
    for i in range(n):
        yield from (specs if i % 2 == 0 else specs[::-1])

def tree_cpu_ms(pid):
    """The run time, from schedstat, of pid's threads and its children's, in ms."""
    pids = [pid]
    for t in os.listdir(f"/proc/{pid}/task"):
        pids += [int(c) for c in open(f"/proc/{pid}/task/{t}/children").read().split()]
    ns = 0
    for p in pids:
        for t in os.listdir(f"/proc/{p}/task"):
            ns += int(open(f"/proc/{p}/task/{t}/schedstat").read().split()[0])
    return ns / 1e6
