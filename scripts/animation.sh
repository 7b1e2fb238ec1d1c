#!/usr/bin/env bash
# Regenerate the README's animation from shardtop's own asciicast export: the ascending scenario's
# first two minutes at 100x30 as the TUI shows them (one frame a virtual second, ×8), turned into
# an animated SVG by svg-term-cli — so it never goes stale.
#
#   scripts/animation.sh [path/to/shardtop]     (default: cargo build --release)
#
# Writes assets/animation.cast and assets/animation.svg. Needs svg-term (npm install -g
# svg-term-cli@2.1.1; installed when missing unless INSTALL=0).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
INSTALL=${INSTALL:-1}
if [ $# -ge 1 ]; then
  BIN=$(realpath "$1")
else
  cargo build --release --manifest-path "$REPO/Cargo.toml" >/dev/null
  BIN="$REPO/target/release/shardtop"
fi
if ! command -v svg-term >/dev/null 2>&1; then
  [ "$INSTALL" = 1 ] || { echo "need svg-term (npm install -g svg-term-cli@2.1.1)" >&2; exit 1; }
  npm install -g svg-term-cli@2.1.1
fi
CONFIG=$(mktemp /tmp/shardtop-animation.XXXXXX.toml)
trap 'rm -f "$CONFIG"' EXIT
printf 'speed = 8.0\n' > "$CONFIG"
"$BIN" --config "$CONFIG" sim ascending --until 120 --size 100x30 --export "$REPO/assets/animation.cast"
svg-term --in "$REPO/assets/animation.cast" --out "$REPO/assets/animation.svg" --window --no-cursor
ls -l "$REPO/assets/animation.cast" "$REPO/assets/animation.svg"
