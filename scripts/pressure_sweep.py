#!/usr/bin/env python3
"""Register pressure over ../shared/corpus: each valid module's peak before and after our O and
after spirv-opt -O, and per pass of ours how often it raises or lowers the peak (by how many
32-bit components). Run from the project root after `cargo build --release`."""
import collections, csv, json, os, subprocess, tempfile
from concurrent.futures import ThreadPoolExecutor
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "corpus")
rows = list(csv.DictReader(open(f"{root}/manifest.tsv"), delimiter="\t"))
rows = [r for r in rows if r["category"] == "valid"]
bin = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "shaderstep")
def one(r):
    path = f"{root}/{r['path']}"
    env = r["target_env"] if r["target_env"] not in ("-", "") else "vulkan1.1"
    out = {"path": r["path"]}
    try:
        p = subprocess.run([bin, "cost", path, "--preset", "O", "--json"], capture_output=True, text=True, timeout=60)
        steps = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
        if not steps:
            out["err"] = "ours: " + p.stderr[:200]; return out
        out["steps"] = [(s["pass"], s["max_pressure"]) for s in steps]
        with tempfile.NamedTemporaryFile(suffix=".spv", delete=False) as t:
            tmp = t.name
        q = subprocess.run(["spirv-opt", "-O", f"--target-env={env}", path, "-o", tmp], capture_output=True, text=True, timeout=60)
        if q.returncode == 0:
            p2 = subprocess.run([bin, "cost", tmp, "--passes", "lower", "--json"], capture_output=True, text=True, timeout=60)
            s2 = [json.loads(l) for l in p2.stdout.splitlines() if l.startswith("{")]
            if s2:
                out["spirv_opt"] = s2[-1]["max_pressure"]
        os.unlink(tmp)
    except Exception as e:
        out["err"] = str(e)
    return out
with ThreadPoolExecutor(2) as ex:
    res = list(ex.map(one, rows))
ok = [r for r in res if "steps" in r]
print("modules", len(res), "with steps", len(ok), "with spirv-opt", sum(1 for r in ok if "spirv_opt" in r))
inp = [r["steps"][0][1] for r in ok]
ours = [r["steps"][-1][1] for r in ok]
print("sum input", sum(inp), "sum O", sum(ours))
both = [r for r in ok if "spirv_opt" in r]
si = sum(r["steps"][0][1] for r in both); so = sum(r["steps"][-1][1] for r in both); sp = sum(r["spirv_opt"] for r in both)
print(f"on {len(both)} modules both: input {si}, O {so} ({so/si:.3f}), spirv-opt -O {sp} ({sp/si:.3f}), O/spirv-opt {so/sp:.3f}")
def cmp(a, b):
    return (sum(1 for x, y in zip(a, b) if y > x), sum(1 for x, y in zip(a, b) if y < x), sum(1 for x, y in zip(a, b) if y == x))
print("O vs input: raises, lowers, same", cmp([r["steps"][0][1] for r in both], [r["steps"][-1][1] for r in both]))
print("spirv-opt vs input: raises, lowers, same", cmp([r["steps"][0][1] for r in both], [r["spirv_opt"] for r in both]))
print("O vs spirv-opt: O higher, O lower, same", cmp([r["spirv_opt"] for r in both], [r["steps"][-1][1] for r in both]))
per = collections.defaultdict(lambda: [0, 0, 0, 0])
for r in ok:
    st = r["steps"]
    for (pa, a), (pb, b) in zip(st, st[1:]):
        e = per[pb]
        if b > a: e[0] += 1; e[2] += b - a
        elif b < a: e[1] += 1; e[3] += a - b
print(f"{'pass':<26}{'raises':>8}{'lowers':>8}{'+comp':>8}{'-comp':>8}")
for k, (u, d, pu, pd) in sorted(per.items(), key=lambda kv: -(kv[1][2] + kv[1][3])):
    if u or d:
        print(f"{k:<26}{u:>8}{d:>8}{pu:>8}{pd:>8}")
# biggest raises O vs spirv-opt
worst = sorted(both, key=lambda r: r["steps"][-1][1] - r["spirv_opt"], reverse=True)[:5]
for r in worst: print("O above spirv-opt:", r["path"], r["steps"][0][1], r["steps"][-1][1], r["spirv_opt"])
