# Helpers shared by the benchmark runners (bench/*/run.sh); sourced, not run.
# Defines start_epoch, load_start and dbuser, and the functions step and as_pg.

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
