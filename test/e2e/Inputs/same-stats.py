"""Compares two `nnaccel-run --stats` reports line by line, wall times aside.

Prints "same statistics: N lines" when every statistics line (modelled
cycles, instructions, bytes, per-core and per-queue figures) of the two
reports is identical, else the first difference and exits 1.
"""
import re
import sys

# Host wall times and timing summaries differ from run to run.
VOLATILE = re.compile(r"[0-9.]+ (us|ms) wall|"
                      r"(host partitions|emulation|total) [0-9.]+ (us|ms)")


def stats_lines(path):
    with open(path) as f:
        return [VOLATILE.sub("", line.rstrip("\n")) for line in f
                if "cycles" in line or "bytes" in line or "instr" in line]


a, b = stats_lines(sys.argv[1]), stats_lines(sys.argv[2])
for i, (x, y) in enumerate(zip(a, b)):
    if x != y:
        print("line %d differs:\n  %s\n  %s" % (i, x, y))
        sys.exit(1)
if len(a) != len(b) or not a:
    print("reports have %d and %d statistics lines" % (len(a), len(b)))
    sys.exit(1)
print("same statistics: %d lines" % len(a))
