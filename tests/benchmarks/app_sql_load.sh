#!/usr/bin/env bash
# The desktop app's load on its run database: starts the app under Xvfb with sqlite-statement-log preloaded, lets it
# sit for 16 s, and counts the connections it opened to DB and the SQL statements it ran from second 5 to second 15,
# by connection and by statement (docs/training-ui.md, "Watching the database").
# Usage: app_sql_load.sh BUILD_DIR DB [app options...], e.g.
#   cmake --build build --target sqlite-statement-log trainyard
#   tests/benchmarks/app_sql_load.sh build /tmp/runs.sqlite --mode experiments --runs 1,2
#   tests/benchmarks/app_sql_load.sh build /tmp/runs.sqlite --mode experiments --train   # while it trains a run
# The worker processes (trainyard-cli) log to their own files and are not counted. PRESET chooses the preset.
set -euo pipefail
build=${1:?usage: app_sql_load.sh BUILD_DIR DB [app options...]}
db=${2:?usage: app_sql_load.sh BUILD_DIR DB [app options...]}
shift 2
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
module=$(realpath "$build/tests/benchmarks/libsqlite-statement-log.so")
app=$(realpath "$build/app/gui/trainyard")
logs=$(mktemp -d)
(cd "$source_dir" && SQLITE_STATEMENT_LOG="$logs/log" LD_PRELOAD="$module" XDG_CONFIG_HOME="$logs/config" \
  timeout -s TERM 16 xvfb-run -a -s "-screen 0 1280x720x24" "$app" "${PRESET:-presets/fashion-mnist-mlp.trainyard.json}" \
  --db "$db" --size 1280x720 "$@" >/dev/null 2>&1) || true
python3 - "$db" "$logs"/log.trainyard.* <<'PY'
import collections, os, sys
db = os.path.realpath(sys.argv[1])
lines = [l.rstrip('\n').split(' ', 3) for l in open(sys.argv[2])]
start = float(lines[0][0])
opened = [l for l in lines if l[1] == 'open' and os.path.realpath(l[3]) == db]
ours = {l[2] for l in opened}
window = [l for l in lines if l[1] == 'stmt' and l[2] in ours and start + 5 <= float(l[0]) < start + 15]
print(f"connections opened to {db}: {len(opened)}")
print(f"statements from second 5 to 15: {len(window)} ({len(window) / 10:.1f} a second), "
      f"on {len({l[2] for l in window})} of them")
for sql, n in collections.Counter(l[3][:100] for l in window).most_common(15):
    print(f"  {n:5d}  {sql}")
PY
rm -rf "$logs"
