#!/usr/bin/env python3
"""`run --pipeline VS FS` over the vertex+fragment pairs of ../shared/corpus-pipelines, under
every preset, with and without --verify-each: per preset, how many pairs run, how many write
outputs spirv-val accepts (vulkan1.2), and the instructions of both stages before and after.
Run from the project root after `cargo build --release`:

    python3 scripts/pipeline_sweep.py [PRESET ...]

The exit status is 1 when a pair fails or an output is invalid.
"""
import os, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..", "shared", "corpus-pipelines")
binary = os.environ.get("SHADERSTEP_BIN", os.path.join(here, "..", "target", "release", "shaderstep"))
presets = sys.argv[1:] or ["roundtrip", "default", "types", "qptr", "size", "pipeline",
                           "memory", "O", "O-size"]


def count(path):
    p = subprocess.run(["spirv-dis", "--no-header", path], capture_output=True, text=True)
    return sum(1 for line in p.stdout.splitlines() if "Op" in line)


pairs = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
bad = False
for preset in presets:
    for checks in ([], ["--verify-each"]):
        ran = valid = before = after = 0
        failures = []
        for d in pairs:
            vs, fs = (os.path.join(root, d, f) for f in ("vert.spv", "frag.spv"))
            with tempfile.TemporaryDirectory() as out:
                p = subprocess.run([binary, "run", "--pipeline", vs, fs, "--preset", preset,
                                    *checks, "-o", out], capture_output=True, text=True)
                if p.returncode != 0:
                    failures.append(f"{d}: {(p.stderr or p.stdout).strip().splitlines()[-1:]}")
                    continue
                ran += 1
                outs = [os.path.join(out, f) for f in ("vert.spv", "frag.spv")]
                ok = all(subprocess.run(["spirv-val", "--target-env", "vulkan1.2", o],
                                        capture_output=True).returncode == 0 for o in outs)
                if not ok:
                    failures.append(f"{d}: invalid output")
                    continue
                valid += 1
                before += count(vs) + count(fs)
                after += sum(count(o) for o in outs)
        bad |= bool(failures)
        flag = " --verify-each" if checks else ""
        print(f"{preset}{flag}: {ran} of {len(pairs)} run, {valid} valid; "
              f"instructions {before} -> {after}")
        for f in failures:
            print(f"  {f}")
sys.exit(1 if bad else 0)
