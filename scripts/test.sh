#!/usr/bin/env bash
# Build and install elastic_index (scripts/setup.sh), then run every test
# suite as the postgres OS user in a scratch copy of the repository:
#
#   unit        test/unit/*.c            make unittest
#   fuzz        test/fuzz/*_fuzz.c       make fuzz (FUZZ_SECONDS, default 30)
#   docs        docs/reference.md        test/docs/check_reference.sh
#   regress     sql/*.sql                make installcheck (temporary instance)
#   isolation   test/specs/*.spec        make installcheck (temporary instance)
#   tap         test/t/*.pl              prove, one file at a time
#
# The last line of output is "N passed, M failed", counting individual
# tests.  Exits non-zero if any test failed or if no test ran at all.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)

PG_MAJOR=15
PG_BINDIR=/usr/lib/postgresql/${PG_MAJOR}/bin
PG_CONFIG=${PG_BINDIR}/pg_config
export PG_CONFIG

# If the extension cannot be built and installed, every test fails.
if ! bash scripts/setup.sh; then
	shopt -s nullglob
	all_tests=(sql/*.sql test/specs/*.spec test/t/*.pl test/unit/*.c)
	shopt -u nullglob
	n=${#all_tests[@]}
	echo
	echo "setup failed: no test could run"
	echo "0 passed, $((n > 0 ? n : 1)) failed"
	exit 1
fi

PGXS_DIR=$("$PG_CONFIG" --pkglibdir)/pgxs

# Run a command as the postgres OS user (initdb refuses to run as root).
as_postgres() {
	if [ "$(id -un)" = postgres ]; then
		"$@"
	elif [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		sudo -u postgres -- "$@"
	fi
}

# Fresh copy of the repository owned by postgres, without git metadata or
# results of earlier runs.
work=$(mktemp -d /tmp/elastic_index_test.XXXXXX)
tar -C "$repo" \
	--exclude=./.git \
	--exclude=./results --exclude=./output_iso --exclude=./log \
	--exclude=./tmp_check --exclude=./tmp_check_iso --exclude=./tmp_unit \
	--exclude=./test/tmp_check \
	--exclude=./regression.diffs --exclude=./regression.out \
	-cf - . | tar -C "$work" -xf -
if [ "$(id -un)" != postgres ]; then
	if [ "$(id -u)" -eq 0 ]; then
		chown -R postgres: "$work"
	else
		sudo chown -R postgres: "$work"
	fi
fi
# Work from the copy, so that commands run as postgres never start in a
# directory postgres may not enter.
cd "$work"

# Logs of this script live outside the copy, owned by the caller.
logs=$(mktemp -d /tmp/elastic_index_logs.XXXXXX)

passed=0
failed=0
failed_suites=()

# Count a suite's result lines ("<kind> NAME ... ok|FAILED") in a log.
# Expected tests that never reported a result (the suite could not start,
# say) count as failed.
tally() {
	local suite=$1 log=$2 expected=$3 ok bad
	ok=$(grep -cE '^(test|unit| ) +[^ ]+ +\.\.\. +ok' "$log" || true)
	bad=$(grep -E '^(test|unit| ) +[^ ]+ +\.\.\. ' "$log" | grep -cvE '\.\.\. +ok' || true)
	if [ $((ok + bad)) -lt "$expected" ]; then
		bad=$((expected - ok))
	fi
	echo "== $suite: $ok passed, $bad failed"
	passed=$((passed + ok))
	failed=$((failed + bad))
	if [ "$bad" -gt 0 ]; then
		failed_suites+=("$suite")
	fi
}

# Print a file of the copy (owned by postgres) under a header, if it exists;
# only its last $2 lines if given.
show_file() {
	if as_postgres test -s "$1"; then
		if [ -n "${2:-}" ]; then
			echo "---------- $1 (last $2 lines)"
			as_postgres tail -n "$2" "$1"
		else
			echo "---------- $1"
			as_postgres cat "$1"
		fi
	fi
}

shopt -s nullglob
unit_files=("$work"/test/unit/*.c)
fuzz_files=("$work"/test/fuzz/*_fuzz.c)
regress_files=("$work"/sql/*.sql)
spec_files=("$work"/test/specs/*.spec)
tap_files=("$work"/test/t/*.pl)
shopt -u nullglob

make_args=(PG_CONFIG="$PG_CONFIG")

# Run one make target as postgres, logging to $logs/$1.log; true if it
# succeeded.
run_make() {
	local name=$1
	shift
	as_postgres make -C "$work" "${make_args[@]}" "$@" 2>&1 |
		tee "$logs/$name.log"
}

# 1. Unit tests
echo "== unit tests (${#unit_files[@]})"
if [ ${#unit_files[@]} -gt 0 ]; then
	run_make unit unittest || true
	tally unit "$logs/unit.log" ${#unit_files[@]}
else
	echo "no unit tests"
fi

# 1b. Fuzzing: the libFuzzer targets run for FUZZ_SECONDS each (a crash or a
# failed check fails the test)
echo "== fuzz targets (${#fuzz_files[@]})"
if [ ${#fuzz_files[@]} -gt 0 ]; then
	: >"$logs/fuzz_result.log"
	for f in "${fuzz_files[@]}"; do
		t=$(basename "$f" .c)
		if run_make "fuzz_$t" fuzz FUZZ_TARGETS="$t" \
			FUZZ_SECONDS="${FUZZ_SECONDS:-30}" >/dev/null; then
			echo "test fuzz/$t ... ok" >>"$logs/fuzz_result.log"
		else
			tail -n 80 "$logs/fuzz_$t.log"
			echo "test fuzz/$t ... FAILED" >>"$logs/fuzz_result.log"
		fi
	done
	cat "$logs/fuzz_result.log"
	tally fuzz "$logs/fuzz_result.log" ${#fuzz_files[@]}
else
	echo "no fuzz targets"
fi

# 1c. Reference documentation (no server needed): every setting, storage
# parameter, function, view and counter of the code has its row in
# docs/reference.md and no row is stale; the self-test shows that the check
# fails when it should.  A run that ends badly without a FAILED line of its
# own counts as one failed test.
echo "== docs checks"
: >"$logs/docs.log"
for docs_args in "" "--self-test"; do
	# shellcheck disable=SC2086 # docs_args is empty or one word
	if ! as_postgres bash "$work/test/docs/check_reference.sh" $docs_args \
		>"$logs/docs_run.log" 2>&1 && ! grep -q 'FAILED' "$logs/docs_run.log"; then
		echo "test docs/check_reference${docs_args:+/self-test} ... FAILED" >>"$logs/docs_run.log"
	fi
	cat "$logs/docs_run.log" >>"$logs/docs.log"
done
cat "$logs/docs.log"
tally docs "$logs/docs.log" 2

# 2. Regression tests (isolation suite disabled for this run)
echo "== regression tests (${#regress_files[@]})"
if [ ${#regress_files[@]} -gt 0 ]; then
	if ! run_make regress installcheck ISOLATION=; then
		show_file "$work/regression.diffs"
		show_file "$work/log/postmaster.log" 300
	fi
	tally regress "$logs/regress.log" ${#regress_files[@]}
else
	echo "no regression tests"
fi

# 3. Isolation tests (regression suite disabled for this run)
echo "== isolation tests (${#spec_files[@]})"
if [ ${#spec_files[@]} -gt 0 ]; then
	if ! run_make isolation installcheck REGRESS=; then
		show_file "$work/output_iso/regression.diffs"
		show_file "$work/output_iso/log/postmaster.log" 300
	fi
	tally isolation "$logs/isolation.log" ${#spec_files[@]}
else
	echo "no isolation tests"
fi

# 4. TAP tests, one prove run per file so that each file is counted.
# PGXS's prove_installcheck is disabled in Debian's build, so call prove
# directly with the environment it would have set up.
run_tap() {
	# shellcheck disable=SC2016 # $1 and $2 are expanded by the inner shell
	as_postgres env \
		LC_ALL=C.UTF-8 \
		PATH="$PG_BINDIR:$PATH" \
		PERL5LIB="$PGXS_DIR/src/test/perl${PERL5LIB:+:$PERL5LIB}" \
		PG_REGRESS="$PGXS_DIR/src/test/regress/pg_regress" \
		TESTDIR="$work/test" \
		PG_CONFIG="$PG_CONFIG" \
		bash -c 'cd "$1" && prove -v "$2"' _ "$work" "$1"
}

echo "== TAP tests (${#tap_files[@]})"
if [ ${#tap_files[@]} -gt 0 ]; then
	: >"$logs/tap_result.log"
	for t in "${tap_files[@]}"; do
		rel=${t#"$work"/}
		if run_tap "$rel" 2>&1 | tee -a "$logs/tap.log"; then
			echo "test $rel ... ok" >>"$logs/tap_result.log"
		else
			echo "test $rel ... FAILED" >>"$logs/tap_result.log"
			# this file's logs: regress_log_NAME and NAME_<node>.log
			base=$(basename "$rel" .pl)
			while IFS= read -r f; do
				show_file "$f"
			done < <(as_postgres find "$work/test/tmp_check/log" -type f \
				\( -name "regress_log_$base" -o -name "${base}_*.log" \) \
				2>/dev/null | sort)
		fi
	done
	cat "$logs/tap_result.log"
	tally tap "$logs/tap_result.log" ${#tap_files[@]}
else
	echo "no TAP tests"
fi

echo
if [ "$failed" -eq 0 ]; then
	as_postgres rm -rf "$work"
	rm -rf "$logs"
	if [ "$passed" -eq 0 ]; then
		echo "no tests ran"
	fi
else
	echo "failed suites: ${failed_suites[*]}; files kept in $work, logs in $logs"
fi
echo "$passed passed, $failed failed"
if [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ]; then
	exit 1
fi
