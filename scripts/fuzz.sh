#!/usr/bin/env bash
# Run shardtop's cargo-fuzz targets (fuzz/fuzz_targets/) for a bounded time each, one after
# the other, and print per target: run time, executions, final coverage, and the crash /
# timeout / OOM artifact written, if any. Not part of .ci/run: fuzzing is run by hand.
#
#   scripts/fuzz.sh                    # every target, FUZZ_SECONDS (default 60) each
#   scripts/fuzz.sh commands extjson   # only these
#   FUZZ_SECONDS=300 scripts/fuzz.sh
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# New corpus entries go to fuzz/corpus/TARGET; fuzz/seeds/TARGET is read as extra input where it
# exists (regenerate with fuzz/seeds/make_seeds.py). Crash inputs go to fuzz/artifacts/TARGET.
# Logs go to FUZZ_LOG_DIR (default /tmp/fuzzer/logs).
# Other knobs: FUZZ_NICE (niceness, default 10), FUZZ_SANITIZER (cargo fuzz -s: address,
# none, ...; default address), CARGO_BUILD_JOBS (e.g. 1 on a small machine),
# FUZZ_ARGS (extra libFuzzer flags for every target).
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
FUZZ_DIR="$REPO/fuzz"
SECONDS_EACH=${FUZZ_SECONDS:-60}
LOG_DIR=${FUZZ_LOG_DIR:-/tmp/fuzzer/logs}
NICE=${FUZZ_NICE:-10}
SANITIZER=${FUZZ_SANITIZER:-address}
mkdir -p "$LOG_DIR"

# Input size limits, per target (libFuzzer -max_len).
max_len() {
    case "$1" in
        commands | commands_structured | query_filter | update_doc | wire_message) echo 4096 ;;
        extjson) echo 4096 ;;
        scenario) echo 8192 ;;
        trace_lines) echo 65536 ;;
        lab_inputs) echo 16384 ;;
        *) echo 4096 ;;
    esac
}

all_targets() {
    ls "$FUZZ_DIR/fuzz_targets" | sed -n 's/\.rs$//p' | sort
}

if [ $# -gt 0 ]; then
    TARGETS=("$@")
else
    mapfile -t TARGETS < <(all_targets)
fi

cd "$FUZZ_DIR" || exit 1

# Build first so that the run time below is fuzzing time only.
for t in "${TARGETS[@]}"; do
    if [ ! -f "fuzz_targets/$t.rs" ]; then
        echo "no such target: $t (have: $(all_targets | tr '\n' ' '))" >&2
        exit 2
    fi
    echo "== building $t"
    if ! nice -n "$NICE" cargo +nightly fuzz build -s "$SANITIZER" "$t" >"$LOG_DIR/$t.build.log" 2>&1; then
        echo "build of $t failed; see $LOG_DIR/$t.build.log" >&2
        tail -20 "$LOG_DIR/$t.build.log" >&2
        exit 1
    fi
done

found=0
summary=()
for t in "${TARGETS[@]}"; do
    corpus="$FUZZ_DIR/corpus/$t"
    mkdir -p "$corpus" "$FUZZ_DIR/artifacts/$t"
    inputs=("$corpus")
    [ -d "$FUZZ_DIR/seeds/$t" ] && inputs+=("$FUZZ_DIR/seeds/$t")
    log="$LOG_DIR/$t.log"
    echo "== fuzzing $t for ${SECONDS_EACH}s (log: $log)"
    start=$(date +%s)
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
    nice -n "$NICE" cargo +nightly fuzz run -s "$SANITIZER" "$t" "${inputs[@]}" -- \
        -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 \
        -max_len="$(max_len "$t")" -print_final_stats=1 ${FUZZ_ARGS:-} >"$log" 2>&1
    rc=$?
    elapsed=$(( $(date +%s) - start ))
    # libFuzzer's own count and time (the wall time above also holds a rebuild, if any).
    done_line=$(grep -a '^Done [0-9]* runs in' "$log" | tail -1)
    fuzz_secs=$(echo "$done_line" | sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p')
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    [ -n "$execs" ] || execs=$(grep -a -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    cov=$(grep -a -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    kind=$(grep -a -o -m1 'ERROR: libFuzzer: [a-z-]*\|ERROR: AddressSanitizer: [a-z-]*\|panicked at [^ ]*' "$log" | head -1)
    time="${fuzz_secs:-?}s fuzzing (${elapsed}s wall)"
    if [ -n "$artifact" ]; then
        found=1
        line="$t: $time, ${execs:-?} execs, ${cov:-no cov}; FOUND (${kind:-exit $rc}): $artifact"
    elif [ "$rc" -ne 0 ]; then
        found=1
        line="$t: $time, ${execs:-?} execs, ${cov:-no cov}; exited with $rc, no artifact (see $log)"
    else
        line="$t: $time, ${execs:-?} execs, ${cov:-no cov}; nothing found"
    fi
    echo "$line"
    summary+=("$line")
done

echo
echo "== summary (FUZZ_SECONDS=$SECONDS_EACH)"
printf '%s\n' "${summary[@]}"
exit "$found"
