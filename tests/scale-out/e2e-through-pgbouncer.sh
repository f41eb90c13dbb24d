#!/usr/bin/env bash
# The pynetbox and Ansible end-to-end run (tests/e2e/run.sh) with the server on PgBouncer in transaction
# pooling mode (DATABASE_POOL_MODE=transaction): migrate, createsuperuser and serve all go through the
# bouncer; the database is created and dropped on the primary directly (E2E_ADMIN_URL), since PgBouncer
# cannot drop a database it holds connections to. Each server process gets 30 pooled connections, more than
# the bouncer's default_pool_size (20), so its server connections are shared between them.
# Needs tests/scale-out/run.sh's cluster: SCALE_OUT_PRIMARY_URL and SCALE_OUT_BOUNCER_URL.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${SCALE_OUT_PRIMARY_URL:?run through tests/scale-out/run.sh, or set SCALE_OUT_PRIMARY_URL and SCALE_OUT_BOUNCER_URL}"
: "${SCALE_OUT_BOUNCER_URL:?run through tests/scale-out/run.sh, or set SCALE_OUT_PRIMARY_URL and SCALE_OUT_BOUNCER_URL}"

with_database() { /usr/bin/python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$1" "$2"; }

DB=pb_e2e_bouncer
status=0
E2E_DATABASE_URL=$(with_database "$SCALE_OUT_BOUNCER_URL" "$DB") \
E2E_ADMIN_URL=$(with_database "$SCALE_OUT_PRIMARY_URL" postgres) \
DATABASE_POOL_MODE=transaction PATCHBAY_DB_POOL_SIZE=30 \
  bash tests/e2e/run.sh || status=$?
psql "$(with_database "$SCALE_OUT_PRIMARY_URL" postgres)" -q -c "drop database if exists $DB with (force)" || true
exit "$status"
