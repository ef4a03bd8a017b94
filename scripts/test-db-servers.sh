#!/usr/bin/env bash
# Throwaway PostgreSQL and MySQL/MariaDB servers for pario-store's tests.
#
#   scripts/test-db-servers.sh                 start both, run `cargo test -p pario-store`, stop
#   scripts/test-db-servers.sh CMD [ARGS...]   start both, run CMD with the URLs exported, stop
#   scripts/test-db-servers.sh start           start both; print `export ...` lines (for eval)
#   scripts/test-db-servers.sh stop            stop the servers started by `start`
#
# Servers listen on 127.0.0.1 (free ports) with their data, sockets and logs
# in a temporary directory, and are removed on stop. Exported:
#   PARIO_TEST_PG_URL=postgres://postgres@127.0.0.1:PORT/postgres
#   PARIO_TEST_MYSQL_URL=mysql://pario@127.0.0.1:PORT/pario_test
# Needs the Debian packages postgresql and mariadb-server (scripts/setup.sh --test).
# As root, PostgreSQL runs as the `postgres` user (runuser) and mysqld with --user=root.
set -euo pipefail

STATE_DIR="${PARIO_DB_SERVERS_DIR:-${TMPDIR:-/tmp}/pario-db-servers.$(id -u)}"

die() { echo "test-db-servers.sh: $*" >&2; exit 1; }

# shellcheck source=scripts/lib/ports.sh
source "$(dirname "$0")/lib/ports.sh"

pg_bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return; }
  die "PostgreSQL server binaries (initdb, pg_ctl) not found; run scripts/setup.sh --test"
}

# Run a PostgreSQL binary as a non-root user.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_pg() {
  local bin dir port
  bin=$(pg_bindir)
  dir="$STATE_DIR/pg"
  port=$(free_port)
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || die "user 'postgres' missing (install the postgresql package)"
    chown postgres: "$dir"
  fi
  as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-sync >"$STATE_DIR/pg-initdb.log" 2>&1 \
    || { cat "$STATE_DIR/pg-initdb.log" >&2; die "initdb failed"; }
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -h 127.0.0.1 -k $dir -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=200" \
    start >/dev/null || { cat "$dir/server.log" >&2; die "PostgreSQL did not start"; }
  echo "$port" >"$STATE_DIR/pg.port"
  PARIO_TEST_PG_URL="postgres://postgres@127.0.0.1:$port/postgres"
}

stop_pg() {
  local dir="$STATE_DIR/pg"
  [ -f "$dir/data/postmaster.pid" ] || return 0
  as_pg "$(pg_bindir)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}

start_mysql() {
  local dir port mysqld client admin user_opt=()
  dir="$STATE_DIR/mysql"
  port=$(free_port)
  mkdir -p "$dir/data"
  mysqld=$(command -v mariadbd || command -v mysqld || true)
  [ -n "$mysqld" ] || mysqld=$(ls /usr/sbin/mariadbd /usr/sbin/mysqld 2>/dev/null | head -1 || true)
  [ -n "$mysqld" ] || die "mysqld/mariadbd not found; run scripts/setup.sh --test"
  client=$(command -v mariadb || command -v mysql || die "mysql client not found")
  admin=$(command -v mariadb-admin || command -v mysqladmin || die "mysqladmin not found")
  [ "$(id -u)" = 0 ] && user_opt=(--user=root)
  if "$mysqld" --version | grep -qi mariadb; then
    local install
    install=$(command -v mariadb-install-db || command -v mysql_install_db || die "mariadb-install-db not found")
    "$install" --no-defaults --datadir="$dir/data" "${user_opt[@]}" --auth-root-authentication-method=normal \
      --skip-test-db >"$STATE_DIR/mysql-install.log" 2>&1 \
      || { cat "$STATE_DIR/mysql-install.log" >&2; die "mariadb-install-db failed"; }
  else
    "$mysqld" --no-defaults --initialize-insecure --datadir="$dir/data" "${user_opt[@]}" \
      >"$STATE_DIR/mysql-install.log" 2>&1 \
      || { cat "$STATE_DIR/mysql-install.log" >&2; die "mysqld --initialize-insecure failed"; }
  fi
  "$mysqld" --no-defaults --datadir="$dir/data" "${user_opt[@]}" \
    --port="$port" --bind-address=127.0.0.1 --socket="$dir/mysqld.sock" --pid-file="$dir/mysqld.pid" \
    --log-error="$dir/error.log" --skip-log-bin --innodb-flush-log-at-trx-commit=2 \
    --max-connections=200 >/dev/null 2>&1 &
  local i
  for i in $(seq 1 120); do
    "$admin" --no-defaults --socket="$dir/mysqld.sock" -uroot ping >/dev/null 2>&1 && break
    sleep 0.5
  done
  "$admin" --no-defaults --socket="$dir/mysqld.sock" -uroot ping >/dev/null 2>&1 \
    || { cat "$dir/error.log" >&2; die "MySQL/MariaDB did not start"; }
  "$client" --no-defaults --socket="$dir/mysqld.sock" -uroot <<'SQL'
CREATE USER IF NOT EXISTS 'pario'@'%';
CREATE USER IF NOT EXISTS 'pario'@'localhost';
CREATE USER IF NOT EXISTS 'pario'@'127.0.0.1';
GRANT ALL PRIVILEGES ON *.* TO 'pario'@'%' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO 'pario'@'localhost' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO 'pario'@'127.0.0.1' WITH GRANT OPTION;
CREATE DATABASE IF NOT EXISTS pario_test;
FLUSH PRIVILEGES;
SQL
  echo "$port" >"$STATE_DIR/mysql.port"
  PARIO_TEST_MYSQL_URL="mysql://pario@127.0.0.1:$port/pario_test"
}

stop_mysql() {
  local dir="$STATE_DIR/mysql" admin pid
  [ -f "$dir/mysqld.pid" ] || return 0
  pid=$(cat "$dir/mysqld.pid")
  admin=$(command -v mariadb-admin || command -v mysqladmin || true)
  if [ -n "$admin" ]; then
    "$admin" --no-defaults --socket="$dir/mysqld.sock" -uroot shutdown >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
  else
    kill "$pid" 2>/dev/null || true
  fi
  local i
  for i in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
}

start_all() {
  [ -e "$STATE_DIR" ] && die "$STATE_DIR exists: servers already running? (run '$0 stop' first)"
  mkdir -p "$STATE_DIR"
  chmod 755 "$STATE_DIR"
  start_pg
  start_mysql
  {
    echo "export PARIO_TEST_PG_URL='$PARIO_TEST_PG_URL'"
    echo "export PARIO_TEST_MYSQL_URL='$PARIO_TEST_MYSQL_URL'"
  } >"$STATE_DIR/env"
  export PARIO_TEST_PG_URL PARIO_TEST_MYSQL_URL
}

stop_all() {
  [ -d "$STATE_DIR" ] || return 0
  stop_pg
  stop_mysql
  rm -rf "$STATE_DIR"
}

case "${1:-}" in
  -h|--help) sed -n '2,16p' "$0" ;;
  start)
    start_all
    cat "$STATE_DIR/env"
    echo "test-db-servers.sh: started (state in $STATE_DIR); stop with '$0 stop'" >&2
    ;;
  stop) stop_all ;;
  *)
    [ $# -gt 0 ] || set -- cargo test -p pario-store
    trap stop_all EXIT
    trap 'exit 130' INT TERM
    start_all
    echo "test-db-servers.sh: PostgreSQL at $PARIO_TEST_PG_URL, MySQL at $PARIO_TEST_MYSQL_URL" >&2
    "$@"
    ;;
esac
