#!/bin/sh
# A throw-away PostgreSQL cluster for the team store's tests (docs/team.md): initdb into a temporary folder, the
# server listening only on a Unix socket in that folder (no TCP), started and stopped with pg_ctl. initdb and the
# server refuse to run as root, so under root they run as the `postgres` user, who owns the folder.
#   pg_cluster.sh setup INFO    new cluster; writes its connection string to INFO and its folder to INFO.dir
#   pg_cluster.sh cleanup INFO  stops the cluster INFO names and removes its folder
#   pg_cluster.sh stop INFO     stops it, keeping its files (a server that went down)
#   pg_cluster.sh start INFO    starts it again
# Without the server binaries `setup` writes no INFO and exits 0: the tests then skip (or fail under
# TRAINYARD_REQUIRE_DATA). PG_BIN overrides where they are (default: Debian's postgresql-15).
set -eu

command=${1:?usage: pg_cluster.sh setup|cleanup|stop|start INFO}
info=${2:?usage: pg_cluster.sh setup|cleanup|stop|start INFO}
bin=${PG_BIN:-/usr/lib/postgresql/15/bin}

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

folder() {
  cat "$info.dir"
}

start() {
  dir=$(folder)
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c port=5432 -c fsync=off" start >/dev/null
}

stop() {
  dir=$(folder)
  [ -f "$dir/data/postmaster.pid" ] || return 0
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null
}

case "$command" in
  setup)
    rm -f "$info" "$info.dir"
    if [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
      echo "pg_cluster: no PostgreSQL server binaries in $bin; the team store's tests skip" >&2
      exit 0
    fi
    dir=$(mktemp -d "${TMPDIR:-/tmp}/trainyard-pg.XXXXXX")
    chmod 700 "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    echo "$dir" >"$info.dir"
    as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    start
    echo "host=$dir port=5432 user=postgres dbname=postgres" >"$info"
    ;;
  cleanup)
    [ -f "$info.dir" ] || exit 0
    stop || true
    rm -rf "$(folder)"
    rm -f "$info" "$info.dir"
    ;;
  stop) stop ;;
  start) start ;;
  *)
    echo "usage: pg_cluster.sh setup|cleanup|stop|start INFO" >&2
    exit 2
    ;;
esac
