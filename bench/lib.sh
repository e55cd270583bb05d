# Helpers shared by the benchmark runners (bench/*/run.sh); sourced, not run.
# Defines repo, command_line, PG_BINDIR, start_epoch, load_start and dbuser,
# and the functions usage, need_int, save_partial, step and as_pg; then the throwaway cluster (cluster_setup,
# cluster_initdb, cluster_start, cleanup) and psql_b, now and elapsed.

# Print the usage block at the top of the running script and exit with $1.
usage() {
	sed -n '/^# Usage:/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit "$1"
}

# Fail unless $2 (the value of option $1) is a positive integer.
need_int() {
	if ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then
		echo "run.sh: $1 needs a positive integer, got '$2'" >&2
		exit 2
	fi
}

# Take an option every runner has (--port, --out, --workdir, --keep,
# --help) from "$@", or fail on an unknown one; sets nshift to the number
# of words it used.
common_option() {
	nshift=2
	case $1 in
	--port) need_int "$1" "${2-}"; port=$2 ;;
	--out) out=${2:?--out needs a directory} ;;
	--workdir) workbase=${2:?--workdir needs a directory} ;;
	--keep) keep=1; nshift=1 ;;
	-h | --help) usage 0 ;;
	*) echo "run.sh: unknown option $1" >&2; usage 2 ;;
	esac
}

# Sourced with the runner's arguments (". lib.sh "$@""): the repository,
# the command line to print in reports, and the server binaries.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
command_line="bench/$(basename "$(dirname "$0")")/run.sh"
for arg in "$@"; do
	command_line+=" $(printf '%q' "$arg")"
done
PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}

# Defaults of the options every runner has (runners may override them).
out="$repo/docs/benchmarks"
workbase=${TMPDIR:-/tmp}
keep=0

# Copy the results measured so far ($results) to $out/$1.partial.csv; for
# the runners' on_failure.
save_partial() {
	if [ -s "$results" ]; then
		mkdir -p "$out"
		cp "$results" "$out/$1.partial.csv"
		echo "run.sh: partial results in $out/$1.partial.csv" >&2
	fi
}

start_epoch=$(date +%s)
load_start=$(cut -d' ' -f1 /proc/loadavg)

# One progress line: elapsed time and the message.
step() {
	local t=$(($(date +%s) - start_epoch))
	printf '[%02d:%02d] %s\n' $((t / 60)) $((t % 60)) "$*"
}

# Run a command as the OS user that owns the cluster (initdb refuses root).
as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# The database user: the cluster's owner.
if [ "$(id -u)" -eq 0 ]; then
	dbuser=postgres
else
	dbuser=$(id -un)
fi

# ---------------------------------------------------------------------------
# A throwaway cluster, the same for every runner.  The caller sets
# PG_BINDIR, workbase (parent of the work directory), port, keep (1 keeps
# the work directory) and may define on_failure, which runs when the
# script fails, before the cluster is removed (to save partial results).
# ---------------------------------------------------------------------------

server_started=0
# Data directories of further servers the runner started (stopped too).
extra_data=()

# Stop the server(s) and remove the cluster, whatever happened.
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	local rc=$?
	trap - EXIT
	if [ "$server_started" -eq 1 ]; then
		as_pg "$PG_BINDIR/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	local d
	for d in "${extra_data[@]}"; do
		as_pg "$PG_BINDIR/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1 || true
	done
	if [ "$rc" -ne 0 ]; then
		echo "run.sh: failed (status $rc)" >&2
		if [ -f "$work/server.log" ]; then
			echo "---- last lines of the server log ----" >&2
			tail -n 30 "$work/server.log" >&2 || true
		fi
		if declare -F on_failure >/dev/null; then
			on_failure || true
		fi
	fi
	if [ "$keep" -eq 1 ]; then
		echo "run.sh: kept $work" >&2
	else
		rm -rf "$work"
	fi
	exit "$rc"
}

# Make the work directory $work ($1 names it) with $data and $sock, arm the
# EXIT trap, and move into it (commands run as postgres must not start in
# a directory it cannot enter).
cluster_setup() {
	work=$(mktemp -d "$workbase/$1.XXXXXX")
	data="$work/data"
	sock="$work/sock"
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	mkdir -p "$sock"
	if [ "$(id -u)" -eq 0 ]; then
		chown -R postgres: "$work"
	fi
	cd "$work"
}

# initdb, then the settings every runner uses followed by the caller's own
# lines from standard input (later lines win), tagged with $1.
cluster_initdb() {
	as_pg "$PG_BINDIR/initdb" -D "$data" -U "$dbuser" --auth=trust --no-locale \
		-E UTF8 >"$work/initdb.log" 2>&1 || {
		cat "$work/initdb.log" >&2
		exit 1
	}
	{
		echo
		echo "# --- $1 ---"
		echo "port = $port"
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$sock'"
		echo "shared_buffers = 1GB"
		echo "max_wal_size = 8GB"
		echo "checkpoint_timeout = 30min"
		echo "fsync = off"
		echo "autovacuum = off"
		echo "jit = off"
		echo "maintenance_work_mem = 512MB"
		echo "client_min_messages = warning"
		cat
	} >>"$data/postgresql.conf"
}

# Start the server and create the database "bench".
cluster_start() {
	as_pg "$PG_BINDIR/pg_ctl" -D "$data" -l "$work/server.log" -w -t 120 start >/dev/null
	server_started=1
	as_pg "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$sock" -p "$port" \
		-U "$dbuser" -d postgres -c "CREATE DATABASE bench"
}

# psql on the benchmark database: quiet, unaligned, stop on the first error.
psql_b() {
	as_pg "$PG_BINDIR/psql" -X -q -A -t -v ON_ERROR_STOP=1 \
		-h "$sock" -p "$port" -U "$dbuser" -d bench "$@"
}

# The commit of the repository at $1 that a report names ("none" outside
# git), with a note if src/ or sql/ has uncommitted changes.
repo_commit() {
	local commit
	commit=$(git -C "$1" rev-parse --short HEAD 2>/dev/null || echo "none")
	if [ "$commit" != none ] && ! git -C "$1" diff --quiet HEAD -- src sql 2>/dev/null; then
		commit="$commit with uncommitted changes to src/ or sql/"
	fi
	echo "$commit"
}

# Seconds since the epoch, with fractions.
now() {
	date +%s.%N
}

# Seconds from $1 to $2, three decimals.
elapsed() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'
}

# The smaller of two times in seconds; $1 may be empty (no time yet).
fastest() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b + 0 < a + 0) print b; else print a }'
}
