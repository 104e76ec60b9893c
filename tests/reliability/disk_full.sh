#!/usr/bin/env bash
# A full disk in the middle of a run (simulated with a file-size limit): checkpoints and metric rows fail to
# be written, the run stops with a clear message and exit code 1, its status is truthful (failed, or
# interrupted when even the status could not be written), and the database stays intact.
# usage: disk_full.sh TRAINYARD_CLI PRESET
set -euo pipefail
cli=$1
preset=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/runs.sqlite
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" runs list --db "$db" > /dev/null
# Ignore SIGXFSZ so that writes past the limit fail with EFBIG, as on a full disk.
code=0
TRAINYARD_DB_RETRY_SECONDS=2 bash -c 'trap "" XFSZ; ulimit -f 300; exec "$@"' _ "$cli" run "$preset" --db "$db" > "$work/out.log" 2>&1 || code=$?
[ "$code" = "1" ] || fail "exit code $code, expected 1: $(cat "$work/out.log")"
grep -q "cannot write checkpoint" "$work/out.log" || fail "no checkpoint error reported: $(cat "$work/out.log")"
grep -q "could not be written\|cannot commit" "$work/out.log" || fail "no database error reported: $(cat "$work/out.log")"
[ "$(sqlite3 "$db" 'pragma integrity_check')" = "ok" ] || fail "integrity check failed"
status=$("$cli" runs show 1 --db "$db" --json | sed -n 's/^ *"status": "\(.*\)",$/\1/p')
case "$status" in
  failed|interrupted) ;;
  *) fail "status '$status' after a full disk" ;;
esac
ls "$db-runs/1/checkpoints" | grep -q . && fail "a partial checkpoint was left behind: $(ls "$db-runs/1/checkpoints")"
echo "disk_full: exit 1, status $status, database intact, no partial checkpoint"
