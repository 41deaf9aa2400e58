#!/usr/bin/env python3
"""Location markers through the round trip, over a corpus: every effective marker of the input
is said again.

A marker is effective when an instruction follows it in its block before the next marker of its
family (DebugScope/DebugNoScope; DebugLine/DebugNoLine; OpLine/OpNoLine) and it changes what is
in force there. Every marker ends with its block, as spirv-opt's reader has it. A marker
superseded at once, or repeating what is in force, may go; any other lost or gained one is
reported and the script exits 1.

    scripts/markers_sweep.py [BINARY] [CORPUS]   (defaults: target/release/shaderstep,
                                                  ../shared/corpus-debug)
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

TERMINATORS = re.compile(
    r"Op(Branch|BranchConditional|Switch|Return|ReturnValue|Kill|Unreachable|"
    r"TerminateInvocation|IgnoreIntersectionKHR|TerminateRayKHR|EmitMeshTasksEXT)\b")


def disassemble(path):
    out = subprocess.run(["spirv-dis", "--raw-id", "--no-header", path],
                         capture_output=True, text=True, check=True)
    return [l.strip() for l in out.stdout.splitlines()]


def effective_markers(lines):
    """(function, block, family, marker text) of each effective marker, in order."""
    debug_sets = set()
    found = []
    func = block = None
    in_force = {}
    pending = {}
    for l in lines:
        m = re.match(r'(%\d+) = OpExtInstImport "(.*)"', l)
        if m:
            if m.group(2).endswith("DebugInfo.100"):
                debug_sets.add(m.group(1))
            continue
        if re.match(r"%\d+ = OpFunction ", l):
            func = l.split()[0]
            continue
        if l.startswith("OpFunctionEnd"):
            func = None
            continue
        if func is None:
            continue
        m = re.match(r"(%\d+) = OpLabel", l)
        if m:
            block, in_force, pending = m.group(1), {}, {}
            continue
        family = None
        m = re.match(r"(?:%\d+ = )?OpExtInst %\d+ (%\d+) (\w+)(.*)", l)
        if m and m.group(1) in debug_sets:
            if m.group(2) in ("DebugScope", "DebugNoScope"):
                family, text = "scope", m.group(2) + m.group(3)
            elif m.group(2) in ("DebugLine", "DebugNoLine"):
                family, text = "line", m.group(2) + m.group(3)
        elif l.startswith("OpLine") or l.startswith("OpNoLine"):
            family, text = "opline", l
        if family:
            pending[family] = text
            if family == "scope":
                pending.pop("line", None)
                in_force.pop("line", None)
            continue
        for fam, text in pending.items():
            if in_force.get(fam) != text:
                found.append((func, block, fam, text))
            in_force[fam] = text
        pending = {}
        if TERMINATORS.match(l):
            block = None
    return found


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/shaderstep"
    corpus = sys.argv[2] if len(sys.argv) > 2 else "../shared/corpus-debug"
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(corpus) for f in fs
                   if f.endswith(".spv"))
    if not files:
        sys.exit(f"no .spv under {corpus}")
    totals = collections.Counter()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.spv")
        for f in files:
            r = subprocess.run([binary, "run", f, "--preset", "roundtrip", "--emit", "spv",
                                "-o", out], capture_output=True, text=True)
            if r.returncode:
                print(f"{f}: roundtrip failed: {r.stderr.strip()[:200]}")
                bad += 1
                continue
            before = collections.Counter(effective_markers(disassemble(f)))
            after = collections.Counter(effective_markers(disassemble(out)))
            totals["in"] += sum(before.values())
            totals["out"] += sum(after.values())
            lost, gained = before - after, after - before
            if lost or gained:
                bad += 1
                print(f"{f}: {sum(lost.values())} effective markers lost, "
                      f"{sum(gained.values())} gained")
                for k in list(lost)[:3]:
                    print("   -", k)
                for k in list(gained)[:3]:
                    print("   +", k)
    print(f"{len(files)} modules: {totals['in']} effective markers in, {totals['out']} out; "
          f"{bad} modules differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
