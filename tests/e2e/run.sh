#!/usr/bin/env bash
# End-to-end run with real NetBox clients against a fresh Patchbay server:
#   1. every tests/e2e/*.py, datacentre.py first, then the others by name
#      (Debian's python3-pynetbox, /usr/bin/python3);
#   2. every tests/e2e/*.yml, datacentre.yml first (ansible-playbook + the netbox.netbox collection),
#      each twice; the second run must report changed=0.
#   3. tests/e2e/inventory/: seed.py, then ansible-inventory --list with the nb_inventory plugin, then check.py.
# The scripts share the one server and run in that order: a later one may use what datacentre.* made.
#
# The server runs on embedded PostgreSQL (PGlite) in a temporary folder, or on
# PostgreSQL when E2E_DATABASE_URL is set (that database is dropped and created
# afresh). Every step has a time limit (E2E_STEP_TIMEOUT seconds, default 600).
# On any failure the tail of the server log is printed and the exit status is 1.
#
# A database that already holds data (imported by `patchbay import`, or left by an earlier run) instead of
# a fresh one: E2E_KEEP_DATABASE=1 with E2E_DATABASE_URL uses that database as it is (not dropped or
# created), E2E_DATA_DIR=<folder> an existing PGlite data folder (E2E_KEEP_WORK=1 keeps the one a run made,
# in <work>/pglite). The scripts then find data they did not make: each one works on its own names and
# removes, before it starts, what an earlier run with E2E_KEEP=1 (tests/import/e2e-on-imported-target.sh
# seeds its source that way) left of them. A playbook's first run cannot be required to change something
# on such a database: E2E_PLAYBOOK_FIRST_RUN says what it must report: `changes` (changed > 0, the default
# on a fresh database), `unchanged` (changed=0: the database already holds exactly what the playbooks
# write, e.g. imported from a server they ran against) or `any` (the default on a kept database).
#
#   bash tests/e2e/run.sh
#   E2E_DATABASE_URL=postgres://postgres@127.0.0.1:5432/pb_e2e bash tests/e2e/run.sh
#   E2E_DATABASE_URL=<through PgBouncer> E2E_ADMIN_URL=<the primary's postgres db> DATABASE_POOL_MODE=transaction \
#     bash tests/e2e/run.sh          (tests/scale-out/e2e-through-pgbouncer.sh does this)
#   E2E_DATABASE_URL=postgres://postgres@127.0.0.1:5432/pb_import_e2e E2E_KEEP_DATABASE=1 bash tests/e2e/run.sh
#   E2E_DATA_DIR=/tmp/patchbay-e2e.XXXXXX/pglite bash tests/e2e/run.sh
#
# E2E_KEEP_WORK=1 keeps the temporary folder (server log, PGlite data, Ansible output).
# E2E_SAVE_DATA=<folder> (PGlite only): after a run that passed, the data folder, the media folder and the
# admin token are moved to <folder>/pglite, <folder>/media and <folder>/token, for a later step to serve
# (tests/import/e2e-on-imported-target.sh takes it as its source: IMPORT_E2E_SOURCE).
set -uo pipefail
cd "$(dirname "$0")/../.."

STEP_TIMEOUT=${E2E_STEP_TIMEOUT:-600}
MAX_PAGE_SIZE=50   # small, so the pynetbox paging checks cross pages
WORK=$(mktemp -d "${TMPDIR:-/tmp}/patchbay-e2e.XXXXXX")
LOG=$WORK/server.log
: >"$LOG"
SERVER_PID=
FAILED=0

say() { printf '\n=== e2e: %s ===\n' "$*"; }

stop_server() {
  if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    # the server runs in its own process group (setsid): stop it and its workers
    kill -TERM -- "-$SERVER_PID" 2>/dev/null || kill -TERM "$SERVER_PID" 2>/dev/null
    for _ in $(seq 1 20); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=
}

