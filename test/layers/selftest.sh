#!/usr/bin/env bash
# Self-test of scripts/check_layers.sh, on a tiny fake source tree built in
# a temporary directory (lib, core and elastic folders, headers in
# src/include and src/lib, compiled with cc -c):
#
#   test/layers/selftest.sh            (CC=clang to use another compiler)
#
# The tree first has two deliberate violations, core/insert.c calling an
# elastic function and including eielastic.h; the checker must fail and
# name both.  With them removed it must pass.  Also checked: the message
# when there are no objects, --list showing a data symbol (a GUC-like
# variable) as an edge, and a header no layer owns being reported.
#
# Prints TAP ("1..N", "ok N - ...", "not ok N - ..."), the checker's output
# as "#" comments under a failed test, and exits 1 if any test failed.
set -euo pipefail
export LC_ALL=C

self_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
checker=$self_dir/../../scripts/check_layers.sh
CC=${CC:-cc}
ntest=0
nfail=0
out=
rc=0

workdir=$(mktemp -d "${TMPDIR:-/tmp}/layers_selftest.XXXXXX")
trap 'rm -rf "$workdir"' EXIT
src=$workdir/src

# Report test $1 (a description) as passed if the rest of the arguments,
# run as a command, succeed; show the checker's last output if not.
check() {
	local desc=$1 line
	shift
	ntest=$((ntest + 1))
	if "$@"; then
		echo "ok $ntest - $desc"
	else
		echo "not ok $ntest - $desc"
		nfail=$((nfail + 1))
		echo "# exit status $rc, output:"
		while IFS= read -r line; do
			echo "#   $line"
		done <<<"$out"
	fi
}

# Run the checker on the fake tree with the arguments given; keep its
# combined output in $out and its exit status in $rc.
run_checker() {
	rc=0
	out=$(SRC_DIR=$src bash "$checker" "$@" 2>&1) || rc=$?
}

# Does the last output contain the fixed string $1?
has() {
	[[ $out == *"$1"* ]]
}

# Was the last exit status $1?
status_is() {
	[[ $rc == "$1" ]]
}

# Write file $1 (relative to the fake tree) from standard input.
put() {
	mkdir -p "$(dirname "$src/$1")"
	cat >"$src/$1"
}

# Compile every .c file of the fake tree into an object next to it.
build() {
	local c
	for c in "$src"/*/*.c; do
		"$CC" -c -I"$src/include" -I"$src/lib" -o "${c%.c}.o" "$c"
	done
}

# Write core/insert.c, with the two violations if $1 is "bad".
write_insert() {
	if [[ $1 == bad ]]; then
		put core/insert.c <<-'EOF'
			#include "eitree.h"
			#include "eielastic.h"

			int
			core_insert(int x)
			{
				return core_page(x) + elastic_leaf(x);
			}
		EOF
	else
		put core/insert.c <<-'EOF'
			#include "eitree.h"

			int
			core_insert(int x)
			{
				return core_page(x) + 1;
			}
		EOF
	fi
}

if ! command -v "$CC" >/dev/null; then
	echo "Bail out! no C compiler ($CC)"
	exit 1
fi

put lib/seqtree.h <<-'EOF'
	extern int seq_add(int a, int b);
EOF
put lib/seqtree.c <<-'EOF'
	#include "seqtree.h"

	int
	seq_add(int a, int b)
	{
		return a + b;
	}
EOF
put include/eitree.h <<-'EOF'
	#include "seqtree.h"
	extern int core_guc;
	extern int core_page(int x);
	extern int core_insert(int x);
EOF
put include/eielastic.h <<-'EOF'
	#include "eitree.h"
	extern int elastic_leaf(int x);
EOF
put core/page.c <<-'EOF'
	#include "eitree.h"

	int core_guc = 8;

	int
	core_page(int x)
	{
		return seq_add(x, core_guc);
	}
EOF
put elastic/leafops.c <<-'EOF'
	#include "eielastic.h"

	int
	elastic_leaf(int x)
	{
		return core_page(x) * core_guc;
	}
EOF
write_insert bad

echo "1..11"

run_checker
check "no objects: exits 2" status_is 2
check "no objects: tells to run make" has "run make first"

build
run_checker
check "violations: exits 1" status_is 1
check "violations: names core calling elastic" \
	has "call     core -> elastic  core/insert.o -> elastic/leafops.o : elastic_leaf"
check "violations: names core including eielastic.h" \
	has "include  core -> elastic  core/insert.c:2 -> include/eielastic.h"
check "violations: counts exactly two" has "layers: FAILED (2 violations)"

run_checker --list
check "--list: shows a data symbol edge" \
	has "call     elastic -> core  elastic/leafops.o -> core/page.o : core_guc"

write_insert good
build
run_checker
check "fixed: exits 0" status_is 0
check "fixed: reports OK" has "layers: OK (4 calls, 6 includes checked)"

put include/eiunknown.h <<-'EOF'
	extern int unknown_thing;
EOF
printf '#include "eiunknown.h"\n' >>"$src/core/insert.c"
build
run_checker
check "unknown header: exits 1" status_is 1
check "unknown header: names it" \
	has "header include/eiunknown.h has no layer (add it to HEADER_TABLE)"

if ((nfail > 0)); then
	echo "# $nfail of $ntest tests failed"
	exit 1
fi
