#!/usr/bin/python3
"""placeto-spec.py — how long a Python event loop of Placeto's simulator takes.

Usage: placeto-spec.py DUMP [ROUNDS]

DUMP is written by `bench-sim placeto-dump FILE`: the Placeto benchmark's
problem (2,000 ops on 4 devices), its random placements and placelab's
makespan of each.  This script simulates every placement with a plain
Python implementation of the reference simulator's event loop as
docs/SIMULATION.md section 3 describes it (one heap of (time, kind, key)
events with the reference's kind names and name keys, FIFO waiting lists
keyed (ready, sequence number), one compute queue and one outgoing bus per
device, REMOVE events per (parent, child)), checks that its run times equal
placelab's bit for bit and that the peak memory per device of the
reference's estimate (section 4, `--mem placeto`) computed from its start
times equals placelab's, and prints the time per evaluation of the event
loop alone.

It is not Placeto's own code, only the same algorithm in the same
language, so its time is an estimate of what the reference costs on this
machine: the figure placelab's speed is compared with.

Invariant: the run times it prints are compared with `==` on doubles;
any difference is an error (exit status 1); a file that is not a dump, or
a bad ROUNDS, exits 2 with a message.
"""
import heapq
import json
import sys
import time

DEV, BUS, REMOVE = "run_dev", "run_bus", "remove_dependency"


class Simulator:
    """The graph of a dump, ready to simulate placements of it."""

    def __init__(self, doc):
        self.devices = doc["devices"]
        self.delta1 = doc["delta1"]
        self.delta2 = doc["delta2"]
        self.speed = doc["transfer_speed"]
        self.init = doc["init_offset"]
        nodes = doc["nodes"]
        self.names = [n["name"] for n in nodes]
        pos = {name: i for i, name in enumerate(self.names)}
        self.cost = {n["name"]: n["cost"] for n in nodes}
        self.sizes = {n["name"]: n["sizes"] for n in nodes}
        self.out_bytes = {n["name"]: n["out_bytes"] for n in nodes}
        self.parents = {name: set() for name in self.names}
        self.idx = {}
        children = {name: set() for name in self.names}
        for n in nodes:
            for src, i in n["inputs"]:
                self.parents[n["name"]].add(src)
                self.idx[(src, n["name"])] = i  # the last input wins
                children[src].add(n["name"])
        self.children = {u: sorted(c, key=pos.get) for u, c in children.items()}

    def simulate(self, placement):
        """Run time and start times of a placement (device index per node,
        list order)."""
        dev = {name: self.devices[d] for name, d in zip(self.names, placement)}
        events = []
        waiting = {}
        busy = {}
        seq = [0]
        left = {v: len(p) for v, p in self.parents.items()}
        start, end = {}, {}

        def offer(item, queue, kind, ready):
            seq[0] += 1
            heapq.heappush(waiting.setdefault(queue, []), (ready, seq[0], item))
            if not busy.get(queue):
                busy[queue] = True
                heapq.heappush(events, (ready, kind, queue))

        for v in self.names:
            if not self.parents[v]:
                offer(v, dev[v], DEV, self.init)
        run_time = 0
        while events:
            t, kind, key = heapq.heappop(events)
            run_time = max(run_time, t)
            if kind == DEV:
                w = waiting.get(key)
                if not w:
                    busy[key] = False
                    continue
                _, _, v = heapq.heappop(w)
                d = dev[v]
                cost = self.cost[v][self.devices.index(d)]
                start[v] = t
                end[v] = t + cost
                gap = 0 if cost == 0 else self.delta1
                heapq.heappush(events, (end[v] + gap, DEV, d))
                groups = {}
                for c in self.children[v]:
                    if dev[c] == d:
                        heapq.heappush(events, (end[v], REMOVE, (v, c)))
                    else:
                        groups.setdefault(self.idx[(v, c)], []).append(c)
                sizes = self.sizes[v]
                for i, receivers in groups.items():
                    nbytes = sizes[i] if i < len(sizes) else 0
                    offer((v, nbytes / self.speed, receivers), "/bus" + d, BUS, end[v])
            elif kind == BUS:
                w = waiting.get(key)
                if not w:
                    busy[key] = False
                    continue
                ready, _, (u, delay, receivers) = w[0]
                if ready > t:
                    heapq.heappush(events, (ready, BUS, key))
                    continue
                heapq.heappop(w)
                arrive = t + delay
                for c in receivers:
                    heapq.heappush(events, (arrive, REMOVE, (u, c)))
                heapq.heappush(events, (arrive + self.delta2, BUS, key))
            else:
                u, c = key
                left[c] -= 1
                if left[c] == 0:
                    offer(c, dev[c], DEV, t)
        if len(start) != len(self.names):
            raise ValueError("the graph has a cycle")
        return run_time, start

    def peaks(self, placement, start):
        """Peak memory per device of the reference's estimate (section 4,
        `--mem placeto`): an op's output bytes count on its device from its
        start until the latest of its start and its consumers' whole
        start plus whole run time minus one; additions before removals."""
        dev = {name: self.devices[d] for name, d in zip(self.names, placement)}
        events = {d: [] for d in self.devices}
        for v in self.names:
            if self.out_bytes[v] == 0:
                continue
            done = start[v]
            for c in self.children[v]:
                cost = self.cost[c][self.devices.index(dev[c])]
                done = max(done, int(start[c]) + int(cost) - 1)
            events[dev[v]] += [(start[v], 0, self.out_bytes[v]), (done, 1, -self.out_bytes[v])]
        out = []
        for d in self.devices:
            live = peak = 0
            for _, _, b in sorted(events[d]):
                live += b
                peak = max(peak, live)
            out.append(peak)
        return out