finish() {
  local rc=$?
  ((FAILED)) && rc=1
  stop_server
  if ((rc != 0)); then
    echo
    echo "=== e2e: FAILED; last 80 lines of the server log ($LOG) ==="
    tail -n 80 "$LOG"
  fi
  if [[ ${E2E_KEEP_WORK:-} == 1 || $rc != 0 ]]; then
    echo "e2e: work folder kept: $WORK"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM

fail() { echo "e2e: FAIL: $*" >&2; FAILED=1; exit 1; }

for tool in node curl /usr/bin/python3 ansible-playbook; do
  command -v "$tool" >/dev/null || fail "$tool is not installed"
done
/usr/bin/python3 -c 'import pynetbox' 2>/dev/null || fail "python3-pynetbox is not installed (apt-get install -y python3-pynetbox)"
ansible-galaxy collection list netbox.netbox 2>/dev/null | grep -q '^netbox\.netbox' \
  || fail "the netbox.netbox Ansible collection is not installed (apt-get install -y ansible)"

TOKEN=$(od -An -tx1 -N20 /dev/urandom | tr -d ' \n')
PORT=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT

# ---------------------------------------------------------------- database
# KEPT=1: the server runs on a database that already holds data (E2E_KEEP_DATABASE=1 or E2E_DATA_DIR)
KEPT=0
case ${E2E_KEEP_DATABASE:-} in
  '' | 0) ;;
  1) [[ -n ${E2E_DATABASE_URL:-} ]] || fail "E2E_KEEP_DATABASE=1 needs E2E_DATABASE_URL (for PGlite, E2E_DATA_DIR=<data folder>)"
     KEPT=1 ;;
  *) fail "E2E_KEEP_DATABASE must be 1 or unset, got '$E2E_KEEP_DATABASE'" ;;
esac
if [[ -n ${E2E_DATA_DIR:-} ]]; then
  [[ -z ${E2E_DATABASE_URL:-} ]] || fail "E2E_DATA_DIR (a PGlite data folder) and E2E_DATABASE_URL exclude each other"
  [[ -d $E2E_DATA_DIR ]] || fail "E2E_DATA_DIR is not a folder: $E2E_DATA_DIR"
  KEPT=1
fi
if [[ -n ${E2E_SAVE_DATA:-} ]] && { [[ -n ${E2E_DATABASE_URL:-} ]] || ((KEPT)); }; then
  fail "E2E_SAVE_DATA saves the data folder of a fresh PGlite run: not with E2E_DATABASE_URL or E2E_DATA_DIR"
fi
PLAYBOOK_FIRST_RUN=${E2E_PLAYBOOK_FIRST_RUN:-$( ((KEPT)) && echo any || echo changes)}
[[ $PLAYBOOK_FIRST_RUN =~ ^(changes|unchanged|any)$ ]] || fail "E2E_PLAYBOOK_FIRST_RUN must be changes, unchanged or any, got '$PLAYBOOK_FIRST_RUN'"

