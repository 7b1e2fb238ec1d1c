#!/usr/bin/env bash
# Time to first frame: runs `shardtop ARGS…` in a detached 120×40 tmux pane N times and prints
# each time from just before `exec` until the pane shows TEXT (polled every 5 ms), then the median.
# Usage: scripts/first_frame.sh BIN TEXT N ARGS…
#   scripts/first_frame.sh target/release/shardtop 'Key space' 5
#   scripts/first_frame.sh target/release/shardtop 'Key space' 5 watch mongodb://127.0.0.1:27017
set -euo pipefail
bin=$1 text=$2 runs=$3
shift 3
sock="first-frame-$$"
times=()
for _ in $(seq "$runs"); do
  stamp=$(mktemp)
  tmux -L "$sock" -f /dev/null new-session -d -s t -x 120 -y 40 \
    "date +%s%N > $stamp; exec $bin $*"
  while ! tmux -L "$sock" capture-pane -p -t t 2>/dev/null | grep -qF "$text"; do
    sleep 0.005
  done
  now=$(date +%s%N)
  start=$(cat "$stamp")
  times+=($(( (now - start) / 1000000 )))
  tmux -L "$sock" kill-server
  rm -f "$stamp"
done
printf '%s ms\n' "${times[@]}"
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
echo "median: ${sorted[$(( runs / 2 ))]} ms"
