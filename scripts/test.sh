#!/usr/bin/env bash
# The test command (README, Development): installs what the tests need when it is missing, builds
# the test programs, runs them in two lanes at once and prints the totals. CI (.ci/run) runs
# exactly this script.
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
# tests/cli/bounds.rs holds the reads of oversized inputs under `prlimit --as` (util-linux).
if ! command -v prlimit >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq util-linux
  fi
fi
command -v prlimit
# tests/clients/main.rs runs real clients (mongosh 2.x, PyMongo 4.x, the Node.js driver and Mongoose)
# against `shardtop serve`:
# install them when missing (a missing client is a failure, never a skip).
if ! command -v mongosh >/dev/null 2>&1; then
  npm install -g mongosh@2
fi
if ! python3 -c 'import pymongo' >/dev/null 2>&1; then
  python3 -m pip install pymongo
fi
# The Node.js driver 6.x and Mongoose 8.x (tests/clients/package.json) into tests/clients/node_modules.
if ! (cd tests/clients && node -e "require('mongodb'); require('mongoose')") >/dev/null 2>&1; then
  npm install --prefix tests/clients --no-audit --no-fund
fi
echo "mongosh $(mongosh --version)"
python3 -c 'import pymongo; print("pymongo", pymongo.version)'
(cd tests/clients && node -e "console.log('node', process.version, 'mongodb', require('mongodb/package.json').version, 'mongoose', require('mongoose/package.json').version)")
cargo --version
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
# Build every test program first (a compile error stops here), then run them in two lanes at once:
# most of their time is spent waiting (tmux screens, serve's rounds, child processes), so two
# lanes share the two cores; each lane runs its programs one after the other.
cargo test --no-run 2>&1 | tee "$log/build"
if [ "${PIPESTATUS[0]}" -ne 0 ]; then exit 101; fi
programs() { grep -E "Executable .*\(target/.*/$1-[0-9a-f]+\)" "$log/build" | sed -E 's/.*\((.*)\)/\1/'; }
lane() {
  local out="$1"; shift
  local rc=0
  for p in "$@"; do
    local bins
    bins=$(programs "$p")
    if [ -z "$bins" ]; then echo "no test program $p" >> "$out"; rc=1; continue; fi
    for bin in $bins; do
      echo "     Running $p ($bin)" >> "$out"
      CARGO_MANIFEST_DIR="$PWD" "$bin" >> "$out" 2>&1 || rc=1
    done
  done
  return $rc
}
lane "$log/a" shardtop architecture cli clients e2e lab model tui & a=$!
lane "$log/b" live sim serve & b=$!
rc=0
wait $a || rc=1
wait $b || rc=1
cargo test --doc >> "$log/a" 2>&1 || rc=1
cat "$log/a" "$log/b" | tee "$log/all"
passed=$(grep -oE '^test result: [a-zA-Z]+\. [0-9]+ passed' "$log/all" | grep -oE '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
failed=$(grep -oE '[0-9]+ failed;' "$log/all" | awk '{s+=$1} END {print s+0}')
echo "tests: ${passed} passed, ${failed} failed"
exit $rc
