#!/usr/bin/env bash
# Record the README demo of shardtop as an asciicast and convert it to an animated SVG.
#
#   scripts/record-demo.sh path/to/shardtop [OUT_DIR]
#
# Same steps as demo.tape (the VHS script), by a route that needs no VHS:
#   asciinema rec (Debian package) runs a bare bash inside a detached 100x30 tmux
#   session; this script types the commands and keys with `tmux send-keys`;
#   svg-term-cli (npm) turns the .cast into an animated SVG, and one still SVG
#   frame is rendered to PNG with headless Chromium when it is installed.
#
# Writes OUT_DIR/demo.cast, OUT_DIR/demo.svg and (with chromium) OUT_DIR/screenshot.png.
# OUT_DIR defaults to the repository's assets/.
# Set INSTALL=0 to never install missing tools (asciinema, svg-term-cli, chromium).
set -euo pipefail

BIN=${1:?usage: $0 path/to/shardtop [OUT_DIR]}
BIN=$(realpath "$BIN")
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(realpath -m "${2:-$REPO/assets}")
COLS=100
ROWS=30
SPEED=8
INSTALL=${INSTALL:-1}

mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/shardtop-demo.XXXXXX)
SESSION="shardtop-demo-$$"
trap 'tmux kill-session -t "$SESSION" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# --- tools -------------------------------------------------------------------
need() { command -v "$1" >/dev/null 2>&1; }
if ! need tmux || ! need asciinema; then
    [ "$INSTALL" = 1 ] || { echo "need tmux and asciinema" >&2; exit 1; }
    apt-get update -qq && apt-get install -y -qq tmux asciinema
fi
if ! need svg-term; then
    [ "$INSTALL" = 1 ] || { echo "need svg-term (npm install -g svg-term-cli)" >&2; exit 1; }
    npm install -g svg-term-cli@2.1.1
fi

# --- a clean shell where `shardtop` is the binary under test -----------------
mkdir -p "$WORK/bin" "$WORK/home"
ln -s "$BIN" "$WORK/bin/shardtop"
cat > "$WORK/shell.sh" <<EOF
#!/usr/bin/env bash
export PATH="$WORK/bin:/usr/local/bin:/usr/bin:/bin"
export HOME="$WORK/home" TERM=xterm-256color PS1='\$ ' LANG=C.UTF-8 LC_ALL=C.UTF-8
unset NO_COLOR
cd "$WORK/home"
exec bash --noprofile --norc -i
EOF
chmod +x "$WORK/shell.sh"

# asciinema writes its install id under its config home: keep it out of $HOME
export ASCIINEMA_CONFIG_HOME="$WORK/asciinema"
CAST="$WORK/demo.cast"
tmux new-session -d -s "$SESSION" -x "$COLS" -y "$ROWS" \
    "TERM=xterm-256color asciinema rec --quiet --overwrite --idle-time-limit 1 --cols $COLS --rows $ROWS \
     --title 'shardtop demo' -c '$WORK/shell.sh' '$CAST'"
sleep 2

# type TEXT one character at a time, like a person (VHS's Type)
type_slowly() {
    local text=$1 i
    for ((i = 0; i < ${#text}; i++)); do
        tmux send-keys -t "$SESSION" -l "${text:i:1}"
        sleep 0.05
    done
}
key() { tmux send-keys -t "$SESSION" "$@"; }

# --- the demo (keep in step with demo.tape) ----------------------------------
# 1. ascending _id: one shard takes 100% of the writes (◀ HOT), the balancer moves chunks away
type_slowly "shardtop demo ascending --speed $SPEED"; sleep 0.5; key Enter
sleep 16
key '?'; sleep 4      # help overlay
key '?'; sleep 3      # any key closes it
key q; sleep 1

# 2. hashed key: the same ascending usernames scatter over every shard
type_slowly "shardtop demo hashed --speed $SPEED"; sleep 0.5; key Enter
sleep 12
key q; sleep 1
type_slowly "exit"; key Enter

# wait for asciinema to finish writing
for _ in $(seq 1 30); do tmux has-session -t "$SESSION" 2>/dev/null || break; sleep 1; done
tmux kill-session -t "$SESSION" 2>/dev/null || true
test -s "$CAST" || { echo "recording failed: no $CAST" >&2; exit 1; }

# The cast header records the recorder's $TERM/$SHELL only: make it reproducible.
python3 - "$CAST" <<'PY'
import json, sys
path = sys.argv[1]
lines = open(path, encoding="utf-8").read().splitlines()
head = json.loads(lines[0])
head.pop("timestamp", None)
head["env"] = {"TERM": "xterm-256color", "SHELL": "/bin/bash"}
lines[0] = json.dumps(head)
open(path, "w", encoding="utf-8").write("\n".join(lines) + "\n")
PY
cp "$CAST" "$OUT/demo.cast"

# --- conversion ----------------------------------------------------------------
svg-term --in "$OUT/demo.cast" --out "$OUT/demo.svg" --window --width "$COLS" --height "$ROWS"

# one still: the ascending hotspot with a migration in flight, as a PNG (needs chromium)
AT_MS=${AT_MS:-17500}
svg-term --in "$OUT/demo.cast" --out "$WORK/still.svg" --window --width "$COLS" --height "$ROWS" --at "$AT_MS"
if need chromium || { [ "$INSTALL" = 1 ] && apt-get install -y -qq chromium >/dev/null && need chromium; }; then
    # the window is the SVG's own size: width/height of its root element
    read -r W H < <(python3 - "$WORK/still.svg" <<'PY'
import math, re, sys
svg = open(sys.argv[1], encoding="utf-8").read(2000)
root = re.search(r"<svg[^>]*>", svg).group(0)
w = float(re.search(r' width="([\d.]+)"', root).group(1))
h = float(re.search(r' height="([\d.]+)"', root).group(1))
print(math.ceil(w), math.ceil(h))
PY
)
    cat > "$WORK/still.html" <<EOF
<!doctype html><html><body style="margin:0;background:#282d35">
<img src="still.svg" style="display:block;width:${W}px;height:${H}px"></body></html>
EOF
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size="$W,$H" --screenshot="$OUT/screenshot.png" "file://$WORK/still.html" 2>/dev/null
fi

ls -l "$OUT"/demo.cast "$OUT"/demo.svg "$OUT"/screenshot.png 2>/dev/null || true
