#!/usr/bin/env python3
"""Planted one-instruction changes, named by `exec --against`: for each corpus shader the
interpreter runs, one `OpIAdd` (or `OpFAdd`) is made a subtract in the binary, ids kept, and
`shaderstep exec ORIGINAL --against CHANGED --json` must name that instruction's result as the
first value that differs — or say nothing differs when the change computes the same values
(an operand of 0, or code never run). It asserts: exit 1 if any change is named wrongly.

    scripts/planted_sweep.py [BINARY] [CORPUS_DIR...]   (defaults: target/release/shaderstep,
                                                         ../shared/corpus/valid/{comp,frag,vert})
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

OP_IADD, OP_ISUB, OP_FADD, OP_FSUB = 128, 130, 129, 131


def words_of(path):
    data = open(path, "rb").read()
    return list(struct.unpack(f"<{len(data) // 4}I", data[: len(data) // 4 * 4]))


def plant(words):
    """The first add in function code made a subtract: (changed words, result id), or None."""
    k = 5
    while k < len(words):
        count, op = words[k] >> 16, words[k] & 0xFFFF
        if count == 0:
            return None
        if op in (OP_IADD, OP_FADD) and count == 5:
            changed = list(words)
            changed[k] = (count << 16) | (OP_ISUB if op == OP_IADD else OP_FSUB)
            return changed, words[k + 2]
        k += count
    return None


def exec_json(binary, args):
    r = subprocess.run([binary, "exec", *args, "--json", "--budget", "2000000"],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return None
    try:
        return json.loads(r.stdout)
    except ValueError:
        return None


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/shaderstep"
    dirs = sys.argv[2:] or [f"../shared/corpus/valid/{s}" for s in ("comp", "frag", "vert")]
    named = same = wrong = refused = none = 0
    wrongs = []
    with tempfile.TemporaryDirectory() as tmp:
        for d in dirs:
            for f in sorted(os.listdir(d)):
                if not f.endswith(".spv"):
                    continue
                path = os.path.join(d, f)
                planted = plant(words_of(path))
                if planted is None:
                    none += 1
                    continue
                changed, result = planted
                other = os.path.join(tmp, f)
                with open(other, "wb") as out:
                    out.write(struct.pack(f"<{len(changed)}I", *changed))
                # Step 0, the input as read: the ids are the file's.
                out = exec_json(binary, [path, "--passes", "lower", "--against", other])
                if out is None:
                    refused += 1
                    continue
                first = out["first_difference"]
                if first is None:
                    same += 1
                elif first["id"] == result:
                    named += 1
                else:
                    wrong += 1
                    wrongs.append(f"{path}: planted at %{result}, named %{first['id']} "
                                  f"({first['instruction']})")
    ran = named + same + wrong
    print(f"planted changes: {ran} run ({refused} refused by exec, {none} without an add): "
          f"{named} named exactly, {same} compute the same values, {wrong} named wrongly")
    for w in wrongs:
        print("  " + w)
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
