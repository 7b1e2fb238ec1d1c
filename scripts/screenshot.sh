#!/usr/bin/env bash
# Regenerate the README's still, assets/screenshot.png, from shardtop's own PNG export: the
# ascending demo at 60 s, 100x30 — the same screen the TUI shows, so it never goes stale.
#
#   scripts/screenshot.sh [path/to/shardtop]     (default: cargo run --release)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -ge 1 ]; then
  BIN=$(realpath "$1")
else
  cargo build --release --manifest-path "$REPO/Cargo.toml" >/dev/null
  BIN="$REPO/target/release/shardtop"
fi
"$BIN" sim ascending --until 60 --size 100x30 --export "$REPO/assets/screenshot.png"
