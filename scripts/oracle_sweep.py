#!/usr/bin/env python3
"""The semantic bisect's two oracles over a corpus's compute shaders: `shaderstep run FILE
--preset O --bisect-run --oracle driver`, then the same with `--oracle interp`, each whole
process timed alike (one at a time), and tallied: how many both ran, how many blamed the same
step (or none), the median of the per-shader wall-time ratio interp/driver, the interpreter's
refusals by reason and the steps it skipped by reason, and the shaders where they disagree.
The default, `--oracle auto`, runs too: its time against the driver's, and whether it gives
the driver's answer.

    cargo build --release
    python3 scripts/oracle_sweep.py [BINARY] [CORPUS_DIR]
        (defaults: $CARGO_TARGET_DIR/release/shaderstep or target/release/shaderstep,
         ../shared/corpus/valid/comp)
"""
import collections
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIMIT = 300


def reason(text):
    """A message without what is particular to the shader (ids, numbers, names)."""
    text = text.strip().splitlines()[-1] if text.strip() else "no output"
    text = re.sub(r"^error: [^:]*: (--bisect-run: )?", "", text)
    text = re.sub(r"%\w+|\b\d+\b|'[^']*'|\"[^\"]*\"", "N", text)
    return text[:120]


def bisect(binary, path, oracle):
    """(wall seconds, verdict, stdout, stderr): verdict is None when the bisect gave no answer,
    "none" when every step computes what the input does, else the step blamed."""
    args = [binary, "run", path, "--preset", "O", "--bisect-run", "--oracle", oracle]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=LIMIT)
    except subprocess.TimeoutExpired:
        return (time.perf_counter() - t0, None, "", f"over {LIMIT} s")
    took = time.perf_counter() - t0
    if re.search(r"every step (computes what|runs as) the input does", p.stdout):
        return (took, "none", p.stdout, p.stderr)
    m = re.search(r"first step [a-z ]+: (\d+ \S+)", p.stdout)
    if m:
        return (took, m.group(1), p.stdout, p.stderr)
    return (took, None, p.stdout, p.stderr)


def main():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    args = sys.argv[1:] + ["", ""]
    binary = args[0] or os.path.join(target, "release", "shaderstep")
    corpus = args[1] or os.path.join(ROOT, "..", "shared", "corpus", "valid", "comp")
    files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus) if f.endswith(".spv"))
    ratios, same, differ = [], 0, []
    refused, driver_refused, skipped = (collections.Counter() for _ in range(3))
    times = {"driver": [], "interp": [], "auto": []}
    auto_ratios, auto_same, auto_differ = [], 0, []
    for k, f in enumerate(files):
        dt, dv, _, derr = bisect(binary, f, "driver")
        it, iv, iout, ierr = bisect(binary, f, "interp")
        at, av, _, _ = bisect(binary, f, "auto")
        times["driver"].append(dt)
        times["interp"].append(it)
        times["auto"].append(at)
        if av is not None and dv is not None:
            auto_ratios.append(at / dt)
            if av == dv:
                auto_same += 1
            else:
                auto_differ.append(f"{os.path.basename(f)}: driver {dv}, auto {av}")
        for line in iout.splitlines():
            m = re.match(r"\s+step \d+ \S+ skipped: (.*)", line)
            if m:
                skipped[reason(m.group(1))] += 1
        if iv is None:
            refused[reason(ierr or iout)] += 1
        if dv is None:
            driver_refused[reason(derr)] += 1
        if iv is not None and dv is not None:
            ratios.append(it / dt)
            if iv == dv:
                same += 1
            else:
                differ.append(f"{os.path.basename(f)}: driver {dv}, interp {iv}")
        print(f"\r{k + 1}/{len(files)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    both = len(ratios)
    print(f"{len(files)} compute shaders; both oracles answer on {both}; the same step (or none) "
          f"on {same} of them ({100 * same / max(1, both):.1f} %)")
    if ratios:
        print(f"wall time interp/driver per shader (whole process): median {statistics.median(ratios):.3f}, "
              f"quartiles {statistics.quantiles(ratios, n=4)[0]:.3f}..{statistics.quantiles(ratios, n=4)[2]:.3f}")
    if auto_ratios:
        print(f"--oracle auto: answers with the driver on {len(auto_ratios)}, the driver's answer on "
              f"{auto_same}; wall time auto/driver median {statistics.median(auto_ratios):.3f}")
    for o in ("driver", "interp", "auto"):
        print(f"  --oracle {o}: median {1e3 * statistics.median(times[o]):.0f} ms, "
              f"total {sum(times[o]):.1f} s")
    print(f"the interpreter refuses {sum(refused.values())} (by reason):")
    for why, n in refused.most_common():
        print(f"  {n:4}  {why}")
    print(f"the driver gives no answer on {sum(driver_refused.values())} (by reason):")
    for why, n in driver_refused.most_common():
        print(f"  {n:4}  {why}")
    print(f"steps the interpreter skipped: {sum(skipped.values())} (by reason):")
    for why, n in skipped.most_common(10):
        print(f"  {n:4}  {why}")
    if differ or auto_differ:
        print("different answers:")
        for line in differ + auto_differ:
            print("  " + line)


if __name__ == "__main__":
    main()
