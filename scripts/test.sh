#!/usr/bin/env bash
# Runs the test suite. Installs the external oracles the tests use when they are missing:
# spirv-val/spirv-dis/spirv-as (Debian spirv-tools) and glslangValidator (glslang-tools).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v spirv-val >/dev/null 2>&1 || missing+=(spirv-tools)
command -v glslangValidator >/dev/null 2>&1 || missing+=(glslang-tools)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing test dependencies: ${missing[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

cargo test --no-fail-fast "$@"
