# Helpers shared by the benchmark runners (bench/*/run.sh); sourced, not run.
# Defines start_epoch, load_start and dbuser, and the functions usage,
# need_int, step and as_pg.

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
