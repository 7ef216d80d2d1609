#!/usr/bin/python3
"""placeto-ref.py — Placeto's own simulator on the benchmark's problem.

Usage: placeto-ref.py DUMP DIR [ROUNDS]

DUMP is written by `bench-sim placeto-dump FILE [ties]`.  DIR is a
directory holding Placeto's simulator, which placelab does not ship:
`tf_sim.py` and `tf_pl_simulator.py` of `sim/tf_placement_sim` in
github.com/aravic/generalizable-device-placement (where a copy lacks
`tf_sim.py`, forks carry it).  This script imports those two files (not a
package's `__init__.py`, which wants TensorFlow), hands them the
dump's graph in the shape they read (`graph_def.node` with names and
`"op:index"` inputs, one run time per op, output sizes by index), and

  * checks that `ImportantOpsSimulator.simulate(pl, sim_mem_usage=True)`
    gives placelab's run time (`--sim placeto`) and peak memory per device
    (`--mem placeto`) for every placement, with `==`;
  * prints the CPU time of one `Simulator.simulate()` call, and of one with
    the memory estimate, best of ROUNDS rounds over the placements.

An op's outputs that nothing reads have no tensor in placelab's graph; their
bytes (the op's `out_bytes` less the sizes read) are given to the reference
as one more output index, which no input names, so they count in its memory
sum and move on no bus, as in placelab.

Invariant: any difference in a run time or a peak is an error (exit 1);
a DIR without the two files, or a dump they cannot take, exits 2 with a
message.
"""
import importlib
import importlib.util
import os
import sys
import types
import warnings


def load_reference(path):
    """The reference's two modules, imported from path as one package."""
    for name in ("tf_sim.py", "tf_pl_simulator.py"):
        if not os.path.isfile(os.path.join(path, name)):
            raise ImportError("%s: no %s (DIR must hold Placeto's tf_sim.py and "
                              "tf_pl_simulator.py)" % (path, name))
    pkg = types.ModuleType("placeto_reference")
    pkg.__path__ = [path]
    sys.modules["placeto_reference"] = pkg
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # its `x is "str"`
        base = importlib.import_module("placeto_reference.tf_sim")
        important = importlib.import_module("placeto_reference.tf_pl_simulator")
    return base.Simulator, important.ImportantOpsSimulator


def reference_simulator(doc, base, important):
    """An ImportantOpsSimulator of the dump's graph (its own constructor
    reads TensorFlow's step statistics; the base one takes plain dicts)."""
    nodes, cost, out = [], {}, {}
    for n in doc["nodes"]:
        if any(c != n["cost"][0] for c in n["cost"]):
            raise ValueError("op %s: the reference takes one run time per op, "
                             "the dump has %r" % (n["name"], n["cost"]))
        nodes.append(types.SimpleNamespace(
            name=n["name"], op="Op", device="",
            input=["%s:%d" % (src, i) for src, i in n["inputs"]]))
        cost[n["name"]] = n["cost"][0]
        sizes = list(n["sizes"])
        if n["out_bytes"] != sum(sizes):
            sizes.append(n["out_bytes"] - sum(sizes))
        out[n["name"]] = sizes
    graph = types.SimpleNamespace(graph_def=types.SimpleNamespace(node=nodes))
    sim = important.__new__(important)
    base.__init__(sim, graph, cost, out, list(doc["devices"]))
    sim.params = dict(sim.params, delta1=doc["delta1"], delta2=doc["delta2"],
                      transfer_speed=doc["transfer_speed"],
                      init_offset=doc["init_offset"])
    return sim


def load_spec():
    """bench/placeto-spec.py, beside this script: its dump reader and timer."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "placeto-spec.py")
    spec = importlib.util.spec_from_file_location("placeto_spec", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv):
    sys.dont_write_bytecode = True  # nothing written beside either script
    ps = load_spec()
    rounds = ps.parse_rounds(argv[3]) if len(argv) == 4 else 3
    if len(argv) not in (3, 4) or rounds is None:
        sys.stderr.write("usage: placeto-ref.py DUMP DIR [ROUNDS >= 1]\n")
        return 2
    best_time = ps.best_time
    try:
        doc = ps.read_dump(argv[1])
        base, important = load_reference(argv[2])
        sim = reference_simulator(doc, base, important)
    except (OSError, ValueError, ImportError) as e:
        sys.stderr.write("placeto-ref.py: %s\n" % e)
        return 2
    names = [n["name"] for n in doc["nodes"]]
    pls = doc["placements"]
    by_index = [dict(zip(names, pl["dev"])) for pl in pls]
    by_name = [{v: doc["devices"][d] for v, d in p.items()} for p in by_index]
    for i, pl in enumerate(pls):
        # simulate() rewrites the indices it is given into names
        got, peaks = sim.simulate(dict(by_index[i]), sim_mem_usage=True)
        if got != pl["makespan"] or peaks != pl["peak_bytes"]:
            sys.stderr.write("placeto-ref.py: placement %d: run time %r, peaks %r; "
                             "placelab %r, %r\n" % (i, got, peaks, pl["makespan"],
                                                    pl["peak_bytes"]))
            return 1
    plain = best_time(lambda i: base.simulate(sim, by_name[i]), rounds, len(pls))
    mem = best_time(lambda i: sim.simulate(dict(by_index[i]), sim_mem_usage=True),
                    rounds, len(pls))
    print("placeto  Placeto's own simulator (tf_sim.py, %d ops, %d placements, run times "
          "and peaks equal placelab's): %.2f ms/eval, with its memory estimate %.2f "
          "(cpu, best of %d rounds)" % (len(names), len(pls), plain * 1e3, mem * 1e3, rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
