#!/usr/bin/env bash
# Issue 24: "The pynetbox and Ansible e2e run against the imported target unchanged."
#
#   1. SOURCE: a Patchbay server on PGlite in a temporary folder (migrate, createsuperuser admin, serve),
#      seeded through the API by the e2e clients themselves: every tests/e2e/*.yml playbook once, then every
#      tests/e2e/*.py with E2E_KEEP=1 (they leave what they made in place), then tests/e2e/inventory/seed.py.
#   2. TARGET: a fresh PostgreSQL database (pb_import_e2e) with the same superuser (the importer matches users
#      by username); `patchbay import --from SOURCE --token ... --strict --report F` must exit 0: every object
#      imported, and the importer's own comparison of source and target found no difference.
#   3. tests/e2e/run.sh, whole, against the imported target (E2E_KEEP_DATABASE=1): every script and playbook
#      must pass on it as on a fresh server.
# The source stops once the import is done; the target database is dropped at the end.
#
# Why this seed: the e2e clients are the richest source of real client-made data the project has (a data
# centre with cables, circuits, VLAN groups, primary IPs, VMs; components from templates, modules, paths
# through patch panels; custom fields, saved filters, export and config templates, bookmarks; IPAM
# allocations, ASN ranges, VRFs with route targets; VPN tunnels and L2VPNs; tenants, tags, config contexts).
# Run.sh then meets, on the target, exactly what it makes itself, which is the hard case:
#   - the python scripts remove, before they start, what an earlier E2E_KEEP=1 run left of them (by their
#     names), so they delete imported objects with all their relations (cascades through interfaces,
#     addresses, cable terminations, circuit terminations, VLAN groups, trees) and then create them again
#     under new ids: the target's id sequences must lie past the imported ids. dcim.py and changelog.py use
#     random names: their imported worlds stay beside the new ones.
#   - the playbooks ran on the source, so on the target their FIRST run must already change nothing
#     (E2E_PLAYBOOK_FIRST_RUN=unchanged): the netbox.netbox modules compare every field they manage with
#     what the imported objects hold, a field-by-field check of the import as Ansible sees it. Their
#     creating path is what the plain e2e step checks on a fresh server.
#   - the inventory seed replaces its imported world, and check.py reads it back through nb_inventory.
# Not --changelog: changelog.py looks a new site's changes up by its id, and the source's history holds
# changes of sites it deleted (ids the target hands out again).
#
#   bash tests/import/e2e-on-imported-target.sh
#   IMPORT_E2E_ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres   (where to create the target database)
#   IMPORT_E2E_SOURCE=<folder>: the source is the data a finished PGlite run of tests/e2e/run.sh saved there
#     (E2E_SAVE_DATA; .ci/run passes its e2e step's): its playbooks ran there already, twice, and its scripts
#     cleaned up after themselves, so step 1 only adds what the scripts leave with E2E_KEEP=1 and the
#     inventory seed, as the seed above does after the playbooks. A copy is served; the folder is untouched.
#   IMPORT_E2E_SERVE_URL=<a pooler's URL, any database> IMPORT_E2E_POOL_MODE=transaction IMPORT_E2E_POOL_SIZE=30
#     (step 3's server reaches the target through that pooler, with that DATABASE_POOL_MODE and pool size;
#     the target is still created, migrated and imported into on IMPORT_E2E_ADMIN_URL's server directly.
#     tests/scale-out/run.sh runs it so, through PgBouncer in transaction mode.)
#   E2E_STEP_TIMEOUT=600 (seconds per step), E2E_KEEP_WORK=1 (keep the temporary folder and the target database)
set -uo pipefail
cd "$(dirname "$0")/../.."

