#!/usr/bin/env bash
# Stop the cluster started by .ci/start-postgres.sh and remove its data folder.
set -u
PGDATA=$1
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
su postgres -s /bin/sh -c "$PGBIN/pg_ctl -D $PGDATA stop -m fast" >/dev/null 2>&1 || true
rm -rf "$PGDATA"
