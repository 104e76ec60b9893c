#!/usr/bin/env bash
# Kills real training runs with SIGKILL at random moments, then checks after each kill that the database is
# intact, the run is marked interrupted, and that resuming (possibly killed again) ends with exactly the
# metrics of an uninterrupted run: every row, value for value, none duplicated.
# usage: kill_and_resume.sh TRAINYARD_CLI PRESET [ROUNDS]
set -euo pipefail
cli=$1
preset=$2
rounds=${3:-6}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/runs.sqlite
fail() { echo "FAIL: $*" >&2; exit 1; }

rows() {  # every metric row of a run but its wall time, in a stable order
  # speed/* rows are timings (docs/training-ui.md, Speed): not part of the promise
  sqlite3 "$1" "select name, step, epoch, quote(value) from metrics where run_id = $2 and name not like 'speed/%' order by name, step"
}

"$cli" run "$preset" --db "$work/reference.sqlite" --quiet > /dev/null || fail "the reference run failed"
reference=$(rows "$work/reference.sqlite" 1)
steps=$(sqlite3 "$work/reference.sqlite" "select max(step) from metrics where run_id = 1 and name = 'train/loss'")
start=$(date +%s%N)
"$cli" run "$preset" --db "$work/timing.sqlite" --quiet > /dev/null
duration_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "reference: $steps steps in ${duration_ms} ms"

kills=0
for round in $(seq 1 "$rounds"); do
  # The first kill lands anywhere in the run, from start-up on; a second one, every other round, lands in the resume.
  "$cli" run "$preset" --db "$db" --quiet --name "round $round" > /dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v r="$RANDOM" -v d="$duration_ms" 'BEGIN { printf "%.3f", (r / 32767) * d / 1000 * 0.95 }')"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # A kill during start-up may come before the schema or the run exists: nothing to resume then.
  id=$(sqlite3 "$db" "select max(id) from runs" 2>/dev/null || true)
  if [ -z "$id" ] || [ -n "$(sqlite3 "$db" "select 1 from runs where id = $id and name != 'round $round'")" ]; then
    echo "round $round: killed before its run was created"
    continue
  fi
  kills=$((kills + 1))
  [ "$(sqlite3 "$db" 'pragma integrity_check')" = "ok" ] || fail "round $round: integrity check failed"
  status=$("$cli" runs show "$id" --db "$db" --json | sed -n 's/^ *"status": "\(.*\)",$/\1/p')
  case "$status" in
    interrupted) ;;
    finished) echo "round $round: run $id finished before the kill"; continue ;;
    *) fail "round $round: run $id is '$status' after kill -9 (expected interrupted)" ;;
  esac
  if [ $((round % 2)) -eq 0 ]; then
    "$cli" resume "$id" --db "$db" --quiet > /dev/null 2>&1 &
    pid=$!
    sleep "$(awk -v r="$RANDOM" -v d="$duration_ms" 'BEGIN { printf "%.3f", (r / 32767) * d / 1000 * 0.5 }')"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    [ "$(sqlite3 "$db" 'pragma integrity_check')" = "ok" ] || fail "round $round: integrity check failed after killing the resume"
  fi
  status=$("$cli" runs show "$id" --db "$db" --json | sed -n 's/^ *"status": "\(.*\)",$/\1/p')
  if [ "$status" != "finished" ]; then
    "$cli" resume "$id" --db "$db" --quiet > /dev/null || fail "round $round: resume of run $id failed"
  fi
  [ "$(sqlite3 "$db" "select status from runs where id = $id")" = "finished" ] || fail "round $round: run $id did not finish"
  dupes=$(sqlite3 "$db" "select count(*) - count(distinct name || '@' || step) from metrics where run_id = $id")
  [ "$dupes" = "0" ] || fail "round $round: run $id has $dupes duplicated metric rows"
  [ "$(rows "$db" "$id")" = "$reference" ] || fail "round $round: run $id's metrics differ from the uninterrupted run"
  echo "round $round: run $id killed, resumed, identical to the reference ($(sqlite3 "$db" "select count(*) from events where run_id = $id and kind = 'resumed'") resumes)"
done
[ "$kills" -gt 0 ] || fail "no run was killed"
echo "kill_and_resume: $kills runs killed and resumed exactly"
