#!/usr/bin/env python3
"""The interpreter against the driver over a corpus's shaders of one stage: `shaderstep exec
--check-driver --json` on each input, tallied — agreements, disagreements (each listed),
refusals by reason, and exec's median time. Compute shaders are dispatched, vertex and
fragment shaders drawn (behind or before a generated partner stage).

    scripts/exec_sweep.py [BINARY] [CORPUS_DIR]   (defaults: target/release/shaderstep,
                                                   ../shared/corpus/valid/comp; the
                                                   directory's name says the stage)
"""
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import time


def reason(text):
    """A refusal's message with ids and numbers taken out, so alike ones count together."""
    text = text.strip().splitlines()[-1] if text.strip() else "no message"
    text = re.sub(r"^error: [^:]*: ", "", text)
    text = re.sub(r"%\d+", "%N", text)
    return re.sub(r"\b\d+\b", "N", text)[:120]


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/shaderstep"
    corpus = sys.argv[2] if len(sys.argv) > 2 else "../shared/corpus/valid/comp"
    files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus) if f.endswith(".spv"))
    tally = collections.Counter()
    refusals = collections.Counter()
    disagreements = []
    times = []
    for f in files:
        t0 = time.perf_counter()
        r = subprocess.run([binary, "exec", f, "--json", "--budget", "5000000"],
                           capture_output=True, text=True, timeout=120)
        times.append(time.perf_counter() - t0)
        if r.returncode != 0:
            tally["refused"] += 1
            refusals[reason(r.stderr)] += 1
            continue
        d = subprocess.run([binary, "exec", f, "--json", "--budget", "5000000", "--check-driver"],
                           capture_output=True, text=True, timeout=300)
        try:
            out = json.loads(d.stdout)
        except ValueError:
            tally["refused"] += 1
            refusals["exec --check-driver: " + reason(d.stderr)] += 1
            continue
        if any(u["kind"] == "instruction budget" for u in out["undefined_behaviour"]):
            tally["refused"] += 1
            refusals["out of budget (5 000 000 instructions)"] += 1
        elif out["driver_agrees"] is True:
            tally["agree"] += 1
        elif out["driver_agrees"] is False:
            tally["disagree"] += 1
            disagreements.append(f"{f}: {out.get('driver_difference')}")
        else:
            tally["driver cannot run it"] += 1
            refusals["driver: " + reason(out.get("driver_error", ""))] += 1
    ran = tally["agree"] + tally["disagree"]
    stage = {"comp": "compute", "frag": "fragment", "vert": "vertex"}.get(
        os.path.basename(os.path.normpath(corpus)), os.path.basename(os.path.normpath(corpus)))
    print(f"{len(files)} {stage} shaders: {tally['agree']} agree, {tally['disagree']} disagree, "
          f"{tally['refused']} refused by exec, {tally['driver cannot run it']} not run by the driver")
    if ran:
        print(f"agreement where both run: {100 * tally['agree'] / ran:.1f} %; "
              f"of all: {100 * tally['agree'] / len(files):.1f} %")
    print(f"exec time (interpreter alone, one process per shader): median "
          f"{1e3 * statistics.median(times):.1f} ms")
    print("refusals by reason:")
    for why, n in refusals.most_common():
        print(f"  {n:4}  {why}")
    if disagreements:
        print("disagreements:")
        for line in disagreements:
            print("  " + line)


if __name__ == "__main__":
    main()
