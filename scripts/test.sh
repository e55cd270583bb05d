#!/usr/bin/env bash
# Build and install elastic_index (scripts/setup.sh), then run the test
# suites against one PostgreSQL server, as the postgres OS user in a
# scratch copy of the repository:
#
#   unit        test/unit/*.c            make unittest
#   fuzz        test/fuzz/*_fuzz.c       make fuzz (FUZZ_SECONDS, default 30)
#   docs        docs/reference.md        test/docs/check_reference.sh
#   layers      src/ layering            scripts/check_layers.sh, and
#                                        test/layers/selftest.sh
#   regress     sql/*.sql                make installcheck (temporary instance)
#   isolation   test/specs/*.spec        make installcheck (temporary instance)
#   tap         test/t/*.pl              prove, one run per file
#
# The regression suite, the isolation suite and the TAP files run as jobs,
# EI_JOBS of them at a time (see below).
#
#   PG_CONFIG=/path/to/pg_config   the server to build for and test against
#                                  (default: Debian's PostgreSQL 15)
#   EI_SUITES="regress isolation"  the suites to run (default: all seven)
#   EI_TAP="063 064"               only these TAP tests (file name prefixes)
#   EI_JOBS=2                      suite jobs at once (default: the CPUs, <= 4)
#
# scripts/test_matrix.sh runs this for every supported major.  After the
# suites, every server log they left is searched for assertion failures
# (TRAP) and for backends killed by SIGABRT or SIGSEGV; each such log
# counts as a failed test.  Regression tests and TAP tests that need an
# extension this server does not have (HypoPG, pg_repack, pg_partman:
# packaged for Debian's 15 only) are listed as not run, by name.
#
# The last line of output is "N passed, M failed", counting individual
# tests.  Exits non-zero if any test failed or if no test ran at all.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
export PG_CONFIG
EI_SUITES=${EI_SUITES:-unit fuzz docs layers regress isolation tap}

# Is a suite selected?
want() {
	[[ " $EI_SUITES " == *" $1 "* ]]
}

# If the extension cannot be built and installed, every test fails.  The
# crash tests need the fault points (elastic_index.debug_fault), which only
# a build with EI_FAULT_INJECTION=1 has.
export EI_FAULT_INJECTION=1
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

PG_BINDIR=$("$PG_CONFIG" --bindir)
PGXS_DIR=$(dirname "$(dirname "$(dirname "$("$PG_CONFIG" --pgxs)")")")
echo "== testing against $("$PG_CONFIG" --version) ($PG_CONFIG): $EI_SUITES"

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

