#!/usr/bin/env bash
# The scale-out suite: a PostgreSQL primary, a streaming standby and PgBouncer in transaction mode
# (tools/replication/cluster.sh), then
#   1. every tests/scale-out/*.test.ts, given the three URLs in SCALE_OUT_PRIMARY_URL, SCALE_OUT_STANDBY_URL
#      and SCALE_OUT_BOUNCER_URL and SCALE_OUT_CLUSTER (this cluster.sh, for stopping or delaying the
#      standby); each file works in a database of its own on the primary;
#   2. the pynetbox and Ansible end-to-end run (tests/e2e/run.sh) through PgBouncer in transaction mode, on
#      a target imported from a source those clients seeded (tests/import/e2e-on-imported-target.sh): one
#      run checks both the import and the bouncer. tests/scale-out/e2e-through-pgbouncer.sh runs it on a
#      fresh database instead (by hand; the fresh-database path is the PGlite e2e step's).
# Without those variables the suite's tests skip themselves, so `npm test` alone passes them by.
set -euo pipefail
cd "$(dirname "$0")/../.."
CLUSTER=$PWD/tools/replication/cluster.sh
export PATCHBAY_REPL_DIR=${PATCHBAY_REPL_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/patchbay-scale-out.XXXXXX")}
trap 'bash "$CLUSTER" down' EXIT

# The suite's servers run compiled (dist/): built here, so the step stands alone.
npm run -s build
bash "$CLUSTER" down
bash "$CLUSTER" up
eval "$(bash "$CLUSTER" env)"
export SCALE_OUT_PRIMARY_URL=$PRIMARY_URL SCALE_OUT_STANDBY_URL=$STANDBY_URL SCALE_OUT_BOUNCER_URL=$BOUNCER_URL SCALE_OUT_CLUSTER=$CLUSTER

echo "=== scale-out: tests/scale-out/*.test.ts ==="
NODE_OPTIONS=--experimental-vm-modules npx jest --runInBand tests/scale-out

echo "=== scale-out: pynetbox and Ansible through PgBouncer (transaction pooling), on an imported target ==="
# Each server process gets 30 pooled connections, more than the bouncer's default_pool_size (20), so its
# server connections are shared between them.
IMPORT_E2E_ADMIN_URL=${PRIMARY_URL%/*}/postgres IMPORT_E2E_SERVE_URL=$BOUNCER_URL \
  IMPORT_E2E_POOL_MODE=transaction IMPORT_E2E_POOL_SIZE=30 bash tests/import/e2e-on-imported-target.sh