def read_dump(path):
    """The dump at path, its shape checked; ValueError or OSError, naming
    the file and what was expected, when it is not one."""
    expected = "expected a dump written by `bench-sim placeto-dump FILE`"
    with open(path, encoding="utf-8") as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            raise ValueError("%s: %s (%s)" % (path, e, expected)) from None
    try:
        n = len(doc["nodes"])
        ok = isinstance(doc["devices"], list) and len(doc["placements"]) > 0
        for pl in doc["placements"]:
            ok = ok and len(pl["dev"]) == n and isinstance(pl["makespan"], (int, float)) \
                and len(pl["peak_bytes"]) == len(doc["devices"])
        for node in doc["nodes"]:
            ok = ok and isinstance(node["name"], str) and len(node["cost"]) == len(doc["devices"]) \
                and isinstance(node["sizes"], list) and isinstance(node["inputs"], list) \
                and isinstance(node["out_bytes"], int)
        for key in ("delta1", "delta2", "transfer_speed", "init_offset"):
            ok = ok and isinstance(doc[key], (int, float))
    except KeyError as e:
        raise ValueError("%s: no field %s where one was due (%s)" % (path, e, expected)) from None
    except TypeError:
        raise ValueError("%s: a value of the wrong type (%s)" % (path, expected)) from None
    if not ok:
        raise ValueError("%s: fields of the wrong type or length (%s)" % (path, expected))
    return doc


def parse_rounds(text):
    """ROUNDS from the command line, or None when it is not a whole number
    of at least 1."""
    return int(text) if text.isascii() and text.isdecimal() and int(text) >= 1 else None


def best_time(run, rounds, count):
    """CPU seconds of one call, best of rounds rounds of count calls."""
    best = None
    for _ in range(rounds):
        t0 = time.process_time()
        for i in range(count):
            run(i)
        per = (time.process_time() - t0) / count
        best = per if best is None or per < best else best
    return best


def main(argv):
    rounds = parse_rounds(argv[2]) if len(argv) == 3 else 3
    if len(argv) not in (2, 3) or rounds is None:
        sys.stderr.write("usage: placeto-spec.py DUMP [ROUNDS >= 1]\n")
        return 2
    try:
        doc = read_dump(argv[1])
    except (OSError, ValueError) as e:
        sys.stderr.write("placeto-spec.py: %s\n" % e)
        return 2
    sim = Simulator(doc)
    pls = doc["placements"]
    for i, pl in enumerate(pls):
        got, start = sim.simulate(pl["dev"])
        peaks = sim.peaks(pl["dev"], start)
        if got != pl["makespan"]:
            sys.stderr.write("placeto-spec.py: placement %d: run time %r, placelab %r\n"
                             % (i, got, pl["makespan"]))
            return 1
        if peaks != pl["peak_bytes"]:
            sys.stderr.write("placeto-spec.py: placement %d: peak memory %r, placelab %r\n"
                             % (i, peaks, pl["peak_bytes"]))
            return 1
    best = best_time(lambda i: sim.simulate(pls[i]["dev"]), rounds, len(pls))
    edges = sum(len(p) for p in sim.parents.values())
    print("placeto  the same algorithm in Python (bench/placeto-spec.py, %d ops, %d dependencies, "
          "%d placements, run times and peaks equal placelab's): %.2f ms/eval (cpu, best of %d rounds)"
          % (len(sim.names), edges, len(pls), best * 1e3, rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
