#!/usr/bin/env bash
# Install Debian's PostgreSQL server and start a throwaway cluster on 127.0.0.1 (as root), on a
# free port. Prints two lines: the DSN to use, then the data folder (pass it to
# .ci/stop-postgres.sh). The data folder is a fresh temporary directory.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2
fi
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
PGDATA=$(mktemp -d /tmp/atif-pg.XXXXXX)
chown postgres:postgres "$PGDATA"
PGPORT=${ATIF_PGPORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')}
su postgres -s /bin/sh -c "$PGBIN/initdb -D $PGDATA -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null"
su postgres -s /bin/sh -c "$PGBIN/pg_ctl -D $PGDATA -l $PGDATA/server.log -o \"-h 127.0.0.1 -p $PGPORT -k $PGDATA\" -w start" >&2 \
  || { cat "$PGDATA/server.log" >&2; exit 1; }
su postgres -s /bin/sh -c "$PGBIN/createdb -h 127.0.0.1 -p $PGPORT -U postgres atif_test"
echo "postgresql://postgres@127.0.0.1:$PGPORT/atif_test"
echo "$PGDATA"
