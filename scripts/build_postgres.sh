#!/usr/bin/env bash
# Build an assert-enabled PostgreSQL from one of the source archives in
# ../shared/postgres/ and cache the installed tree, so that a second run on
# the same machine skips the build.
#
#   bash scripts/build_postgres.sh 18          # or 15, 16, 17, or an archive path
#   bash scripts/build_postgres.sh --release 18   # without assertions, for
#                                                 # benchmarks
#
# Prints the path of the installed tree's pg_config as its last line.  The
# tree goes to $EI_PG_CACHE/<archive>-<first 16 hex digits of its SHA-256>
# (default /var/cache/elastic_index/postgres), built with --enable-cassert
# --enable-debug --enable-tap-tests --with-icu, plus the isolation tester
# and the contrib modules the tests use (--release: no --enable-cassert and
# --enable-debug, in a tree of its own).  A tree is complete only when its
# ".complete" marker exists; an interrupted build is started afresh.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)

sources=${EI_PG_SOURCES:-$repo/../shared/postgres}
cache=${EI_PG_CACHE:-/var/cache/elastic_index/postgres}
jobs=${EI_PG_JOBS:-$(nproc)}

# contrib modules that sql/, test/ and bench/ create
CONTRIB=(pageinspect pg_freespacemap pg_prewarm pg_walinspect pgstattuple)
PACKAGES=(bison flex libreadline-dev zlib1g-dev libicu-dev pkg-config
	libssl-dev libipc-run-perl gcc make perl xz-utils bzip2)

release=no
if [ "${1-}" = --release ]; then
	release=yes
	shift
fi
if [ $# -ne 1 ]; then
	echo "usage: $0 [--release] {15|16|17|18|ARCHIVE}" >&2
	exit 2
fi

case "$1" in
15) archive=$sources/postgresql-15.18.tar.bz2 ;;
16) archive=$sources/postgresql-16-branchpoint.tar.xz ;;
17) archive=$sources/postgresql-17-branchpoint.tar.xz ;;
18) archive=$sources/postgresql-18.3.tar.xz ;;
*) archive=$1 ;;
esac
if [ ! -f "$archive" ]; then
	echo "build_postgres: no archive $archive" >&2
	exit 1
fi

# Run a command as root: directly, or through sudo.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

name=$(basename "$archive")
name=${name%.tar.*}
sum=$(sha256sum "$archive" | cut -c1-16)
# the changes fix_source makes, by name: a change to them is a new tree
case "$name" in
postgresql-16-branchpoint) patches=-p1 ;;
*) patches= ;;
esac
prefix=$cache/$name-$sum$patches
checks=(--enable-cassert --enable-debug)
if [ "$release" = yes ]; then
	prefix=$prefix-release
	checks=()
fi

if [ -f "$prefix/.complete" ]; then
	echo "build_postgres: $name cached in $prefix" >&2
	echo "$prefix/bin/pg_config"
	exit 0
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "build_postgres: installing ${missing[*]}" >&2
	as_root apt-get update -qq >&2
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >&2
fi

build=$(mktemp -d "/tmp/elastic_index_pgbuild.XXXXXX")
log=$build/build.log
trap 'rm -rf "$build"' EXIT

# Print the end of the build log and stop.
fail() {
	echo "build_postgres: $1 failed for $name; the log's last lines:" >&2
	tail -n 40 "$log" >&2
	exit 1
}

echo "build_postgres: building $name into $prefix ($jobs jobs)" >&2
start=$(date +%s)
as_root rm -rf "$prefix"
as_root mkdir -p "$prefix"
as_root chown "$(id -u):$(id -g)" "$prefix"

# Bring a development snapshot up to its major's release where a bug of
# the snapshot would fail our tests for a reason of its own:
#
#  - 16 branch point (16beta2): btree's interval_ops has an equal-image
#    function (btequalimage), though '1 day' = '24 hours' holds for values
#    that are not bitwise equal; nbtree's own build then fails an
#    assertion in _bt_truncate on such values (our differential tests make
#    a btree on an interval column).  16.0 shipped without the entry, as
#    do 15 and 17: it is removed here.
fix_source() {
	local dat=$1/src/include/catalog/pg_amproc.dat
	case "$name" in
	postgresql-16-branchpoint)
		perl -0pi -e "s/\{ amprocfamily => 'btree\/interval_ops', amproclefttype => 'interval',\n  amprocrighttype => 'interval', amprocnum => '4', amproc => 'btequalimage' \},\n//" "$dat"
		if perl -0ne "exit(/btree\/interval_ops', amproclefttype => 'interval',\n  amprocrighttype => 'interval', amprocnum => '4'/ ? 0 : 1)" "$dat"; then
			echo "build_postgres: could not remove interval_ops's btequalimage" >&2
			exit 1
		fi
		;;
	esac
}

tar -C "$build" -xf "$archive" || fail "unpacking"
src=$(find "$build" -mindepth 1 -maxdepth 1 -type d | head -n 1)
fix_source "$src"
(
	cd "$src"
	./configure --prefix="$prefix" "${checks[@]}" \
		--enable-tap-tests --with-icu --without-llvm CFLAGS="-O2" >"$log" 2>&1 ||
		exit 11
	make -s -j"$jobs" >>"$log" 2>&1 || exit 12
	make -s install >>"$log" 2>&1 || exit 13
	make -s -C src/test/isolation install >>"$log" 2>&1 || exit 14
	for m in "${CONTRIB[@]}"; do
		make -s -C "contrib/$m" install >>"$log" 2>&1 || exit 15
	done
) || case $? in
	11) fail configure ;;
	12) fail make ;;
	13) fail "make install" ;;
	14) fail "the isolation tester's install" ;;
	*) fail "a contrib module's install" ;;
esac

touch "$prefix/.complete"
echo "build_postgres: $name built in $(($(date +%s) - start)) s" >&2
echo "$prefix/bin/pg_config"