STEP_TIMEOUT=${E2E_STEP_TIMEOUT:-600}
RUN_TIMEOUT=${IMPORT_E2E_RUN_TIMEOUT:-3600}   # the whole of tests/e2e/run.sh (its own steps have STEP_TIMEOUT each)
MAX_PAGE_SIZE=50   # as run.sh: the importer reads the source page after page
ADMIN_URL=${IMPORT_E2E_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
DB=pb_import_e2e
with_database() { /usr/bin/python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$1" "$2"; }
TARGET_URL=$(with_database "$ADMIN_URL" "$DB")
# where step 3's server finds the target: directly, or through a pooler (IMPORT_E2E_SERVE_URL)
SERVE_URL=$TARGET_URL
[[ -n ${IMPORT_E2E_SERVE_URL:-} ]] && SERVE_URL=$(with_database "$IMPORT_E2E_SERVE_URL" "$DB")
SERVE_ENV=()
[[ -n ${IMPORT_E2E_POOL_MODE:-} ]] && SERVE_ENV+=("DATABASE_POOL_MODE=$IMPORT_E2E_POOL_MODE")
[[ -n ${IMPORT_E2E_POOL_SIZE:-} ]] && SERVE_ENV+=("PATCHBAY_DB_POOL_SIZE=$IMPORT_E2E_POOL_SIZE")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/patchbay-import-e2e.XXXXXX")
SOURCE_LOG=$WORK/source.log
: >"$SOURCE_LOG"
SOURCE_PID=
SHOW_SOURCE_LOG=1   # until the source stops, a failure prints its log

say() { printf '\n=== import e2e: %s ===\n' "$*"; }

stop_source() {
  if [[ -n $SOURCE_PID ]] && kill -0 "$SOURCE_PID" 2>/dev/null; then
    # serve runs in its own process group (setsid): stop it and its workers
    kill -TERM -- "-$SOURCE_PID" 2>/dev/null || kill -TERM "$SOURCE_PID" 2>/dev/null
    for _ in $(seq 1 20); do kill -0 "$SOURCE_PID" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$SOURCE_PID" 2>/dev/null || true
  fi
  SOURCE_PID=
}

drop_target() { timeout 60 psql "$ADMIN_URL" -q -c "drop database if exists $DB with (force)" >/dev/null 2>&1; }

finish() {
  local rc=$?
  stop_source
  if ((rc != 0 && SHOW_SOURCE_LOG)); then
    echo
    echo "=== import e2e: FAILED; last 80 lines of the source server's log ($SOURCE_LOG) ==="
    tail -n 80 "$SOURCE_LOG"
  fi
  if [[ ${E2E_KEEP_WORK:-} == 1 ]]; then
    echo "import e2e: work folder kept: $WORK; target database kept: $TARGET_URL"
  else
    drop_target
    if ((rc != 0)); then echo "import e2e: work folder kept: $WORK"; else rm -rf "$WORK"; fi
  fi
  ((rc == 0)) && say "passed"
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM

fail() { echo "import e2e: FAIL: $*" >&2; exit 1; }

for tool in node curl psql /usr/bin/python3 ansible-playbook; do
  command -v "$tool" >/dev/null || fail "$tool is not installed"
done
/usr/bin/python3 -c 'import pynetbox' 2>/dev/null || fail "python3-pynetbox is not installed (apt-get install -y python3-pynetbox)"

# ------------------------------------------------------------------ source
SOURCE_PORT=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SOURCE_URL=http://127.0.0.1:$SOURCE_PORT
SAVED=${IMPORT_E2E_SOURCE:-}
if [[ -n $SAVED ]]; then
  say "source: a copy of the e2e run's data in $SAVED"
  [[ -d $SAVED/pglite && -s $SAVED/token ]] || fail "IMPORT_E2E_SOURCE=$SAVED holds no pglite/ and token (E2E_SAVE_DATA of tests/e2e/run.sh makes them)"
  cp -a "$SAVED/pglite" "$WORK/source" && { [[ ! -d $SAVED/media ]] || cp -a "$SAVED/media" "$WORK/source-media"; } \
    || fail "cannot copy $SAVED"
  cp "$SAVED/token" "$WORK/source-setup.log" || fail "cannot copy $SAVED/token"
else
  say "source: PGlite in $WORK/source, migrate, createsuperuser"
  (
    unset DATABASE_URL
    export PATCHBAY_DATA_DIR=$WORK/source
    timeout "$STEP_TIMEOUT" node engine/cli/bin.cjs migrate && timeout "$STEP_TIMEOUT" node engine/cli/bin.cjs createsuperuser --username admin --password admin
  ) >"$WORK/source-setup.log" 2>&1 || { cat "$WORK/source-setup.log"; fail "source: migrate or createsuperuser failed"; }
fi
SOURCE_TOKEN=$(tail -n1 "$WORK/source-setup.log")
[[ $SOURCE_TOKEN =~ ^[0-9a-f]{40}$ ]] || { cat "$WORK/source-setup.log"; fail "source: createsuperuser printed no token"; }

say "source: server on port $SOURCE_PORT (MAX_PAGE_SIZE=$MAX_PAGE_SIZE)"
env -u DATABASE_URL PATCHBAY_DATA_DIR="$WORK/source" PORT="$SOURCE_PORT" HOST=127.0.0.1 MAX_PAGE_SIZE=$MAX_PAGE_SIZE \
  PATCHBAY_MEDIA_ROOT="$WORK/source-media" setsid node engine/cli/bin.cjs serve >>"$SOURCE_LOG" 2>&1 </dev/null &
SOURCE_PID=$!
for _ in $(seq 1 120); do
  curl -fsS -o /dev/null -H "Authorization: Token $SOURCE_TOKEN" "$SOURCE_URL/api/status/" 2>/dev/null && break
  kill -0 "$SOURCE_PID" 2>/dev/null || fail "the source server exited during start-up"
  sleep 0.5
done
curl -fsS -o /dev/null -H "Authorization: Token $SOURCE_TOKEN" "$SOURCE_URL/api/status/" || fail "the source server did not answer /api/status/ within 60 s"

# ------------------------------------------------------------------- seed
# The playbooks first: their in-play assertions then see what they see in run.sh (no python script's data).
export ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0 \
  ANSIBLE_LOCALHOST_WARNING=0 ANSIBLE_INVENTORY_UNPARSED_WARNING=0 \
  ANSIBLE_LOCAL_TEMP=$WORK/ansible-tmp ANSIBLE_HOME=$WORK/ansible-home \
  ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
PLAYBOOKS=(tests/e2e/*.yml)
[[ -z $SAVED ]] || PLAYBOOKS=()   # they ran on the saved data
for playbook in "${PLAYBOOKS[@]}"; do
  say "seed: $playbook"
  log=$WORK/seed-$(basename "$playbook" .yml).log
  NETBOX_URL=$SOURCE_URL NETBOX_TOKEN=$SOURCE_TOKEN timeout "$STEP_TIMEOUT" ansible-playbook -i localhost, "$playbook" >"$log" 2>&1 \
    || { tail -n 60 "$log"; fail "seeding the source with $playbook"; }
  grep -E '^localhost[[:space:]]*:' "$log"
done
for script in tests/e2e/*.py tests/e2e/inventory/seed.py; do
  say "seed: $script (E2E_KEEP=1)"
  log=$WORK/seed-$(basename "$script" .py).log
  NETBOX_URL=$SOURCE_URL NETBOX_TOKEN=$SOURCE_TOKEN E2E_MAX_PAGE_SIZE=$MAX_PAGE_SIZE E2E_KEEP=1 \
    timeout "$STEP_TIMEOUT" /usr/bin/python3 "$script" >"$log" 2>&1 || { cat "$log"; fail "seeding the source with $script"; }
  tail -n 1 "$log"
done

# ----------------------------------------------------------------- target
say "target: fresh PostgreSQL database $DB, migrate, createsuperuser admin"
timeout 60 psql "$ADMIN_URL" -v ON_ERROR_STOP=1 -q -c "drop database if exists $DB with (force)" -c "create database $DB" \
  || fail "cannot create database $DB"
(
  unset PATCHBAY_DATA_DIR
  export DATABASE_URL=$TARGET_URL
  # in the pool mode it is served in: migrate then sets what a pooler cannot carry per connection (jit = off)
  ((${#SERVE_ENV[@]})) && export "${SERVE_ENV[@]}"
  timeout "$STEP_TIMEOUT" node engine/cli/bin.cjs migrate && timeout "$STEP_TIMEOUT" node engine/cli/bin.cjs createsuperuser --username admin --password admin
) >"$WORK/target-setup.log" 2>&1 || { cat "$WORK/target-setup.log"; fail "target: migrate or createsuperuser failed"; }

say "import: patchbay import --from $SOURCE_URL --strict"
REPORT=$WORK/import-report.json
env -u PATCHBAY_DATA_DIR DATABASE_URL="$TARGET_URL" timeout "$STEP_TIMEOUT" \
  node engine/cli/bin.cjs import --from "$SOURCE_URL" --token "$SOURCE_TOKEN" --strict --report "$REPORT" >"$WORK/import.log" 2>&1
import_rc=$?
tail -n 40 "$WORK/import.log"
# the report in short: objects, speed, and every type with something other than created = source
if [[ -s $REPORT ]]; then
  /usr/bin/python3 - "$REPORT" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("import report: %s objects in %s s (%s objects/s)" % (r.get("objects"), r.get("seconds"), r.get("objects_per_second")))
for name, t in sorted((r.get("types") or {}).items()):
    if t.get("source") != t.get("created") or t.get("refused"):
        print("  %s: %s" % (name, json.dumps(t, sort_keys=True)))
for key in ("refused", "differences", "unusable_passwords"):
    items = r.get(key) or []
    print("%s: %d" % (key, len(items)))
    for item in items[:40]:
        print("  " + json.dumps(item, sort_keys=True))
PY
fi
((import_rc == 0)) || fail "patchbay import exited with $import_rc (report: $REPORT, log: $WORK/import.log)"
[[ -s $REPORT ]] || fail "patchbay import wrote no report to $REPORT"
stop_source
SHOW_SOURCE_LOG=0

# ------------------------------------------------------- e2e on the target
say "tests/e2e/run.sh against the imported target (E2E_KEEP_DATABASE=1, E2E_PLAYBOOK_FIRST_RUN=unchanged${SERVE_ENV[*]:+, ${SERVE_ENV[*]}})"
env -u E2E_KEEP -u E2E_DATA_DIR -u PATCHBAY_DATA_DIR -u DATABASE_URL "${SERVE_ENV[@]}" \
  E2E_DATABASE_URL="$SERVE_URL" E2E_ADMIN_URL="$ADMIN_URL" E2E_KEEP_DATABASE=1 E2E_PLAYBOOK_FIRST_RUN=unchanged \
  E2E_STEP_TIMEOUT="$STEP_TIMEOUT" timeout "$RUN_TIMEOUT" bash tests/e2e/run.sh \
  || fail "tests/e2e/run.sh failed against the imported target (its output above)"
