#!/usr/bin/env bash
# Several trainyard-cli runs write one database at once while a reader lists runs in a loop: every run
# finishes, no row is lost, nothing fails with "database is locked", and the database stays intact.
# usage: concurrent_writers.sh TRAINYARD_CLI PRESET [WRITERS]
set -euo pipefail
cli=$1
preset=$2
writers=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/runs.sqlite
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" runs list --db "$db" > /dev/null   # create the schema once, as the app would
pids=()
for i in $(seq 1 "$writers"); do
  "$cli" run "$preset" --db "$db" --quiet --name "writer $i" --set training.epochs=4 > "$work/writer$i.log" 2>&1 &
  pids+=($!)
done
reads=0
while kill -0 "${pids[@]}" 2>/dev/null; do
  "$cli" runs list --db "$db" > "$work/reader.log" 2>&1 || fail "runs list failed while writers ran: $(cat "$work/reader.log")"
  reads=$((reads + 1))
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || fail "writer $((i + 1)) failed: $(cat "$work/writer$((i + 1)).log")"
done
if grep -qi "locked" "$work"/*.log; then fail "a process saw 'database is locked'"; fi
[ "$(sqlite3 "$db" 'pragma integrity_check')" = "ok" ] || fail "integrity check failed"
[ "$(sqlite3 "$db" "select count(*) from runs where status = 'finished'")" = "$writers" ] || fail "not every run finished"
expected=$(sqlite3 "$db" "select max(step) from metrics where run_id = 1 and name = 'train/loss'")
for id in $(seq 1 "$writers"); do
  rows=$(sqlite3 "$db" "select count(*) from metrics where run_id = $id and name = 'train/loss'")
  [ "$rows" = "$expected" ] || fail "run $id has $rows train/loss rows, expected $expected"
done
# Same preset, same seed, deterministic: the runs agree row for row.
for id in $(seq 2 "$writers"); do
  # speed/* rows are timings: they differ from run to run
  a=$(sqlite3 "$db" "select name, step, quote(value) from metrics where run_id = 1 and name not like 'speed/%' order by name, step")
  b=$(sqlite3 "$db" "select name, step, quote(value) from metrics where run_id = $id and name not like 'speed/%' order by name, step")
  [ "$a" = "$b" ] || fail "run $id differs from run 1"
done
echo "concurrent_writers: $writers runs of $expected steps each, $reads reads while they wrote, no row lost"
