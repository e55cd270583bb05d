#!/usr/bin/env bash
# The whole test suite on every supported PostgreSQL major:
#
#   Debian's PostgreSQL 15 (apt)     unit, fuzz, docs, regress, isolation, TAP
#   15.18, assert-enabled (source)   regress, isolation, TAP
#   16 branch point, assert-enabled  regress, isolation, TAP
#   17 branch point, assert-enabled  regress, isolation, TAP
#   18.3, assert-enabled (source)    regress, isolation, TAP
#
# The source-built servers come from ../shared/postgres/ through
# scripts/build_postgres.sh, which caches them (a second run skips the
# builds).  Each server gets scripts/test.sh with the extension built with
# -Werror; a server log with an assertion failure (TRAP) or a crash fails
# that server's run.  EI_MATRIX="debian-15 18" runs some of the rows only.
#
# The PostgreSQL 15 rows (Debian's and the assert-enabled 15.18) also build
# Citus for test/t/052_citus.pl (scripts/build_citus.sh, cached like the
# servers), so that the Citus test runs on a release and on an
# assert-enabled server; a Citus build that fails counts as a failed test
# of that row (column "citus"), since the TAP suite then lists the Citus
# test as not run.
#
# Prints a table of pass counts per server, then "N passed, M failed" over
# all of them; exits non-zero if anything failed.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROWS=(
	"debian-15|debian|unit fuzz docs layers regress isolation tap"
	"15.18-assert|15|regress isolation tap"
	"16-assert|16|regress isolation tap"
	"17-assert|17|regress isolation tap"
	"18.3-assert|18|regress isolation tap"
)
only=${EI_MATRIX:-}

logs=$(mktemp -d /tmp/elastic_index_matrix.XXXXXX)
total_passed=0
total_failed=0
table=()
start=$(date +%s)

# The count a "== SUITE: N passed, M failed" line of a log gives, as "N/M",
# or "-" if the suite did not run.
suite_count() {
	local line
	line=$(grep -E "^== $1: [0-9]+ passed, [0-9]+ failed" "$2" | tail -n 1)
	if [ -z "$line" ]; then
		echo "-"
	else
		echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1\/\2/'
	fi
}

for row in "${ROWS[@]}"; do
	IFS='|' read -r name source suites <<<"$row"
	if [ -n "$only" ] && [[ " $only " != *" $name "* ]] &&
		[[ " $only " != *" $source "* ]]; then
		continue
	fi
	log=$logs/$name.log
	t0=$(date +%s)
	echo
	echo "######## $name: $suites"
	if [ "$source" = debian ]; then
		pg_config=/usr/lib/postgresql/15/bin/pg_config
		# Debian's server is installed by scripts/setup.sh itself
		build_ok=yes
	else
		build_ok=no
		if pg_config=$(bash scripts/build_postgres.sh "$source" 2>"$logs/build-$name.log" |
			tail -n 1) && [ -x "$pg_config" ]; then
			build_ok=yes
		else
			cat "$logs/build-$name.log"
		fi
	fi
	# Citus (13.2 supports PostgreSQL 15 to 17; the 16 and 17 rows are
	# branch points it does not build on), for the TAP test that needs it
	citus=-
	if [ "$build_ok" = yes ] && [[ " $suites " == *" tap "* ]] &&
		[ "$("$pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')" = 15 ]; then
		if bash scripts/build_citus.sh "$pg_config" >"$logs/build-citus-$name.log" 2>&1; then
			citus=ok
		else
			citus=FAILED
			cat "$logs/build-citus-$name.log"
		fi
	fi
	if [ "$build_ok" = yes ]; then
		PG_CONFIG=$pg_config EI_SUITES=$suites EI_WERROR=1 \
			bash scripts/test.sh 2>&1 | tee "$log"
		status=${PIPESTATUS[0]}
	else
		echo "the server could not be built: every test of $name fails" | tee "$log"
		echo "0 passed, 1 failed" >>"$log"
		status=1
	fi
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	passed=$(echo "${last:-0 passed, 1 failed}" | sed -E 's/ passed.*//')
	failed=$(echo "${last:-0 passed, 1 failed}" | sed -E 's/.* ([0-9]+) failed/\1/')
	if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
		failed=1
	fi
	if [ "$citus" = FAILED ]; then
		echo "test citus/build ... FAILED (scripts/build_citus.sh; test/t/052_citus.pl could not run)" |
			tee -a "$log"
		failed=$((failed + 1))
	fi
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
	version=$(grep -m1 -oE 'testing against PostgreSQL [^ ]+' "$log" | sed 's/testing against //')
	werror=$(grep -q '^setup: installed' "$log" && echo yes || echo NO)
	table+=("$(printf '%-13s %-18s %-7s %-6s %-6s %-6s %-5s %-7s %-8s %-10s %-6s %-11s %5ss' \
		"$name" "${version:-?}" "$werror" "$citus" \
		"$(suite_count unit "$log")" "$(suite_count fuzz "$log")" \
		"$(suite_count docs "$log")" "$(suite_count layers "$log")" \
		"$(suite_count regress "$log")" \
		"$(suite_count isolation "$log")" "$(suite_count tap "$log")" \
		"$(suite_count serverlogs "$log")" "$(($(date +%s) - t0))")")
done

echo
echo "######## version matrix (passed/failed per suite; citus: Citus built for the Citus test; serverlogs: no TRAP or crash in any server log)"
printf '%-13s %-18s %-7s %-6s %-6s %-6s %-5s %-7s %-8s %-10s %-6s %-11s %6s\n' \
	server version -Werror citus unit fuzz docs layers regress isolation tap serverlogs time
for line in "${table[@]}"; do
	echo "$line"
done
echo "matrix time: $(($(date +%s) - start)) s; logs in $logs"
echo
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ] && [ "$total_passed" -gt 0 ]
