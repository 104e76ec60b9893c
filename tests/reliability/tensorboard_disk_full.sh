#!/usr/bin/env bash
# A full disk under a live TensorBoard file (a 16 KiB tmpfs as DIR of `run --tensorboard DIR`): the file stops, the
# run does not. It finishes (exit 0) with every metric row in the database, one `warning` event naming the file, the
# warning printed once, and the file no larger than the disk. Skipped (77) where a tmpfs cannot be mounted.
# usage: tensorboard_disk_full.sh TRAINYARD_CLI PRESET
set -euo pipefail
cli=$1
preset=$2
work=$(mktemp -d)
board=$work/board
mkdir "$board"
cleanup() { umount "$board" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! mount -t tmpfs -o size=16k tmpfs "$board" 2>/dev/null; then
  echo "tensorboard_disk_full: skipped, cannot mount a tmpfs here"
  exit 77
fi
db=$work/runs.sqlite

code=0
"$cli" run "$preset" --db "$db" --tensorboard "$board" > "$work/out.log" 2>&1 || code=$?
[ "$code" = "0" ] || fail "exit code $code, expected 0: $(cat "$work/out.log")"
warnings=$(grep -c "warning: .*the live TensorBoard file could not be written" "$work/out.log" || true)
[ "$warnings" = "1" ] || fail "$warnings warnings on stderr, expected 1: $(cat "$work/out.log")"
[ "$(sqlite3 "$db" "select status from runs where id = 1")" = "finished" ] || fail "the run did not finish"
events=$(sqlite3 "$db" "select count(*) from events where run_id = 1 and kind = 'warning' and message like '%$board/1-%'")
[ "$events" = "1" ] || fail "$events warning events naming the file, expected 1"
rows=$(sqlite3 "$db" "select count(*) from metrics where run_id = 1")
steps=$(sqlite3 "$db" "select max(step) from metrics where run_id = 1 and name = 'train/loss'")
last=$(sqlite3 "$db" "select count(*) from metrics where run_id = 1 and name = 'train/loss' and step between 1 and $steps")
[ "$last" = "$steps" ] || fail "$last train/loss rows for $steps steps"
file=$(ls "$board"/1-*/events.out.tfevents.*)
size=$(stat -c %s "$file")
[ "$size" -gt 100 ] && [ "$size" -le 16384 ] || fail "an event file of $size bytes"
echo "tensorboard_disk_full: exit 0, run finished with $rows rows, one warning, the event file stopped at $size bytes"
