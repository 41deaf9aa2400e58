#!/usr/bin/env bash
# Regenerates screenshots/*.svg from the replay scripts in screenshots/.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
# The driver's code (`:driver`) comes from Mesa 25's lavapipe, fetched once into the cache.
SHADERSTEP_DRIVER="$(scripts/lavapipe.sh | tail -1)"
export SHADERSTEP_DRIVER
for script in screenshots/*.replay; do
    "${CARGO_TARGET_DIR:-target}/release/shaderstep" replay "$script" --out screenshots
done
rm -f screenshots/*.txt
