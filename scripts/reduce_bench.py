#!/usr/bin/env python3
"""`shaderstep reduce` against `spirv-reduce` on the same interestingness command, over shaders
of ../shared/corpus: for each, a script that says a candidate is interesting while it still
has the op the shader's largest function is about (an image sample, an atomic, a barrier…),
both reducers run on it, and the table gives their results' instruction counts and wall times.
Each shader is reduced RUNS times by each tool, in turn (ours, theirs, ours, …), and the
median times are compared, so a drift of the machine's speed falls on both. Run from the
project root after `cargo build --release`:

    python3 scripts/reduce_bench.py [COUNT] [RUNS]
"""
import os, re, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..", "shared", "corpus", "valid")
binary = os.path.join(here, "..", "target", "release", "shaderstep")
count = int(sys.argv[1]) if len(sys.argv) > 1 else 12
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3

# Ops a reduction is typically after, rarest first.
WANTED = ["OpImageSampleDrefImplicitLod", "OpImageSampleExplicitLod", "OpImageSampleImplicitLod",
          "OpImageFetch", "OpImageRead", "OpImageWrite", "OpAtomicIAdd", "OpControlBarrier",
          "OpFMod", "OpDot", "OpMatrixTimesVector", "OpVectorTimesMatrix", "OpFDiv", "OpSelect"]


def instructions(path):
    out = subprocess.run(["spirv-dis", path], capture_output=True, text=True).stdout
    return sum(1 for l in out.splitlines() if l.strip() and not l.startswith(";"))


def pick():
    """Shaders of 4-20 KB, spread over stages, each with an op of WANTED."""
    chosen = []
    for stage in ["frag", "comp", "vert"]:
        d = os.path.join(root, stage)
        for f in sorted(os.listdir(d)):
            p = os.path.join(d, f)
            if not 4000 < os.path.getsize(p) < 20000:
                continue
            text = subprocess.run(["spirv-dis", p], capture_output=True, text=True).stdout
            op = next((w for w in WANTED if re.search(r"\b%s\b" % w, text)), None)
            if op:
                chosen.append((p, op))
    # Every k-th, for a spread of sizes and sources.
    step = max(1, len(chosen) // count)
    return chosen[::step][:count]


def main():
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (path, op) in enumerate(pick()):
            script = os.path.join(tmp, f"interesting{n}.sh")
            with open(script, "w") as s:
                s.write(f'#!/bin/sh\nspirv-dis "$1" 2>/dev/null | grep -q "{op}"\n')
            os.chmod(script, 0o755)
            ours = os.path.join(tmp, f"ours{n}.spv")
            theirs = os.path.join(tmp, f"theirs{n}.spv")
            our_times, their_times = [], []
            for _ in range(runs):
                t = time.monotonic()
                r = subprocess.run([binary, "reduce", path, "--until", script, "-o", ours, "--force"],
                                   capture_output=True, text=True)
                our_times.append(time.monotonic() - t)
                t = time.monotonic()
                # spirv-reduce writes every candidate to a file named by this prefix.
                prefix = "--temp-file-prefix=" + os.path.join(tmp, f"candidate{n}_")
                s = subprocess.run(["spirv-reduce", path, "-o", theirs, prefix, "--", script],
                                   capture_output=True, text=True)
                their_times.append(time.monotonic() - t)
            our_time = sorted(our_times)[runs // 2]
            their_time = sorted(their_times)[runs // 2]
            if r.returncode != 0 or s.returncode != 0:
                print(f"{os.path.basename(path)}: failed: {r.stderr.strip()[-200:]} {s.stderr.strip()[-200:]}")
                continue
            rows.append((os.path.basename(path), op, instructions(path), instructions(ours),
                         instructions(theirs), our_time, their_time))
    name_w = max(len(r[0]) for r in rows)
    print(f"{'shader':<{name_w}}  {'op kept':<28} {'input':>6} {'ours':>5} {'spirv-reduce':>12} {'our s':>6} {'their s':>7} {'time ratio':>10}")
    for name, op, before, a, b, ta, tb in rows:
        print(f"{name:<{name_w}}  {op:<28} {before:>6} {a:>5} {b:>12} {ta:>6.2f} {tb:>7.2f} {ta / tb:>10.2f}")
    ours = sum(r[3] for r in rows)
    theirs = sum(r[4] for r in rows)
    ta = sum(r[5] for r in rows)
    tb = sum(r[6] for r in rows)
    no_larger = sum(1 for r in rows if r[3] <= r[4])
    print(f"\n{len(rows)} shaders: ours no larger than spirv-reduce's on {no_larger}; instructions {ours} against {theirs}; "
          f"wall time {ta:.1f} s against {tb:.1f} s ({ta / tb:.2f}; medians of {runs} runs each)")


main()
