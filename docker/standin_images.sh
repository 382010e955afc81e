#!/bin/sh
# Stand-ins for the base images the compose stack names (python:3.11-slim-bookworm,
# redis:7.4-alpine, postgres:16-alpine), built from one Debian bookworm root made by
# debootstrap, for a machine where no image can be pulled. Each is tagged with the name
# the FROM line or `image:` uses, so `docker compose build` and `up` find it locally.
# They are for the smoke test (docker/compose_smoke.py), not for production.
#
#   sudo sh docker/standin_images.sh [MIRROR]      # default http://deb.debian.org/debian
#
# Needs: debootstrap, a running Docker daemon, about 1.5 GB of disk.
set -eu
MIRROR=${1:-http://deb.debian.org/debian}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(mktemp -d /tmp/standin-root.XXXXXX)
trap 'rm -rf "$ROOT"' EXIT

# One root with everything the three stand-ins need: Python and pip (python image),
# redis-server (redis image), PostgreSQL 15 (Debian's; postgres image), ca-certificates.
debootstrap --variant=minbase \
  --include=python3,python3-pip,python3-venv,python3-dev,ca-certificates,redis-server,redis-tools,postgresql,gosu \
  bookworm "$ROOT" "$MIRROR"

# As python:3.11-slim has them: `python` and `pip` on PATH, pip free to install into the
# system Python (Debian marks it externally managed), Debian's apt sources kept.
ln -sf /usr/bin/python3 "$ROOT/usr/local/bin/python"
ln -sf /usr/bin/pip3 "$ROOT/usr/local/bin/pip"
rm -f "$ROOT"/usr/lib/python3*/EXTERNALLY-MANAGED
# The postgres image's entry point: initialise from POSTGRES_USER/PASSWORD/DB, then run.
install -m 0755 "$HERE/standin-postgres-entrypoint.sh" "$ROOT/usr/local/bin/docker-entrypoint.sh"
ln -sf /usr/lib/postgresql/15/bin/postgres "$ROOT/usr/local/bin/postgres"
ln -sf /usr/lib/postgresql/15/bin/pg_isready "$ROOT/usr/local/bin/pg_isready"
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/*

tar -C "$ROOT" -c . | docker import \
  -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8' \
  -c 'CMD ["python3"]' - python:3.11-slim-bookworm
tar -C "$ROOT" -c . | docker import \
  -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -c 'WORKDIR /data' -c 'CMD ["redis-server"]' - redis:7.4-alpine
tar -C "$ROOT" -c . | docker import \
  -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin PGDATA=/var/lib/postgresql/data' \
  -c 'ENTRYPOINT ["docker-entrypoint.sh"]' -c 'CMD ["postgres"]' - postgres:16-alpine
docker image ls python:3.11-slim-bookworm redis:7.4-alpine postgres:16-alpine
