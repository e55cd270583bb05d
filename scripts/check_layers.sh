#!/usr/bin/env bash
# Prove the layering of the source tree: which folder under src/ may call
# functions (and read global data) of which other folder, and which of our
# headers it may include.
#
#   scripts/check_layers.sh            check, print the summary
#   scripts/check_layers.sh --list     also print every edge found
#   SRC_DIR=/some/src scripts/check_layers.sh
#                                      check another tree (default: the
#                                      src/ next to this script's folder)
#
# Calls are taken from the objects, so build first (make).  For every
# src/**/*.o the global symbols it defines (nm --defined-only -g) and the
# symbols it leaves undefined (nm -u: functions and data such as GUC
# variables) are read; an undefined symbol that another of our objects
# defines is an edge, printed as
#
#   call     caller_layer -> callee_layer  caller.o -> callee.o : symbol
#
# Includes are taken from every .c and .h file under src/: each
# #include "x.h" (quoted includes only) that finds one of our headers,
# searched like the compiler does (the including file's folder, then
# INCLUDE_DIRS), is an edge, printed as
#
#   include  includer_layer -> header_layer  file.c:LINE -> include/x.h
#
# Paths are relative to SRC_DIR.  The layer of a .c or .o file is its folder
# under src/ (files directly in src/, i.e. elastic_index.c, are "top"); the
# layer of a header is given by HEADER_TABLE.  A layer may always use
# itself, and otherwise only the layers LAYER_TABLE lists for it.
#
# Prints the number of calls and includes per pair of layers, then every
# violation: a call or include the table does not allow, a header of ours
# that HEADER_TABLE gives no layer, a folder that LAYER_TABLE does not
# know.  The last line is "layers: OK (N calls, M includes checked)" or
# "layers: FAILED (K violations)".  Warnings about objects older than their
# source, sources without an object and objects without a source go to
# stderr; they do not change the result.
#
# Exits 0 when the layering holds, 1 on violations, 2 when it cannot check
# (no objects, bad option, bad table).  Needs bash 4, coreutils, awk
# and binutils' nm.
set -euo pipefail
export LC_ALL=C

# Layers, one a line: the layer (a folder under src/, or "top" for the
# files directly in src/), then the layers it may call and include:
# "-" for none, "*" for all.
LAYER_TABLE='
lib       -
core      lib
compact   core lib
elastic   compact core lib
osm       compact core lib
am        elastic osm compact core lib
inspect   am elastic osm compact core lib hypo
hypo      am elastic osm compact core lib
top       *
'

