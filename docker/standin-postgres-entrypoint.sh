#!/bin/sh
# The stand-in postgres image's entry point (docker/standin_images.sh): what the official
# image's does for this stack: a first start makes the cluster with POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB, then PostgreSQL runs as the postgres user.
set -eu
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
POSTGRES_USER=${POSTGRES_USER:-postgres}
POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
PGDATA=${PGDATA:-/var/lib/postgresql/data}
BIN=/usr/lib/postgresql/15/bin
mkdir -p "$PGDATA" /run/postgresql
chown -R postgres:postgres "$PGDATA" /run/postgresql
chmod 0700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  chown postgres "$pwfile"
  gosu postgres "$BIN/initdb" -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" --auth-host=scram-sha-256 \
    --auth-local=trust >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  gosu postgres "$BIN/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$POSTGRES_DB" != "postgres" ]; then
    gosu postgres "$BIN/createdb" -U "$POSTGRES_USER" "$POSTGRES_DB"
  fi
  gosu postgres "$BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
fi
if [ "$1" = "postgres" ]; then
  shift
  exec gosu postgres "$BIN/postgres" -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec "$@"
