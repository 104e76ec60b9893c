#!/usr/bin/env bash
# The run database failing under a real run (issue 45, point 1): a record must never get ahead of the rows it
# stands on, and a resume after the fault must end with exactly the rows of an uninterrupted run.
#  1. The database cannot grow (a file-size limit that checkpoints still fit under): the run ends failed with the
#     reason, every recorded checkpoint has all rows before it, and a resume equals the uninterrupted run.
#  2. The database fills up, then space comes back within the writer's retry window: the rows wait in memory, the
#     user is told, and the run finishes with every row.
#  3. Another process holds the database's write lock for a while: the run finishes with every row.
# usage: database_faults.sh TRAINYARD_CLI PRESET
set -euo pipefail
cli=$1
preset=$2
work=$(mktemp -d)
lockers=()
cleanup() { for p in "${lockers[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

rows() {  # every metric row of a run but its wall time and speed/* timings, in a stable order
  sqlite3 "$1" "select name, step, epoch, quote(value) from metrics where run_id = 1 and name not like 'speed/%' order by name, step"
}
status_of() { sqlite3 "$1" "select status from runs where id = 1"; }

# Every checkpoint recorded has every train/loss row up to its step, as many as the uninterrupted run has.
records_stand_on_rows() {
  local db=$1 step have want
  for step in $(sqlite3 "$db" "select step from checkpoints where run_id = 1"); do
    have=$(sqlite3 "$db" "select count(*) from metrics where run_id = 1 and name = 'train/loss' and step <= $step")
    want=$(sqlite3 "$work/reference.sqlite" "select count(*) from metrics where run_id = 1 and name = 'train/loss' and step <= $step")
    [ "$have" = "$want" ] || fail "$db: the checkpoint at step $step is recorded over $have of its $want train/loss rows"
  done
}

# Holds the write lock of $1 for $2 seconds once the run has written its first rows.
hold_lock() {
  local db=$1 seconds=$2
  for _ in $(seq 1 200); do
    [ -f "$db" ] && [ "$(sqlite3 "$db" "select count(*) from metrics" 2>/dev/null || echo 0)" -gt 0 ] && break
    sleep 0.05
  done
  (echo "BEGIN IMMEDIATE;"; sleep "$seconds"; echo "COMMIT;") | sqlite3 "$db" &
  lockers+=($!)
}

resume_equals_reference() {
  local db=$1 what=$2
  "$cli" resume 1 --db "$db" --quiet > "$work/resume.log" 2>&1 || fail "$what: resume failed: $(cat "$work/resume.log")"
  [ "$(status_of "$db")" = "finished" ] || fail "$what: not finished after resume"
  [ "$(rows "$db")" = "$reference" ] || fail "$what: after resume the metrics differ from the uninterrupted run"
  [ "$(sqlite3 "$db" 'pragma integrity_check')" = "ok" ] || fail "$what: integrity check failed"
}

"$cli" run "$preset" --db "$work/reference.sqlite" --quiet > /dev/null || fail "the reference run failed"
reference=$(rows "$work/reference.sqlite")

# 1. The database stops growing at 600 KiB; checkpoints (133 KB) still fit.
db=$work/full.sqlite
"$cli" runs list --db "$db" > /dev/null
code=0
TRAINYARD_DB_RETRY_SECONDS=2 bash -c 'trap "" XFSZ; ulimit -f 600; exec "$@"' _ \
  "$cli" run "$preset" --db "$db" --quiet > "$work/full.log" 2>&1 || code=$?
[ "$code" = "1" ] || fail "full: exit code $code, expected 1: $(cat "$work/full.log")"
grep -q "still failing after" "$work/full.log" || fail "full: no reason given: $(cat "$work/full.log")"
case "$(status_of "$db")" in
  failed) sqlite3 "$db" "select status_message from runs where id = 1" | grep -q "could not be written" ||
            fail "full: the failed run does not say why" ;;
  running) ;;  # even the status could not be written; readers see the process gone (checked below)
  *) fail "full: status '$(status_of "$db")' after the database filled up" ;;
esac
records_stand_on_rows "$db"
lost=$(( $(echo "$reference" | wc -l) - $(rows "$db" | wc -l) ))
[ "$lost" -gt 0 ] || fail "full: no row was lost, the limit did not bite"
resume_equals_reference "$db" "full"
echo "database full: exit 1, $lost rows not written, no checkpoint recorded past them; resumed exactly"

# 2. The database fills up, then space comes back (the limit is lifted from outside): the rows waited in memory,
#    the user was told, and the run finishes with every row.
db=$work/freed.sqlite
"$cli" runs list --db "$db" > /dev/null
bash -c 'trap "" XFSZ; ulimit -S -f 600; exec "$@"' _ "$cli" run "$preset" --db "$db" --quiet > "$work/freed.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  grep -q "written again" "$work/freed.log" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
grep -q "written again" "$work/freed.log" || fail "freed: no warning while the rows waited: $(cat "$work/freed.log")"
sleep 1
prlimit --pid "$pid" --fsize=unlimited: || fail "freed: cannot lift the file-size limit of $pid"
code=0
wait "$pid" || code=$?
[ "$code" = "0" ] || fail "freed: exit code $code: $(cat "$work/freed.log")"
[ "$(status_of "$db")" = "finished" ] || fail "freed: status '$(status_of "$db")'"
[ "$(rows "$db")" = "$reference" ] || fail "freed: the metrics differ from the uninterrupted run"
echo "database full, then freed: warned, retried, finished with every row"

# 3. Another process holds the write lock for 5 s in the middle of the run: nothing is lost.
db=$work/locked.sqlite
"$cli" runs list --db "$db" > /dev/null
"$cli" run "$preset" --db "$db" --quiet > "$work/locked.log" 2>&1 &
pid=$!
hold_lock "$db" 5
code=0
wait "$pid" || code=$?
[ "$code" = "0" ] || fail "locked: exit code $code: $(cat "$work/locked.log")"
[ "$(status_of "$db")" = "finished" ] || fail "locked: status '$(status_of "$db")'"
[ "$(rows "$db")" = "$reference" ] || fail "locked: the metrics differ from the uninterrupted run"
echo "database locked for 5 s: finished with every row"
