#!/usr/bin/env bash
# Runs the test suite. Installs the external oracles the tests use when they are missing:
# spirv-val/spirv-dis/spirv-as (Debian spirv-tools), glslangValidator (glslang-tools), and
# lavapipe with the Vulkan loader (mesa-vulkan-drivers, libvulkan1), on which the equivalence
# tests run shaders before and after compilation; and Mesa 25's lavapipe (scripts/lavapipe.sh),
# whose code per step the driver tests read.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v spirv-val >/dev/null 2>&1 || missing+=(spirv-tools)
command -v glslangValidator >/dev/null 2>&1 || missing+=(glslang-tools)
ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 || missing+=(mesa-vulkan-drivers)
ldconfig -p 2>/dev/null | grep 'libvulkan\.so\.1' >/dev/null || missing+=(libvulkan1)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing test dependencies: ${missing[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

# Mesa 25's lavapipe, for the driver's code per step (tests/driver.rs): fetched once from
# Debian's bookworm-backports into the user's cache, nothing installed system-wide.
if icd=$(scripts/lavapipe.sh | tail -1) && [ -f "$icd" ]; then
    export SHADERSTEP_LAVAPIPE25="$icd"
else
    echo "scripts/lavapipe.sh could not fetch Mesa 25's lavapipe: the driver-code tests will say so" >&2
fi

cargo test --no-fail-fast "$@"
