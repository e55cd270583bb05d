#!/usr/bin/env bash
# Build Citus from the release source in ../shared/citus/ for one
# PostgreSQL server and install it into that server, caching the build so
# that a second run only installs it again.
#
#   bash scripts/build_citus.sh [PG_CONFIG]
#       (default: Debian's PostgreSQL 15, /usr/lib/postgresql/15/bin/pg_config)
#
# The build tree stays in $EI_CITUS_CACHE/<archive>-<first 16 hex digits of
# its SHA-256>-pg<server version>-<hash of the pg_config path> (default
# /var/cache/elastic_index/citus); a tree is complete only when its
# ".complete" marker exists, and an interrupted build is started afresh.  A
# cached tree is installed with "make install" (nothing is compiled again).
# The build's packages (and, for Debian's own servers, the server and its
# headers) are installed with apt if missing.  Runs as root, or as another
# user with sudo.  Exits non-zero, with the end of the build log, if
# anything fails.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)

pg_config=${1:-/usr/lib/postgresql/15/bin/pg_config}
archive=${EI_CITUS_ARCHIVE:-$repo/../shared/citus/citus-v13.2.2.tar.gz}
cache=${EI_CITUS_CACHE:-/var/cache/elastic_index/citus}
jobs=${EI_CITUS_JOBS:-$(nproc)}

PACKAGES=(libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev libssl-dev
	gcc make)

# Run a command as root: directly, or through sudo.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

if [ ! -f "$archive" ]; then
	echo "build_citus: no archive $archive" >&2
	exit 1
fi

# Debian's servers come from apt with their headers (postgresql-server-dev)
if [[ "$pg_config" =~ ^/usr/lib/postgresql/([0-9]+)/bin/pg_config$ ]]; then
	PACKAGES+=("postgresql-${BASH_REMATCH[1]}" "postgresql-server-dev-${BASH_REMATCH[1]}")
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "build_citus: installing ${missing[*]}" >&2
	aptlog=$(mktemp /tmp/elastic_index_citus_apt.XXXXXX)
	if ! { as_root apt-get update -qq &&
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${missing[@]}"; } >"$aptlog" 2>&1; then
		echo "build_citus: apt-get failed:" >&2
		tail -n 40 "$aptlog" >&2
		rm -f "$aptlog"
		exit 1
	fi
	rm -f "$aptlog"
fi

if [ ! -x "$pg_config" ]; then
	echo "build_citus: $pg_config not found" >&2
	exit 1
fi

name=$(basename "$archive")
name=${name%.tar.*}
sum=$(sha256sum "$archive" | cut -c1-16)
version=$("$pg_config" --version | awk '{print $2}')
where=$(realpath "$pg_config" | sha256sum | cut -c1-8)
tree=$cache/$name-$sum-pg$version-$where
log=$tree.log

# Print the end of the build log and stop.
fail() {
	echo "build_citus: $1 failed for $name against PostgreSQL $version; the log's last lines ($log):" >&2
	tail -n 40 "$log" >&2
	exit 1
}

if [ -f "$tree/.complete" ]; then
	echo "build_citus: $name for PostgreSQL $version cached in $tree" >&2
	as_root make -C "$tree" install >"$log.install" 2>&1 || {
		log=$log.install
		fail "make install (cached tree)"
	}
	echo "build_citus: installed into $("$pg_config" --pkglibdir)" >&2
	exit 0
fi

echo "build_citus: building $name for PostgreSQL $version in $tree ($jobs jobs)" >&2
start=$(date +%s)
as_root mkdir -p "$cache"
as_root rm -rf "$tree"
as_root mkdir -p "$tree"
as_root chown "$(id -u):$(id -g)" "$tree"
as_root touch "$log"
as_root chown "$(id -u):$(id -g)" "$log"
: >"$log"

tar -C "$tree" --strip-components=1 -xzf "$archive" >>"$log" 2>&1 || fail "unpacking"

# Recent 15.x minors (15.20 has it) export have_createdb_privilege() from
# commands/dbcommands.h, and Citus's pg_version_compat.h defines a static
# function of that name for servers before 16: Citus's copy is renamed, and
# its callers then call the server's function, which does the same.
dbcommands=$("$pg_config" --includedir-server)/commands/dbcommands.h
compat=$tree/src/include/pg_version_compat.h
if grep -q 'have_createdb_privilege' "$dbcommands"; then
	sed -i 's/^have_createdb_privilege(void)$/citus_own_have_createdb_privilege(void)/' "$compat"
	if grep -q '^have_createdb_privilege(void)$' "$compat"; then
		echo "build_citus: could not rename Citus's have_createdb_privilege()" >&2
		exit 1
	fi
fi

(
	cd "$tree"
	./configure PG_CONFIG="$pg_config" >>"$log" 2>&1 || exit 11
	make -s -j"$jobs" >>"$log" 2>&1 || exit 12
	as_root make -s install >>"$log" 2>&1 || exit 13
) || case $? in
	11) fail configure ;;
	12) fail make ;;
	*) fail "make install" ;;
esac

touch "$tree/.complete"
echo "build_citus: $name built and installed in $(($(date +%s) - start)) s" >&2
