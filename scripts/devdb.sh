#!/usr/bin/env bash
# devdb.sh start|stop|url|status — a project-local PostgreSQL cluster for
# development and tests, used when DATABASE_URL is unset.
#
# The cluster lives in .data/pg at the repository root. It is created with
# initdb on first use, listens on 127.0.0.1 at a free port chosen once and
# remembered in .data/pg/port, trusts loopback connections, and holds a
# database named eligo. It runs as the postgres user when this script runs as
# root (PostgreSQL refuses to run as root), as the current user otherwise.
# `url` starts the cluster when needed and prints its URL on standard output;
# everything else goes to standard error.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data="$root/.data/pg"
lock="$root/.data/devdb.lock"

log() { echo "devdb: $*" >&2; }

pgbin() {
	local dir
	dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
	if [[ -z "$dir" || ! -x "$dir/initdb" ]]; then
		log "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)"
		exit 1
	fi
	echo "$dir"
}

# as_owner runs a command as the user that owns the cluster.
as_owner() {
	if [[ "$(id -u)" == 0 ]]; then
		(cd / && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pick_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 40000))
		if port_free "$p"; then
			echo "$p"
			return
		fi
	done
	log "no free loopback port found"
	exit 1
}

running() {
	[[ -f "$data/PG_VERSION" ]] && as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1
}

init_cluster() {
	[[ -f "$data/PG_VERSION" ]] && return
	log "creating cluster in $data"
	rm -rf "$data"
	mkdir -p "$data"
	chmod 700 "$data"
	if [[ "$(id -u)" == 0 ]]; then
		chown postgres:postgres "$data"
	fi
	as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --no-locale >"$root/.data/initdb.log" 2>&1 || {
		cat "$root/.data/initdb.log" >&2
		exit 1
	}
}

start() {
	init_cluster
	if [[ ! -s "$data/port" ]]; then
		pick_port | as_owner tee "$data/port" >/dev/null
	fi
	local port
	port="$(cat "$data/port")"
	if ! running; then
		if ! port_free "$port"; then
			log "port $port is taken by another process; choosing a new one"
			pick_port | as_owner tee "$data/port" >/dev/null
			port="$(cat "$data/port")"
		fi
		log "starting PostgreSQL on 127.0.0.1:$port"
		as_owner "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 9>&- \
			-o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200 -c fsync=off" \
			start >&2 || {
			tail -n 30 "$data/server.log" >&2 || true
			exit 1
		}
	fi
	if [[ "$(as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'eligo'")" != 1 ]]; then
		as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres eligo
	fi
}

url() {
	echo "postgres://postgres@127.0.0.1:$(cat "$data/port")/eligo?sslmode=disable"
}

stop() {
	if running; then
		log "stopping PostgreSQL"
		as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop >&2
	fi
}

bin="$(pgbin)"
mkdir -p "$root/.data"

# As root, the cluster runs as postgres, which must be able to reach it. When
# the checkout sits where postgres cannot go (say under /root), the cluster
# lives in /var/tmp instead and .data/pg is a symlink to it.
if [[ "$(id -u)" == 0 ]] && ! runuser -u postgres -- test -x "$root/.data"; then
	alt="/var/tmp/eligo-pg-$(printf '%s' "$root" | sha256sum | cut -c1-12)"
	mkdir -p "$alt"
	if [[ "$(readlink "$data" 2>/dev/null || true)" != "$alt" ]]; then
		rm -rf "$data"
		ln -s "$alt" "$data"
	fi
	data="$alt"
fi
exec 9>"$lock"
flock 9

case "${1:-}" in
start) start ;;
url) start && url ;;
stop) stop ;;
status) if running; then url; else echo "stopped" >&2; exit 1; fi ;;
*)
	echo "usage: $0 start|stop|url|status" >&2
	exit 2
	;;
esac
