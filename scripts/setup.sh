#!/usr/bin/env bash
# Install what elastic_index needs on Debian 12 and build and install it,
# for the server whose pg_config PG_CONFIG names (default: Debian's
# PostgreSQL 15, which this script installs with apt; for another major,
# scripts/build_postgres.sh builds one).
#
# Idempotent: packages already present are not reinstalled (and apt is not
# touched at all when nothing is missing); "make" rebuilds only what changed.
# Runs as root, or as another user with sudo.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

PG_MAJOR=15
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config}
PACKAGES=(
	"postgresql-${PG_MAJOR}"
	"postgresql-server-dev-${PG_MAJOR}"
	"postgresql-${PG_MAJOR}-hypopg"
	clang-14
	llvm-14
	libclang-rt-14-dev
	libicu-dev
	libipc-run-perl
	perl
	make
	gcc
	python3
	gnuplot-nox
)
# pg_repack and pg_partman, which test/t/051_repack_partman.pl needs, are
# packaged for Debian's own server only: installed when testing that one
# (scripts/test.sh lists the test as not run on servers without them)
if [ "$PG_CONFIG" = "/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config" ]; then
	PACKAGES+=("postgresql-${PG_MAJOR}-repack" "postgresql-${PG_MAJOR}-partman")
fi

# Run a command as root: directly, or through sudo.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

log=$(mktemp /tmp/elastic_index_setup.XXXXXX)
trap 'rm -f "$log"' EXIT

# Print the captured output of a failed step and stop.
fail() {
	echo "setup: $1 failed:" >&2
	tail -n 60 "$log" >&2
	exit 1
}

missing=()
for pkg in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	if [ "$status" != "installed" ]; then
		missing+=("$pkg")
	fi
done

if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	as_root apt-get update -qq >"$log" 2>&1 || fail "apt-get update"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >"$log" 2>&1 ||
		fail "apt-get install"
else
	echo "setup: packages already installed"
fi

if [ ! -x "$PG_CONFIG" ]; then
	echo "setup: $PG_CONFIG not found" >&2
	exit 1
fi

# Objects built for another server are rebuilt: the stamp names the
# pg_config and the version the tree was last built with.
# EI_FAULT_INJECTION=1 (scripts/test.sh): compile in the crash tests'
# fault points and their setting elastic_index.debug_fault (see Makefile).
faults=${EI_FAULT_INJECTION:-0}
stamp=".build-stamp"
want_stamp="$PG_CONFIG $("$PG_CONFIG" --version) faults=$faults"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want_stamp" ]; then
	make -s clean PG_CONFIG="$PG_CONFIG" >"$log" 2>&1 || fail "make clean"
fi

# EI_WERROR=1 (scripts/test_matrix.sh): warnings are errors
copt=()
if [ "${EI_WERROR:-0}" = 1 ]; then
	copt=(COPT="-Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers -Werror")
	make -s clean PG_CONFIG="$PG_CONFIG" >"$log" 2>&1 || fail "make clean"
fi

echo "setup: building elastic_index against $("$PG_CONFIG" --version)${copt:+ with -Werror}"
make -s -j2 PG_CONFIG="$PG_CONFIG" EI_FAULT_INJECTION="$faults" "${copt[@]}" \
	>"$log" 2>&1 || fail "make"
echo "$want_stamp" >"$stamp"
warnings=$(grep -c 'warning:' "$log" || true)
if [ "$warnings" -gt 0 ]; then
	echo "setup: build produced $warnings warning(s):"
	grep -A3 'warning:' "$log" || true
fi

as_root make install PG_CONFIG="$PG_CONFIG" EI_FAULT_INJECTION="$faults" \
	>"$log" 2>&1 || fail "make install"
echo "setup: installed into $("$PG_CONFIG" --pkglibdir) and $("$PG_CONFIG" --sharedir)/extension"
