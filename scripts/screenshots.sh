#!/usr/bin/env bash
# Regenerates screenshots/*.svg from the replay scripts in screenshots/.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
for script in screenshots/*.replay; do
    "${CARGO_TARGET_DIR:-target}/release/shaderstep" replay "$script" --out screenshots
done
rm -f screenshots/*.txt
