#!/usr/bin/env python3
"""The semantic bisect over ../shared/corpus: `run FILE --preset O --bisect-run` on every valid
module of the stages named (default: comp frag vert), each alone, and per stage the share that
runs, the steps reported as differing, and the refusals counted by reason. Run from the project
root after `cargo build --release`:

    python3 scripts/bisect_sweep.py [--oracle driver] [--driver ICD.json|NAME] [--limit N] [STAGE ...]

`--driver` is passed on (e.g. Mesa 25's lavapipe: `--driver "$(scripts/lavapipe.sh | tail -1)"`);
`--oracle driver` runs every step on the driver (the default, auto, lets the interpreter decide
where it agrees with the driver on the input); `--limit N` takes the first N modules a stage.
"""
import collections, os, re, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..", "shared", "corpus", "valid")
binary = os.path.join(here, "..", "target", "release", "shaderstep")
args = sys.argv[1:]
extra, limit = [], None
while args and args[0].startswith("--"):
    flag, value, args = args[0], args[1], args[2:]
    if flag == "--limit":
        limit = int(value)
    else:
        extra += [flag, value]
stages = args or ["comp", "frag", "vert"]


def reason(text):
    """A refusal's reason without what is particular to the shader (numbers, names)."""
    text = text.strip().splitlines()[-1] if text.strip() else "no output"
    text = re.sub(r"^error: [^:]*: (--bisect-run: )?", "", text)
    text = re.sub(r"%\w+|\b\d+\b|'[^']*'|\"[^\"]*\"", "N", text)
    return text[:110]


def one(path):
    try:
        p = subprocess.run([binary, "run", path, "--preset", "O", "--bisect-run"] + extra,
                           capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return ("refused", "over 300 s")
    out = p.stdout + p.stderr
    if p.returncode < 0:
        return ("crash", f"shaderstep ended by signal {-p.returncode}")
    if "every step computes what the input does" in out:
        return ("runs", "")
    if "every step runs as the input does" in out:
        return ("blind", "")
    m = re.search(r"first step (whose results differ|that crashes the driver|that hangs the driver)[^\n]*", out)
    if m:
        return ("differs", m.group(0)[:160])
    return ("refused", reason(p.stderr or p.stdout))


for stage in stages:
    d = os.path.join(root, stage)
    files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".spv"))[:limit]
    with ThreadPoolExecutor(max_workers=2) as ex:
        results = list(ex.map(one, files))
    kinds = collections.Counter(k for k, _ in results)
    ran = kinds["runs"] + kinds["differs"] + kinds["blind"]
    print(f"{stage}: {ran} of {len(files)} run ({100 * ran / max(1, len(files)):.0f} %; "
          f"{kinds['blind']} of them write nothing to compare, so only driver crashes are looked for), "
          f"{kinds['differs']} with a step reported, {kinds['refused']} refused, {kinds['crash']} crashes of shaderstep")
    for (k, why), f in zip(results, files):
        if k in ("differs", "crash"):
            print(f"  {k}: {os.path.basename(f)}: {why}")
    example = {}
    for (k, why), f in zip(results, files):
        if k == "refused":
            example.setdefault(why, os.path.basename(f))
    for why, n in collections.Counter(w for k, w in results if k == "refused").most_common():
        print(f"  refused {n}: {why} (as {example[why]})")
