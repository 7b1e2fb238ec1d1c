#!/usr/bin/env bash
# The test command (README, Development): installs what the tests need when it is missing, builds
# the test programs, runs them three at a time and prints the totals. CI (.ci/run) runs
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
# Each test program's wall-clock and CPU time is measured with GNU time (the `time` package).
if [ ! -x /usr/bin/time ]; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq time
  fi
fi
/usr/bin/time --version | head -1
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
# A fresh checkout has no build to reuse: incremental compilation would only write caches.
if [ ! -d target ]; then export CARGO_INCREMENTAL=0; fi
# Build every test program first (a compile error stops here), then run them JOBS at a time: a
# program's time is half waiting (tmux screens, serve's rounds, mongosh, child processes), so
# three share the two cores. The longest start first; each program's wall-clock and CPU time is
# printed at the end.
cargo test --no-run 2>&1 | tee "$log/build"
if [ "${PIPESTATUS[0]}" -ne 0 ]; then exit 101; fi
JOBS=${JOBS:-3}
programs() { grep -E "Executable .*\(target/.*/$1-[0-9a-f]+\)" "$log/build" | sed -E 's/.*\((.*)\)/\1/'; }
# The end-to-end tests wait on tmux screens nearly all the time (a few seconds of CPU in a minute):
# three of them at once.
threads() { if [ "$1" = e2e ]; then echo "--test-threads=3"; fi; }
run_program() {
  local p="$1" out="$log/$1.out" rc=0
  local bins
  bins=$(programs "$p")
  if [ -z "$bins" ]; then echo "no test program $p" > "$out"; return 1; fi
  : > "$out"
  for bin in $bins; do
    echo "     Running $p ($bin)" >> "$out"
    CARGO_MANIFEST_DIR="$PWD" /usr/bin/time -f "$p: %e s wall, %U s user, %S s system" -a -o "$log/times" \
      "$bin" $(threads "$p") >> "$out" 2>&1 || rc=1
  done
  return $rc
}
order=(live sim cli serve clients e2e lab past shardtop model tui architecture)
# Every test program built is run: one missing from the order above fails the run.
for built in $(grep -E "Executable " "$log/build" | sed -E 's/.*deps\/([a-z_0-9]+)-[0-9a-f]+\)$/\1/' | sort -u); do
  case " ${order[*]} " in *" $built "*) ;; *) echo "test program $built is built but not in scripts/test.sh's order"; exit 1;; esac
done
rc=0
running=0
for p in "${order[@]}"; do
  if [ "$running" -ge "$JOBS" ]; then wait -n || rc=1; running=$((running - 1)); fi
  run_program "$p" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do wait -n || rc=1; running=$((running - 1)); done
cargo test --doc > "$log/doc.out" 2>&1 || rc=1
for p in "${order[@]}" doc; do cat "$log/$p.out"; done | tee "$log/all"
echo "time per test program:"
cat "$log/times"
passed=$(grep -oE '^test result: [a-zA-Z]+\. [0-9]+ passed' "$log/all" | grep -oE '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
failed=$(grep -oE '[0-9]+ failed;' "$log/all" | awk '{s+=$1} END {print s+0}')
echo "tests: ${passed} passed, ${failed} failed"
exit $rc
