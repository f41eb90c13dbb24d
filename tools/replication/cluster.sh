#!/usr/bin/env bash
# A PostgreSQL primary with one streaming standby, and PgBouncer in transaction pooling mode in front of the
# primary: the topology docs/operations.md ("Scaling out") describes, made of the machine's own PostgreSQL
# and PgBouncer packages, for the tests and the topology bench. Nothing of the system's own cluster is touched.
#
#   cluster.sh up                 primary on $PRIMARY_PORT, standby on $STANDBY_PORT, PgBouncer on $BOUNCER_PORT
#   cluster.sh down               stops all three and removes their folders
#   cluster.sh standby-stop|standby-start
#   cluster.sh delay <ms>         the standby applies each commit <ms> after the primary made it (0: at once)
#   cluster.sh env                prints PRIMARY_URL, STANDBY_URL and BOUNCER_URL for `eval`
#
# As root the servers run as the postgres user (PostgreSQL refuses root).
set -euo pipefail

ROOT=${PATCHBAY_REPL_DIR:-/tmp/patchbay-repl}
PRIMARY_PORT=${PRIMARY_PORT:-5440}
STANDBY_PORT=${STANDBY_PORT:-5441}
BOUNCER_PORT=${BOUNCER_PORT:-6440}
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)

as_pg() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

primary_url="postgres://postgres@127.0.0.1:$PRIMARY_PORT/postgres"
standby_url="postgres://postgres@127.0.0.1:$STANDBY_PORT/postgres"
bouncer_url="postgres://postgres@127.0.0.1:$BOUNCER_PORT/postgres"

wait_ready() {
  for _ in $(seq 1 120); do "$BIN/pg_isready" -q -h 127.0.0.1 -p "$1" && return 0; sleep 0.25; done
  echo "cluster.sh: nothing answered on port $1" >&2
  return 1
}

up() {
  mkdir -p "$ROOT"
  [[ $(id -u) == 0 ]] && chown postgres: "$ROOT"
  if [[ ! -d $ROOT/primary ]]; then
    as_pg "$BIN/initdb" -D "$ROOT/primary" -U postgres --auth=trust >/dev/null
    cat >>"$ROOT/primary/postgresql.conf" <<CONF
port = $PRIMARY_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$ROOT'
wal_level = replica
max_wal_senders = 5
max_connections = 200
fsync = off
full_page_writes = off
synchronous_commit = on
CONF
    echo "host replication all 127.0.0.1/32 trust" >>"$ROOT/primary/pg_hba.conf"
  fi
  as_pg "$BIN/pg_ctl" -D "$ROOT/primary" -l "$ROOT/primary.log" -w start >/dev/null 2>&1 || wait_ready "$PRIMARY_PORT"
  wait_ready "$PRIMARY_PORT"
  if [[ ! -d $ROOT/standby ]]; then
    as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$ROOT/standby" -R -X stream -c fast
    cat >>"$ROOT/standby/postgresql.conf" <<CONF
port = $STANDBY_PORT
hot_standby = on
hot_standby_feedback = on
CONF
  fi
  standby_start
  bouncer_start
}

standby_start() {
  as_pg "$BIN/pg_ctl" -D "$ROOT/standby" -l "$ROOT/standby.log" -w start >/dev/null 2>&1 || true
  wait_ready "$STANDBY_PORT"
}

standby_stop() {
  as_pg "$BIN/pg_ctl" -D "$ROOT/standby" -m fast -w stop >/dev/null 2>&1 || true
}

bouncer_start() {
  command -v pgbouncer >/dev/null || { echo "cluster.sh: pgbouncer is not installed (apt-get install pgbouncer)" >&2; return 1; }
  cat >"$ROOT/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=$PRIMARY_PORT
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $ROOT/userlist.txt
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
logfile = $ROOT/pgbouncer.log
pidfile = $ROOT/pgbouncer.pid
admin_users = postgres
INI
  echo '"postgres" ""' >"$ROOT/userlist.txt"
  [[ $(id -u) == 0 ]] && chown postgres: "$ROOT/pgbouncer.ini" "$ROOT/userlist.txt"
  if [[ -f $ROOT/pgbouncer.pid ]] && kill -0 "$(cat "$ROOT/pgbouncer.pid")" 2>/dev/null; then return 0; fi
  as_pg pgbouncer -d "$ROOT/pgbouncer.ini"
  wait_ready "$BOUNCER_PORT"
}

delay() {
  local ms=${1:?delay in milliseconds}
  local conf=$ROOT/standby/postgresql.auto.conf
  sed -i '/^recovery_min_apply_delay/d' "$conf"
  echo "recovery_min_apply_delay = '${ms}ms'" >>"$conf"
  as_pg "$BIN/pg_ctl" -D "$ROOT/standby" reload >/dev/null
}

down() {
  if [[ -f $ROOT/pgbouncer.pid ]]; then kill "$(cat "$ROOT/pgbouncer.pid")" 2>/dev/null || true; fi
  standby_stop
  as_pg "$BIN/pg_ctl" -D "$ROOT/primary" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$ROOT"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  standby-stop) standby_stop ;;
  standby-start) standby_start ;;
  delay) delay "${2:-}" ;;
  env) printf 'PRIMARY_URL=%s\nSTANDBY_URL=%s\nBOUNCER_URL=%s\n' "$primary_url" "$standby_url" "$bouncer_url" ;;
  *) echo "usage: cluster.sh up|down|standby-stop|standby-start|delay <ms>|env" >&2; exit 2 ;;
esac
