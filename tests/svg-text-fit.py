#!/usr/bin/env python3
"""svg-text-fit — check that every text of a placelab SVG timeline lies
inside the figure, with widths measured by Graphviz (`dot -Txdot`) in the
fonts this machine draws Helvetica with, not by placelab's own estimate.

    svg-text-fit.py FILE.svg

Exits 1 naming each text that runs off an edge, 0 when all fit."""
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def dot_str(s):
    """s as a DOT string literal (Graphviz expands backslashes)."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main(path):
    root = ET.parse(path).getroot()
    width = float(root.get("viewBox").split()[2])
    texts = []
    for t in root.iter(NS + "text"):
        parts = [t.text or ""]  # without the tooltip's <title>
        for c in t:
            if c.tag != NS + "title":
                parts.append("".join(c.itertext()))
            parts.append(c.tail or "")
        s = "".join(parts)
        if s.strip():
            texts.append((s, float(t.get("x")), float(t.get("font-size")),
                          t.get("font-weight") == "bold", t.get("text-anchor", "start")))
    # one plaintext node per text, at 100 times its size (xdot rounds
    # widths to hundredths of a point)
    nodes = "".join('n%d [shape=plaintext fontname=%s fontsize=%g label=%s];\n' %
                    (i, dot_str("Helvetica-Bold" if b else "Helvetica"), fs * 100, dot_str(s))
                    for i, (s, x, fs, b, a) in enumerate(texts))
    out = subprocess.run(["dot", "-Txdot"], input=("digraph {\n" + nodes + "}\n").encode(),
                         capture_output=True, check=True).stdout.decode()
    measured = {}
    for m in re.finditer(r'\bn(\d+)\s+\[_ldraw_="[^"]*?\bT [-\d.]+ [-\d.]+ -?\d+ ([\d.]+) ', out):
        measured[int(m.group(1))] = float(m.group(2)) / 100
    bad = 0
    for i, (s, x, fs, b, a) in enumerate(texts):
        w = measured[i]
        lo = {"start": x, "middle": x - w / 2, "end": x - w}[a]
        if lo < -0.01 or lo + w > width + 0.01:
            print("%s: '%s' at %.1f pt spans %.1f .. %.1f, outside 0 .. %.1f" %
                  (path, s, fs, lo, lo + w, width))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