# Headers, one pattern a line: a shell pattern for the header's path
# relative to SRC_DIR, then its layer.  The first matching line wins; a
# header of the tree that no line matches is a violation, so that every
# new header is given a layer.
HEADER_TABLE='
include/eitree.h        core
include/eitree_xlog.h   core
include/eicompat.h      core
include/eistats.h       core
include/eipolicy.h      core
include/eicompact*.h    compact
include/eielastic*.h    elastic
include/eiosm*.h        osm
include/eiam.h          am
include/eiinspect.h     inspect
include/eihypo.h        hypo
lib/*.h                 lib
'

# Where a quoted include is searched after the including file's own folder,
# relative to SRC_DIR, in order (the Makefile's -I flags).
INCLUDE_DIRS='include lib'

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
list=0

# Print the usage and exit with status $1.
usage() {
	awk 'NR > 1 && /^set -euo/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"
	exit "$1"
}

# Print an error and exit with status 2.
die() {
	echo "check_layers: $*" >&2
	exit 2
}

# Print the layer of header $1 (a path relative to SRC_DIR) from
# HEADER_TABLE, or "?" if no line matches.
header_layer() {
	local pattern layer
	while read -r pattern layer; do
		[[ -n $pattern && $pattern != \#* ]] || continue
		# shellcheck disable=SC2053 # the pattern is a glob on purpose
		if [[ $1 == $pattern ]]; then
			printf '%s\n' "$layer"
			return
		fi
	done <<<"$HEADER_TABLE"
	printf '?\n'
}

# Set $found to the header of the tree (relative to SRC_DIR) that a quoted
# #include of $2 in file $1 (relative to SRC_DIR) finds, or to "".
resolve_include() {
	local from=$1 name=$2 dir cand
	local -a cands
	dir=.
	[[ $from == */* ]] && dir=${from%/*}
	cands=("$dir/$name")
	for cand in $INCLUDE_DIRS; do
		cands+=("$cand/$name")
	done
	found=
	for cand in "${cands[@]}"; do
		[[ -f $SRC_DIR/$cand ]] || continue
		if [[ $cand == *..* ]]; then
			cand=$(realpath -m -s --relative-to="$SRC_DIR" "$SRC_DIR/$cand")
			[[ $cand == ../* ]] && return 0
		fi
		while [[ $cand == ./* ]]; do
			cand=${cand#./}
		done
		found=$cand
		return 0
	done
}

# Print the records the checker reads, one a line, tab-separated:
# L layer allowed / H header layer / D object symbol / U object symbol /
# I file line name header.  L and H lines come first, then all D lines,
# then the U and I lines.
collect() {
	local f src obj layer name allowed file line found
	local -a objects=() sources=() headers=()

	shopt -s globstar nullglob
	for f in "$SRC_DIR"/**/*.o; do
		if [[ -f $f ]]; then objects+=("${f#"$SRC_DIR"/}"); fi
	done
	for f in "$SRC_DIR"/**/*.c; do
		if [[ -f $f ]]; then sources+=("${f#"$SRC_DIR"/}"); fi
	done
	for f in "$SRC_DIR"/**/*.h; do
		if [[ -f $f ]]; then headers+=("${f#"$SRC_DIR"/}"); fi
	done
	shopt -u globstar nullglob

	if ((${#objects[@]} == 0)); then
		echo "check_layers: no object files under $SRC_DIR; run make first" >&2
		echo "  (make -C $(dirname "$SRC_DIR") PG_CONFIG=/path/to/pg_config)" >&2
		exit 2
	fi

	for src in "${sources[@]}"; do
		obj=${src%.c}.o
		if [[ ! -f $SRC_DIR/$obj ]]; then
			echo "check_layers: warning: $src has no object $obj (not built?)" >&2
		elif [[ $SRC_DIR/$obj -ot $SRC_DIR/$src ]]; then
			echo "check_layers: warning: $obj is older than $src (run make)" >&2
		fi
	done
	for obj in "${objects[@]}"; do
		[[ -f $SRC_DIR/${obj%.o}.c ]] ||
			echo "check_layers: warning: $obj has no source ${obj%.o}.c (left over?)" >&2
	done

	while read -r layer allowed; do
		[[ -n $layer && $layer != \#* ]] || continue
		printf 'L\t%s\t%s\n' "$layer" "$allowed"
	done <<<"$LAYER_TABLE"
	for f in "${headers[@]}"; do
		printf 'H\t%s\t%s\n' "$f" "$(header_layer "$f")"
	done

	for obj in "${objects[@]}"; do
		nm -P --defined-only -g "$SRC_DIR/$obj" >"$tmp/nm" ||
			die "cannot read the symbols of $obj"
		awk -v o="$obj" 'NF >= 2 { print "D\t" o "\t" $1 }' "$tmp/nm"
	done
	for obj in "${objects[@]}"; do
		nm -P -u "$SRC_DIR/$obj" >"$tmp/nm" ||
			die "cannot read the symbols of $obj"
		awk -v o="$obj" 'NF >= 2 { print "U\t" o "\t" $1 }' "$tmp/nm"
	done

	if ((${#sources[@]} + ${#headers[@]} > 0)); then
		(cd "$SRC_DIR" && awk '
			match($0, /^[ \t]*#[ \t]*include[ \t]*"[^"]+"/) {
				s = substr($0, RSTART, RLENGTH)
				sub(/^[^"]*"/, "", s)
				sub(/"$/, "", s)
				print FILENAME "\t" FNR "\t" s
			}' "${sources[@]}" "${headers[@]}") >"$tmp/includes"
	else
		: >"$tmp/includes"
	fi
	while IFS=$'\t' read -r file line name; do
		resolve_include "$file" "$name"
		[[ -n $found ]] || continue
		printf 'I\t%s\t%s\t%s\t%s\n' "$file" "$line" "$name" "$found"
	done <"$tmp/includes"
}

# Check the records collect() printed against the tables; print the edges
# (with --list), the summary and the violations, and the verdict.
check() {
	awk -v list="$list" '
		BEGIN { FS = "\t"; nlayers = 0; nviol = 0; ncalls = 0; nincs = 0 }

		# Is layer a allowed to use layer b?
		function allowed(a, b) {
			return a == b || allow[a] == "*" ||
				index(" " allow[a] " ", " " b " ") > 0
		}

		# The layer of a .c or .o file: its folder ("" if unknown).
		function folder_layer(p,   f) {
			f = index(p, "/") ? substr(p, 1, index(p, "/") - 1) : "top"
			if (f in known)
				return f
			if (!(f in badfolder)) {
				badfolder[f] = 1
				viol[++nviol] = "folder " f " has no layer (" p \
					"; add it to LAYER_TABLE)"
			}
			return ""
		}

		# The layer of an including file: a header its own, else its folder.
		function file_layer(p) {
			if (p ~ /\.h$/)
				return (p in hlayer && hlayer[p] != "?") ? hlayer[p] : ""
			return folder_layer(p)
		}

		$1 == "L" {
			known[$2] = 1
			order[++nlayers] = $2
			allow[$2] = ($3 == "-") ? "" : $3
			next
		}
		$1 == "H" {
			hlayer[$2] = $3
			if ($3 == "?")
				viol[++nviol] = "header " $2 " has no layer" \
					" (add it to HEADER_TABLE)"
			else if (!($3 in known))
				badtable = badtable "  HEADER_TABLE: " $2 " -> unknown layer " $3 "\n"
			next
		}
		$1 == "D" {
			if (!($3 in def))
				def[$3] = $2
			else if (def[$3] != $2)
				printf "check_layers: warning: %s is defined in %s and %s\n",
					$3, def[$3], $2 > "/dev/stderr"
			next
		}
		$1 == "U" {
			if (!($3 in def) || def[$3] == $2)
				next
			a = folder_layer($2)
			b = folder_layer(def[$3])
			if (a == "" || b == "")
				next
			ncalls++
			calls[a, b]++
			edge = sprintf("%s -> %s  %s -> %s : %s", a, b, $2, def[$3], $3)
			if (list)
				print "call     " edge
			if (!allowed(a, b))
				viol[++nviol] = "call     " edge
			next
		}
		$1 == "I" {
			a = file_layer($2)
			b = hlayer[$5]
			if (a == "" || b == "?" || b == "")
				next
			nincs++
			incs[a, b]++
			edge = sprintf("%s -> %s  %s:%s -> %s", a, b, $2, $3, $5)
			if (list)
				print "include  " edge
			if (!allowed(a, b))
				viol[++nviol] = "include  " edge
			next
		}

		END {
			for (i = 1; i <= nlayers; i++) {
				n = split(allow[order[i]], w, " ")
				for (j = 1; j <= n; j++)
					if (w[j] != "*" && !(w[j] in known))
						badtable = badtable "  LAYER_TABLE: " order[i] \
							" may use unknown layer " w[j] "\n"
			}
			if (badtable != "") {
				printf "check_layers: the tables name layers LAYER_TABLE does not define:\n%s",
					badtable > "/dev/stderr"
				exit 2
			}
			if (list)
				print ""
			print "calls by layer pair:"
			for (i = 1; i <= nlayers; i++)
				for (j = 1; j <= nlayers; j++)
					if ((order[i], order[j]) in calls)
						printf "  %s -> %s  %d\n", order[i], order[j],
							calls[order[i], order[j]]
			print "includes by layer pair:"
			for (i = 1; i <= nlayers; i++)
				for (j = 1; j <= nlayers; j++)
					if ((order[i], order[j]) in incs)
						printf "  %s -> %s  %d\n", order[i], order[j],
							incs[order[i], order[j]]
			if (nviol > 0) {
				print "violations:"
				for (i = 1; i <= nviol; i++)
					print "  " viol[i]
				printf "layers: FAILED (%d violation%s)\n", nviol,
					nviol == 1 ? "" : "s"
				exit 1
			}
			printf "layers: OK (%d calls, %d includes checked)\n", ncalls, nincs
		}' "$tmp/records"
}

while (($# > 0)); do
	case $1 in
		--list) list=1 ;;
		-h | --help) usage 0 ;;
		*)
			echo "check_layers: unknown argument: $1" >&2
			echo "usage: check_layers.sh [--list] [--help]" >&2
			exit 2
			;;
	esac
	shift
done

SRC_DIR=${SRC_DIR:-$script_dir/../src}
[[ -d $SRC_DIR ]] || die "no source directory $SRC_DIR (set SRC_DIR)"
SRC_DIR=$(cd "$SRC_DIR" && pwd)
command -v nm >/dev/null || die "nm (binutils) is needed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

collect >"$tmp/records"
status=0
check || status=$?
exit "$status"
