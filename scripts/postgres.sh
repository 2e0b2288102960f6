#!/usr/bin/env bash
# A PostgreSQL server on loopback for shared tuning (mdh-tune --db URL --workers N):
#
#   scripts/postgres.sh start DIR [PORT]   create a cluster in DIR (first time), start it on
#                                          127.0.0.1:PORT (default 55432) and a unix socket in
#                                          DIR, create the database `mdh`, print its URL
#   scripts/postgres.sh stop DIR           stop the server of DIR (fast shutdown)
#
# Debian's PostgreSQL (package `postgresql`; scripts/setup.sh installs it where missing).
# initdb refuses to run as root, so as root the cluster belongs to the `postgres` user
# (DIR is created and handed to it; its parent folders must be traversable by it). Other
# hosts reach the server only if it listens beyond loopback: start it with
# MDH_PG_LISTEN='*' and allow them in DIR/data/pg_hba.conf. MDH_PG_EPHEMERAL=1 makes a
# throwaway server (the tests'): nothing is written to disk before it is needed (initdb
# --no-sync, fsync=off), and stop does not write a checkpoint (immediate shutdown).
set -euo pipefail
usage() { echo "usage: $0 start DIR [PORT] | stop DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
action=$1
dir=$(realpath -m "$2")
port=${3:-55432}
ephemeral=$([ "${MDH_PG_EPHEMERAL:-0}" = 1 ] && echo 1 || true)
pg_ctl=$(command -v pg_ctl 2>/dev/null || ls -d /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | sort -V | tail -n1 || true)
bindir=$(dirname "$(realpath -m "${pg_ctl:-/nonexistent}")")
[ -x "$bindir/pg_ctl" ] || { echo "$0: PostgreSQL not found (install Debian's postgresql)" >&2; exit 1; }
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case $action in
start)
  mkdir -p "$dir"
  [ "$(id -u)" -ne 0 ] || chown postgres: "$dir"
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_owner "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 ${ephemeral:+--no-sync} \
      >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
  fi
  as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses='${MDH_PG_LISTEN:-127.0.0.1}' -p $port -k '$dir' ${ephemeral:+-c fsync=off}" \
    start >/dev/null ||
    { tail -n 20 "$dir/server.log" >&2; exit 1; }
  if ! as_owner "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -Atqc \
      "SELECT 1 FROM pg_database WHERE datname = 'mdh'" postgres | grep -q 1; then
    as_owner "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres mdh
  fi
  echo "postgresql://postgres@127.0.0.1:$port/mdh"
  ;;
stop)
  as_owner "$bindir/pg_ctl" -D "$dir/data" -m "$([ -n "$ephemeral" ] && echo immediate || echo fast)" -w stop >/dev/null
  ;;
*) usage ;;
esac
