#!/usr/bin/env bash
# Throwaway PostgreSQL and Redis on loopback ports, from the Debian binaries.
#
#   scripts/services.sh start DIR   # prints `export DATABASE_URL=... CELERY_BROKER_URL=...`
#   scripts/services.sh stop DIR
#
# initdb refuses to run as root, so the cluster runs as the `postgres` user. When DIR is
# not reachable by that user (a checkout under a private home), the data lives in /tmp.
#
# Autovacuum is off: this cluster holds test databases whose rows live mostly in
# transactions that are rolled back. Autovacuum ran on whatever happened to be committed
# at that moment (often nothing but dead rows) and left statistics saying a table of
# hundreds of rows held one; the planner then nested loops over full tables, and a demo
# build that takes 15 s took 8 minutes. Without it, the planner sizes tables from their
# pages, which holds for data that appears and vanishes within a test.
set -euo pipefail

cmd=${1:?start|stop}
dir=${2:?state directory}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local bin; bin=$(pg_bin)
  [ -x "$bin/initdb" ] || { echo "PostgreSQL server binaries not found under /usr/lib/postgresql" >&2; exit 1; }
  local pgdata="$dir/pgdata"
  if [ "$(id -u)" = 0 ]; then
    chown postgres "$dir" 2>/dev/null || true
    if ! runuser -u postgres -- test -w "$dir"; then
      pgdata=$(mktemp -d /tmp/heartbench-pg.XXXXXX)
      chown postgres "$pgdata"
      rmdir "$pgdata"
    fi
  fi
  echo "$pgdata" > "$dir/pgdata.path"
  local pg_port redis_port
  pg_port=$(free_port)
  redis_port=$(free_port)
  rm -rf "$pgdata"
  as_pg "$bin/initdb" -D "$pgdata" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as_pg "$bin/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w -t 60 \
    -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$pgdata -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c autovacuum=off" \
    start >/dev/null
  psql -h 127.0.0.1 -p "$pg_port" -U postgres -q -c "CREATE ROLE heartbench LOGIN SUPERUSER" >/dev/null
  psql -h 127.0.0.1 -p "$pg_port" -U postgres -q -c "CREATE DATABASE heartbench OWNER heartbench" >/dev/null

  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir"
  for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done

  cat > "$dir/env" <<ENV
export DATABASE_URL=postgres://heartbench@127.0.0.1:$pg_port/heartbench
export CELERY_BROKER_URL=redis://127.0.0.1:$redis_port/0
export HB_PG_PORT=$pg_port
export HB_REDIS_PORT=$redis_port
ENV
  cat "$dir/env"
}

stop() {
  if [ -f "$dir/pgdata.path" ]; then
    local pgdata; pgdata=$(cat "$dir/pgdata.path")
    if [ -d "$pgdata" ]; then
      as_pg "$(pg_bin)/pg_ctl" -D "$pgdata" -m immediate -w stop >/dev/null 2>&1 || true
      rm -rf "$pgdata"
    fi
    rm -f "$dir/pgdata.path"
  fi
  if [ -f "$dir/redis.pid" ]; then
    kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
    rm -f "$dir/redis.pid"
  fi
  rm -f "$dir/env"
}

"$cmd"
