#!/usr/bin/env bash
# The test command (README, Development): installs what the tests need when it is missing, runs
# `cargo test` and prints the totals. CI (.ci/run) runs exactly this script.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# The end-to-end tests drive the real binary in tmux: install it when missing (a missing tool is
# a failure, never a skip).
if ! command -v tmux >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq tmux
  fi
fi
tmux -V
# tests/cli/help.rs renders the manual page with `man -l`.
if ! command -v man >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq man-db groff-base
  fi
fi
command -v man
# tests/clients/main.rs runs real clients (mongosh 2.x, PyMongo 4.x) against `shardtop serve`:
# install them when missing (a missing client is a failure, never a skip).
if ! command -v mongosh >/dev/null 2>&1; then
  npm install -g mongosh@2
fi
if ! python3 -c 'import pymongo' >/dev/null 2>&1; then
  python3 -m pip install pymongo
fi
echo "mongosh $(mongosh --version)"
python3 -c 'import pymongo; print("pymongo", pymongo.version)'
cargo --version
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test 2>&1 | tee "$log"
passed=$(grep -oE '^test result: [a-zA-Z]+\. [0-9]+ passed' "$log" | grep -oE '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
failed=$(grep -oE '[0-9]+ failed;' "$log" | awk '{s+=$1} END {print s+0}')
echo "tests: ${passed} passed, ${failed} failed"