# Count a suite's result lines in a log: "<kind> NAME ... ok|FAILED", or
# pg_regress's TAP lines from 16 on, "ok N - NAME" and "not ok N - NAME".
# Expected tests that never reported a result (the suite could not start,
# say) count as failed.
tally() {
	local suite=$1 log=$2 expected=$3 ok bad
	ok=$(grep -cE '^(test|unit| ) +[^ ]+ +\.\.\. +ok|^ok +[0-9]+ +[-+] ' "$log" || true)
	bad=$(grep -E '^(test|unit| ) +[^ ]+ +\.\.\. |^not ok +[0-9]+ +[-+] ' "$log" |
		grep -cvE '\.\.\. +ok' || true)
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
unit_files=() fuzz_files=() regress_files=() spec_files=() tap_files=()
want unit && unit_files=("$work"/test/unit/*.c)
want fuzz && fuzz_files=("$work"/test/fuzz/*_fuzz.c)
want regress && regress_files=("$work"/sql/*.sql)
want isolation && spec_files=("$work"/test/specs/*.spec)
want tap && tap_files=("$work"/test/t/*.pl)
shopt -u nullglob
# EI_TAP="063 064": only the TAP tests whose file names start so
if [ -n "${EI_TAP:-}" ] && [ ${#tap_files[@]} -gt 0 ]; then
	picked=()
	for t in "${tap_files[@]}"; do
		for prefix in $EI_TAP; do
			# once, even if several prefixes match it (two runs of one
			# file at a time would share its node directories)
			case $(basename "$t") in "$prefix"*)
				picked+=("$t")
				break
				;;
			esac
		done
	done
	tap_files=("${picked[@]}")
fi

make_args=(PG_CONFIG="$PG_CONFIG")

# Regression tests that need an extension besides ours name it in a
# "-- requires: NAME" line; they run where the server has it.
regress_names=()
not_run=()
for f in "${regress_files[@]}"; do
	name=$(basename "$f" .sql)
	req=$(sed -n 's/^-- requires: *\([a-z_0-9]*\).*/\1/p' "$f" | head -n 1)
	if [ -n "$req" ] &&
		[ ! -f "$("$PG_CONFIG" --sharedir)/extension/$req.control" ]; then
		not_run+=("regress/$name (needs $req, which this server does not have)")
		continue
	fi
	regress_names+=("$name")
done
regress_files=("${regress_names[@]}")
make_args+=(REGRESS="${regress_names[*]}")

# TAP tests that need other extensions name them in a "# requires: NAME
# NAME..." line; they run where the server has all of them.
tap_names=()
for t in "${tap_files[@]}"; do
	missing=()
	for req in $(sed -n 's/^# requires: *//p' "$t" | head -n 1); do
		if [ ! -f "$("$PG_CONFIG" --sharedir)/extension/$req.control" ]; then
			missing+=("$req")
		fi
	done
	if [ ${#missing[@]} -gt 0 ]; then
		needs=$(printf '%s and ' "${missing[@]}")
		not_run+=("tap/$(basename "$t" .pl) (needs ${needs% and }, which this server does not have)")
		continue
	fi
	tap_names+=("$t")
done
tap_files=("${tap_names[@]}")

# Run one make target as postgres, logging to $logs/$1.log; true if it
# succeeded.
run_make() {
	local name=$1
	shift
	as_postgres make -C "$work" "${make_args[@]}" "$@" 2>&1 |
		tee "$logs/$name.log"
}

# 1. Unit tests
if want unit; then
echo "== unit tests (${#unit_files[@]})"
if [ ${#unit_files[@]} -gt 0 ]; then
	run_make unit unittest || true
	tally unit "$logs/unit.log" ${#unit_files[@]}
else
	echo "no unit tests"
fi
fi

# 1b. Fuzzing: the libFuzzer targets run for FUZZ_SECONDS each (a crash or a
# failed check fails the test)
if want fuzz; then
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
fi

# 1c. Reference documentation (no server needed): every setting, storage
# parameter, function, view and counter of the code has its row in
# docs/reference.md and no row is stale; the self-test shows that the check
# fails when it should.  A run that ends badly without a FAILED line of its
# own counts as one failed test.
if want docs; then
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
fi

# 1d. Layering (no server needed): calls and includes run down the layers
# (lib, core, the policies, am, inspect and hypo); core/ reaches the
# policies only through their EITreePolicy tables.  The objects are those
# scripts/setup.sh just built.  The self-test shows the check fails when it
# should.
if want layers; then
echo "== layers"
: >"$logs/layers.log"
if SRC_DIR="$repo/src" bash "$repo/scripts/check_layers.sh" \
	>"$logs/layers_run.log" 2>&1; then
	tail -n 1 "$logs/layers_run.log"
	echo "test layers/check ... ok" >>"$logs/layers.log"
else
	cat "$logs/layers_run.log"
	echo "test layers/check ... FAILED" >>"$logs/layers.log"
fi
if bash "$repo/test/layers/selftest.sh" >"$logs/layers_self.log" 2>&1; then
	echo "test layers/selftest ... ok" >>"$logs/layers.log"
else
	cat "$logs/layers_self.log"
	echo "test layers/selftest ... FAILED" >>"$logs/layers.log"
fi
cat "$logs/layers.log"
tally layers "$logs/layers.log" 2
fi

# 2-4. Regression tests, isolation tests and TAP tests, run by EI_JOBS
# workers at once (default: one per CPU, at most 4; EI_JOBS=1 runs them one
# after another).  They share nothing but the installed extension:
# pg_regress and pg_isolation_regress start their own temporary instances
# with their own output directories, every TAP file makes its own nodes,
# and those reserve their ports in one directory (PG_TEST_PORT_DIR).  Each
# job writes its own log; the logs are printed in a fixed order once all
# jobs ended, so that the output does not depend on which job ran first,
# and a line per finished job shows progress meanwhile.
max_jobs=${EI_JOBS:-$(nproc)}
if ! [[ "$max_jobs" =~ ^[1-9][0-9]*$ ]]; then
	max_jobs=1
elif [ -z "${EI_JOBS:-}" ] && [ "$max_jobs" -gt 4 ]; then
	max_jobs=4
fi
port_dir="$work/test/tmp_check/portlock"
as_postgres mkdir -p "$port_dir"

# Run one TAP file with prove, as PGXS's prove_installcheck would (it is
# disabled in Debian's build).  Its nodes live in test/tmp_check on every
# major: from 16 on PostgreSQL::Test::Utils takes TESTDATADIR, and without
# it would use ./tmp_check, which is the regression suite's temporary
# instance (pg_regress removes that directory while TAP files run beside it).
run_tap() {
	# shellcheck disable=SC2016 # $1 and $2 are expanded by the inner shell
	as_postgres env \
		LC_ALL=C.UTF-8 \
		PATH="$PG_BINDIR:$PATH" \
		PERL5LIB="$PGXS_DIR/src/test/perl${PERL5LIB:+:$PERL5LIB}" \
		PG_REGRESS="$PGXS_DIR/src/test/regress/pg_regress" \
		PG_TEST_PORT_DIR="$port_dir" \
		TESTDIR="$work/test" \
		TESTDATADIR="$work/test/tmp_check" \
		TESTLOGDIR="$work/test/tmp_check/log" \
		PG_CONFIG="$PG_CONFIG" \
		bash -c 'cd "$1" && prove -v "$2"' _ "$work" "$1"
}

# Run one job: "regress", "isolation" or "tap:I" (the I-th TAP file, one
# prove run per file so that each file is counted).  Its output goes to
# the caller's standard output; a TAP file's result line to
# $logs/tap_result_I.log.
run_job() {
	case $1 in
	regress)
		# the isolation suite disabled for this run
		if ! run_make regress installcheck ISOLATION=; then
			show_file "$work/regression.diffs"
			show_file "$work/log/postmaster.log" 300
		fi
		;;
	isolation)
		# the regression suite disabled for this run
		if ! run_make isolation installcheck REGRESS=; then
			show_file "$work/output_iso/regression.diffs"
			show_file "$work/output_iso/log/postmaster.log" 300
		fi
		;;
	tap:*)
		local i=${1#tap:} rel base
		rel=${tap_files[$i]#"$work"/}
		if run_tap "$rel" 2>&1; then
			echo "test $rel ... ok" >"$logs/tap_result_$i.log"
		else
			echo "test $rel ... FAILED" >"$logs/tap_result_$i.log"
			# this file's logs: regress_log_NAME and NAME_<node>.log
			base=$(basename "$rel" .pl)
			while IFS= read -r f; do
				show_file "$f"
			done < <(as_postgres find "$work/test/tmp_check/log" -type f \
				\( -name "regress_log_$base" -o -name "${base}_*.log" \) \
				2>/dev/null | sort)
		fi
		;;
	esac
}

# The jobs, the longest first: the regression suite takes about a third of
# the time of all of them together.
suite_jobs=()
if want regress && [ ${#regress_files[@]} -gt 0 ]; then
	suite_jobs+=(regress)
fi
if want isolation && [ ${#spec_files[@]} -gt 0 ]; then
	suite_jobs+=(isolation)
fi
if want tap; then
	for i in "${!tap_files[@]}"; do
		suite_jobs+=("tap:$i")
	done
fi
if [ ${#suite_jobs[@]} -gt 0 ]; then
	echo "== ${#suite_jobs[@]} suite jobs, $max_jobs at a time"
	pool_start=$(date +%s)
	# an interrupted run stops its jobs too (background jobs of a script
	# ignore SIGINT)
	trap 'kill $(jobs -p) 2>/dev/null' EXIT
	trap 'exit 130' INT TERM
	for job in "${suite_jobs[@]}"; do
		while [ "$(jobs -rp | wc -l)" -ge "$max_jobs" ]; do
			wait -n || true
		done
		(
			t0=$(date +%s)
			run_job "$job" >"$logs/job_${job/:/_}.log" 2>&1 || true
			case $job in
			tap:*) what=${tap_files[${job#tap:}]#"$work"/} ;;
			*) what=$job ;;
			esac
			echo "   finished: $what ($(($(date +%s) - t0)) s)"
		) &
	done
	wait
	trap - EXIT INT TERM
	echo "== suite jobs: $(($(date +%s) - pool_start)) s"
fi

# Print the log of the regression or isolation job and count its results.
report_make_suite() {
	local suite=$1 title=$2 count=$3
	echo "== $title ($count)"
	if [ "$count" -gt 0 ]; then
		cat "$logs/job_$suite.log"
		tally "$suite" "$logs/$suite.log" "$count"
	else
		echo "no $title"
	fi
}

if want regress; then
	report_make_suite regress "regression tests" ${#regress_files[@]}
fi
if want isolation; then
	report_make_suite isolation "isolation tests" ${#spec_files[@]}
fi

if want tap; then
	echo "== TAP tests (${#tap_files[@]})"
	if [ ${#tap_files[@]} -gt 0 ]; then
		: >"$logs/tap_result.log"
		for i in "${!tap_files[@]}"; do
			cat "$logs/job_tap_$i.log"
			if [ -s "$logs/tap_result_$i.log" ]; then
				cat "$logs/tap_result_$i.log" >>"$logs/tap_result.log"
			else
				echo "test ${tap_files[$i]#"$work"/} ... FAILED (no result)" >>"$logs/tap_result.log"
			fi
		done
		cat "$logs/tap_result.log"
		tally tap "$logs/tap_result.log" ${#tap_files[@]}
	else
		echo "no TAP tests"
	fi
fi

# 5. Assertion failures and crashes in any server log the suites left: a
# TRAP is an assertion that failed in the server (assert-enabled builds);
# SIGABRT and SIGSEGV are crashes.  SIGKILL is not counted: the crash
# recovery tests send it.  Each log with one counts as a failed test.
echo "== server logs: assertion failures and crashes"
: >"$logs/serverlogs.log"
nlogs=0
while IFS= read -r f; do
	nlogs=$((nlogs + 1))
	if as_postgres grep -qE 'TRAP: |terminated by signal (6|11)' "$f"; then
		echo "test serverlog/${f#"$work"/} ... FAILED" >>"$logs/serverlogs.log"
		as_postgres grep -E -B2 -A8 'TRAP: |terminated by signal (6|11)' "$f" | head -n 60
	fi
done < <(as_postgres find "$work" -type f \( -name 'postmaster.log' -o \
	-path '*/tmp_check/log/*.log' \) 2>/dev/null | sort)
if [ ! -s "$logs/serverlogs.log" ]; then
	echo "test serverlog/all-$nlogs-logs ... ok" >>"$logs/serverlogs.log"
fi
cat "$logs/serverlogs.log"
tally serverlogs "$logs/serverlogs.log" 1

if [ ${#not_run[@]} -gt 0 ]; then
	echo "== not run on this server:"
	printf '   %s\n' "${not_run[@]}"
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