if [[ -n ${E2E_DATABASE_URL:-} ]]; then
  if ((KEPT)); then say "PostgreSQL database as it is (E2E_KEEP_DATABASE=1)"; else say "fresh PostgreSQL database"; fi
  DB_NAME=$(/usr/bin/python3 -c 'import sys, urllib.parse as u; print(u.urlsplit(sys.argv[1]).path.lstrip("/"))' "$E2E_DATABASE_URL")
  # E2E_ADMIN_URL: where to drop and create it when E2E_DATABASE_URL cannot (a pooler: PgBouncer cannot
  # DROP ... WITH (FORCE) what it holds itself); by default the same server's postgres database.
  ADMIN_URL=${E2E_ADMIN_URL:-$(/usr/bin/python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/postgres")))' "$E2E_DATABASE_URL")}
  [[ $DB_NAME =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || fail "E2E_DATABASE_URL must name a plain database, got '$DB_NAME'"
  if ((KEPT)); then
    timeout 60 psql "$E2E_DATABASE_URL" -v ON_ERROR_STOP=1 -q -c "select 1" >/dev/null || fail "cannot connect to database $DB_NAME"
  else
    timeout 60 psql "$ADMIN_URL" -v ON_ERROR_STOP=1 -q -c "drop database if exists $DB_NAME with (force)" -c "create database $DB_NAME" \
      || fail "cannot create database $DB_NAME"
  fi
  export DATABASE_URL=$E2E_DATABASE_URL
  unset PATCHBAY_DATA_DIR
  DB_DESC="PostgreSQL ($DB_NAME, DATABASE_POOL_MODE=${DATABASE_POOL_MODE:-session})"
elif ((KEPT)); then
  unset DATABASE_URL
  export PATCHBAY_DATA_DIR=$E2E_DATA_DIR
  DB_DESC="PGlite in $PATCHBAY_DATA_DIR, as it is"
else
  unset DATABASE_URL
  export PATCHBAY_DATA_DIR=$WORK/pglite
  DB_DESC="PGlite in $PATCHBAY_DATA_DIR"
fi

# ------------------------------------------------------------------ server
say "superuser and token ($DB_DESC)"
# PGlite serves one process at a time: the user must exist before serve starts
timeout "$STEP_TIMEOUT" node engine/cli/bin.cjs createsuperuser --username admin --password admin --token "$TOKEN" >"$WORK/createsuperuser.log" 2>&1 \
  || { cat "$WORK/createsuperuser.log"; fail "createsuperuser failed"; }

say "server on port $PORT (MAX_PAGE_SIZE=$MAX_PAGE_SIZE)"
PORT=$PORT HOST=127.0.0.1 MAX_PAGE_SIZE=$MAX_PAGE_SIZE PATCHBAY_MEDIA_ROOT=$WORK/media setsid node engine/cli/bin.cjs serve >>"$LOG" 2>&1 </dev/null &
SERVER_PID=$!
for _ in $(seq 1 120); do
  curl -fsS -o /dev/null -H "Authorization: Token $TOKEN" "$URL/api/status/" 2>/dev/null && break
  kill -0 "$SERVER_PID" 2>/dev/null || fail "the server exited during start-up"
  sleep 0.5
done
curl -fsS -o /dev/null -H "Authorization: Token $TOKEN" "$URL/api/status/" || fail "the server did not answer /api/status/ within 60 s"

export NETBOX_URL=$URL NETBOX_TOKEN=$TOKEN

# datacentre.<ext> first, then the other files of that extension by name.
scripts() {
  local ext=$1
  [[ -f tests/e2e/datacentre.$ext ]] && echo "tests/e2e/datacentre.$ext"
  for f in tests/e2e/*."$ext"; do [[ $f == tests/e2e/datacentre.$ext || ! -f $f ]] || echo "$f"; done
}

# ---------------------------------------------------------------- pynetbox
for script in $(scripts py); do
  say "pynetbox: $script"
  if ! E2E_MAX_PAGE_SIZE=$MAX_PAGE_SIZE timeout "$STEP_TIMEOUT" /usr/bin/python3 "$script"; then
    echo "e2e: FAIL: $script (see FAIL lines above)"
    FAILED=1
  fi
done

# ----------------------------------------------------------------- Ansible
export ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0 \
  ANSIBLE_LOCALHOST_WARNING=0 ANSIBLE_INVENTORY_UNPARSED_WARNING=0 \
  ANSIBLE_LOCAL_TEMP=$WORK/ansible-tmp ANSIBLE_HOME=$WORK/ansible-home \
  ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3

# ansible_recap <log>: prints "ok changed failed unreachable" of localhost's PLAY RECAP line
ansible_recap() {
  sed -n 's/^localhost[[:space:]]*:.*ok=\([0-9]*\).*changed=\([0-9]*\).*unreachable=\([0-9]*\).*failed=\([0-9]*\).*/\1 \2 \4 \3/p' "$1" | tail -n1
}

# a first run that must change nothing shows what it changed, as the second run does
FIRST_RUN_ARGS=()
[[ $PLAYBOOK_FIRST_RUN == unchanged ]] && FIRST_RUN_ARGS=(--diff)
for playbook in $(scripts yml); do
  name=$(basename "$playbook" .yml)
  say "Ansible: $playbook, first run"
  timeout "$STEP_TIMEOUT" ansible-playbook -i localhost, "${FIRST_RUN_ARGS[@]}" "$playbook" 2>&1 | tee "$WORK/ansible-$name-1.log"
  rc1=${PIPESTATUS[0]}
  read -r ok1 changed1 failed1 unreach1 <<<"$(ansible_recap "$WORK/ansible-$name-1.log")"
  if [[ $rc1 != 0 || -z ${ok1:-} || ${failed1:-1} != 0 || ${unreach1:-1} != 0 ]]; then
    echo "e2e: FAIL: $playbook, first run (exit $rc1, recap: ok=${ok1:-?} changed=${changed1:-?} failed=${failed1:-?})"
    FAILED=1
    continue
  fi
  echo "e2e: $playbook, first run: ok=$ok1 changed=$changed1"
  case $PLAYBOOK_FIRST_RUN in
    changes) ((changed1 > 0)) || { echo "e2e: FAIL: $playbook: the first run changed nothing; was the server fresh?"; FAILED=1; } ;;
    unchanged)
      if ((changed1 != 0)); then
        echo "e2e: FAIL: $playbook: the first run changed $changed1 on a database said to hold what it writes (E2E_PLAYBOOK_FIRST_RUN=unchanged); changed tasks:"
        awk '/^TASK \[/ {task = $0} /^changed: / {print "  " task " -> " $0}' "$WORK/ansible-$name-1.log"
        FAILED=1
      fi ;;
  esac

  say "Ansible: $playbook, second run (must change nothing)"
  timeout "$STEP_TIMEOUT" ansible-playbook -i localhost, --diff "$playbook" 2>&1 | tee "$WORK/ansible-$name-2.log"
  rc2=${PIPESTATUS[0]}
  read -r ok2 changed2 failed2 unreach2 <<<"$(ansible_recap "$WORK/ansible-$name-2.log")"
  if [[ $rc2 != 0 || -z ${ok2:-} || ${failed2:-1} != 0 || ${unreach2:-1} != 0 ]]; then
    echo "e2e: FAIL: $playbook, second run (exit $rc2, recap: ok=${ok2:-?} changed=${changed2:-?} failed=${failed2:-?})"
    FAILED=1
  elif [[ $changed2 != 0 ]]; then
    echo "e2e: FAIL: $playbook: the second run is not idempotent: changed=$changed2; changed tasks:"
    awk '/^TASK \[/ {task = $0} /^changed: / {print "  " task " -> " $0}' "$WORK/ansible-$name-2.log"
    FAILED=1
  else
    echo "e2e: $playbook, second run: ok=$ok2 changed=0 (idempotent)"
  fi
done

# ------------------------------------------------------- Ansible inventory
# tests/e2e/inventory/: seed a known world with pynetbox, list it with the netbox.netbox.nb_inventory
# plugin, check groups and hostvars. Scoped to the seed's tenant, so what the scripts above left behind
# (devices with primary IPs, a global config context) does not change the hosts.
say "Ansible inventory: seed, ansible-inventory --list, check"
cat >"$WORK/netbox_inv.yml" <<INVENTORY
plugin: netbox.netbox.nb_inventory
api_endpoint: $URL
token: $TOKEN
validate_certs: false
config_context: true
interfaces: true
services: true
site_data: true
prefixes: true
group_by: [sites, device_roles, platforms, tags, racks, cluster]
device_query_filters: [{has_primary_ip: 'true'}, {tenant: inv-e2e}]
vm_query_filters: [{has_primary_ip: 'true'}, {tenant: inv-e2e}]
INVENTORY
if ! timeout "$STEP_TIMEOUT" /usr/bin/python3 tests/e2e/inventory/seed.py; then
  echo "e2e: FAIL: tests/e2e/inventory/seed.py"
  FAILED=1
elif ! ANSIBLE_INVENTORY_UNPARSED_FAILED=1 ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED=1 timeout "$STEP_TIMEOUT" \
    ansible-inventory -i "$WORK/netbox_inv.yml" --list --output "$WORK/inventory.json" >"$WORK/ansible-inventory.log" 2>&1; then
  cat "$WORK/ansible-inventory.log"
  echo "e2e: FAIL: ansible-inventory --list"
  FAILED=1
elif ! timeout "$STEP_TIMEOUT" /usr/bin/python3 tests/e2e/inventory/check.py "$WORK/inventory.json"; then
  echo "e2e: FAIL: tests/e2e/inventory/check.py (inventory kept in $WORK/inventory.json)"
  FAILED=1
fi

stop_server
if ((FAILED)); then exit 1; fi
if [[ -n ${E2E_SAVE_DATA:-} ]]; then
  rm -rf "$E2E_SAVE_DATA" && mkdir -p "$E2E_SAVE_DATA" || fail "cannot make $E2E_SAVE_DATA"
  mv "$PATCHBAY_DATA_DIR" "$E2E_SAVE_DATA/pglite" && mkdir -p "$WORK/media" && mv "$WORK/media" "$E2E_SAVE_DATA/media" \
    && printf '%s\n' "$TOKEN" >"$E2E_SAVE_DATA/token" || fail "cannot save the data to $E2E_SAVE_DATA"
  say "data folder, media and token saved in $E2E_SAVE_DATA"
fi
say "passed"
