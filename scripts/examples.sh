#!/usr/bin/env bash
# Rebuilds the debug builds of the bundled GLSL examples beside their sources, with
# NonSemantic.Shader.DebugInfo.100 (`glslangValidator -V -gVS`):
#   assets/examples/lighting.frag -> assets/examples/lighting.gVS.frag.spv
#   assets/examples/cull.comp     -> assets/examples/cull.gVS.comp.spv
# The binaries are committed, so a clone has them without glslang; run this after editing a
# source and commit what it writes. glslang runs in assets/examples/ on the bare file name, so
# the file name the binaries record (and the TUI shows) is `lighting.frag`, wherever the
# clone is. The glslang that made them is recorded in glslang-version.txt: tests/examples.rs
# rebuilds them and compares byte for byte when the installed glslang is that one.
set -euo pipefail
cd "$(dirname "$0")/../assets/examples"
command -v glslangValidator >/dev/null 2>&1 || {
    echo "glslangValidator is missing: apt-get install -y glslang-tools" >&2
    exit 1
}
for src in lighting.frag cull.comp; do
    stem=${src%.*}
    ext=${src##*.}
    out="$stem.gVS.$ext.spv"
    if ! log=$(glslangValidator -V -gVS "$src" -o "$out"); then
        echo "$log" >&2
        exit 1
    fi
    echo "$out"
done
glslangValidator --version | head -n 1 > glslang-version.txt
