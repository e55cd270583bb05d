#!/usr/bin/env bash
# Check that docs/reference.md documents exactly what the code defines.
#
#   check_reference.sh [--root DIR]     check the repository at DIR
#                                       (default: the one holding this script)
#   check_reference.sh --self-test      show that the check fails when it
#                                       should, on altered copies in a
#                                       temporary directory
#
# Names taken from the code:
#   gucs        first argument of DefineCustom*Variable() in src/**/*.c
#   reloptions  name argument of add_*_reloption() in src/**/*.c
#   functions   CREATE [OR REPLACE] FUNCTION|PROCEDURE|AGGREGATE in
#               sql/install/*.sql
#   views       CREATE [OR REPLACE] [MATERIALIZED] VIEW in sql/install/*.sql
#   counters    X(EI_STAT_..., "name") in src/include/eistats.h
#
# Names taken from docs/reference.md: the name in backticks in the first
# cell of each table row, in the sections "## Settings", "## Storage
# parameters", "## Functions", "## Views" and "## Activity counters" (for
# functions, the part before "(").
#
# Prints one line "test reference/<kind> ... ok|FAILED" per kind, with the
# missing or stale names below a failed one, and exits 1 if any kind failed
# (2 on a usage error).  Needs only bash, grep, sed, awk, sort and comm.
set -uo pipefail
export LC_ALL=C

self_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kinds=(gucs reloptions functions views counters)

# Print the C sources under $1/src with each file on one line, so that a
# call split over several lines is matched as a whole.
c_sources_joined() {
	find "$1/src" -name '*.c' -type f -print0 | sort -z |
		while IFS= read -r -d '' f; do
			tr '\n\t' '  ' <"$f"
			echo
		done
}

# Print the install scripts without "--" comments, each on one line.
sql_joined() {
	local f
	for f in "$1"/sql/install/*.sql; do
		[ -f "$f" ] || continue
		sed 's/--.*$//' "$f" | tr '\n\t' '  '
		echo
	done
}

# Print the names of one kind defined by the code under root $1, sorted.
code_names() {
	local root=$1 kind=$2
	case $kind in
		gucs)
			c_sources_joined "$root" |
				grep -oE 'DefineCustom[A-Za-z]+Variable *\( *"[^"]+"' |
				sed -E 's/.*"([^"]+)"$/\1/'
			;;
		reloptions)
			c_sources_joined "$root" |
				grep -oE 'add_[a-z_]*reloption *\([^,;()]*, *"[^"]+"' |
				sed -E 's/.*"([^"]+)"$/\1/'
			;;
		functions)
			sql_joined "$root" |
				grep -oiE 'create +(or +replace +)?(function|procedure|aggregate) +[A-Za-z0-9_."]+' |
				awk '{ print $NF }'
			;;
		views)
			sql_joined "$root" |
				grep -oiE 'create +(or +replace +)?(materialized +)?view +[A-Za-z0-9_."]+' |
				awk '{ print $NF }'
			;;
		counters)
			if [ -f "$root/src/include/eistats.h" ]; then
				grep -oE 'X\(EI_STAT_[A-Z0-9_]+, *"[^"]+"\)' "$root/src/include/eistats.h" |
					sed -E 's/.*"([^"]+)"\)$/\1/'
			fi
			;;
	esac |
		if [ "$kind" = gucs ]; then
			cat
		else
			# SQL names: no quotes, no schema, folded to lower case
			sed -E 's/"//g; s/^.*\.([^.]+)$/\1/' | tr '[:upper:]' '[:lower:]'
		fi | sort -u
}

# Print "kind<TAB>name" for every table row of the reference document $1:
# the first cell's code span, up to a "(" for functions.
doc_rows() {
	awk '
		/^## / {
			kind = ""
			if ($0 ~ /^## Settings/) kind = "gucs"
			else if ($0 ~ /^## Storage parameters/) kind = "reloptions"
			else if ($0 ~ /^## Functions/) kind = "functions"
			else if ($0 ~ /^## Views/) kind = "views"
			else if ($0 ~ /^## Activity counters/) kind = "counters"
			next
		}
		kind != "" && /^\|/ {
			n = split($0, cell, "|")
			if (n < 3) next
			first = cell[2]
			gsub(/^ +| +$/, "", first)
			if (first !~ /^`[^`]+`$/) next
			name = substr(first, 2, length(first) - 2)
			sub(/\(.*$/, "", name)
			gsub(/ +$/, "", name)
			print kind "\t" name
		}
	' "$1"
}

# Print the names of one kind documented in $1, sorted.
doc_names() {
	doc_rows "$1" | awk -F '\t' -v k="$2" '$1 == k { print $2 }' | sort -u
}

# Print each line of $2 after the prefix $1.
indent() {
	local line
	while IFS= read -r line; do
		printf '%s%s\n' "$1" "$line"
	done <<<"$2"
}

# Check every kind for the repository at $1; print result lines; return 1
# if any kind failed.
check_root() {
	local root=$1 doc="$1/docs/reference.md" kind failed=0
	local code docs missing stale

	if [ ! -f "$doc" ]; then
		for kind in "${kinds[@]}"; do
			echo "test reference/$kind ... FAILED"
		done
		echo "    $doc does not exist"
		return 1
	fi

	for kind in "${kinds[@]}"; do
		code=$(code_names "$root" "$kind")
		docs=$(doc_names "$doc" "$kind")
		if [ -z "$code" ]; then
			echo "test reference/$kind ... FAILED"
			echo "    no $kind found in the code: the extraction is broken"
			failed=1
			continue
		fi
		missing=$(comm -23 <(echo "$code") <(echo "$docs"))
		stale=$(comm -13 <(echo "$code") <(echo "$docs" | sed '/^$/d'))
		if [ -z "$missing" ] && [ -z "$stale" ]; then
			echo "test reference/$kind ... ok"
		else
			echo "test reference/$kind ... FAILED"
			[ -n "$missing" ] && indent "    missing from docs/reference.md: " "$missing"
			[ -n "$stale" ] && indent "    documented but not defined by the code: " "$stale"
			failed=1
		fi
	done
	return $failed
}

# Copy what the check reads from the repository $1 into a new directory
# $2.
copy_tree() {
	mkdir -p "$2/docs" "$2/sql"
	cp -R "$1/src" "$2/src"
	cp -R "$1/sql/install" "$2/sql/install"
	cp "$1/docs/reference.md" "$2/docs/reference.md"
}

# Remove the table rows documenting name $2 from the document $1.
drop_doc_rows() {
	local doc=$1 name=$2 tmp
	tmp=$(mktemp)
	awk -v name="$name" '
		/^\|/ {
			n = split($0, cell, "|")
			first = cell[2]
			gsub(/^ +| +$/, "", first)
			if (first ~ /^`[^`]+`$/) {
				x = substr(first, 2, length(first) - 2)
				sub(/\(.*$/, "", x)
				gsub(/ +$/, "", x)
				if (x == name) next
			}
		}
		{ print }
	' "$doc" >"$tmp" && mv "$tmp" "$doc"
}

# Add a row documenting name $3 to section $2 of the document $1, right
# after the section's table header.
add_doc_row() {
	local doc=$1 section=$2 name=$3 tmp
	tmp=$(mktemp)
	awk -v section="$section" -v name="$name" '
		{ print }
		index($0, "## " section) == 1 { insec = 1 }
		insec && /^\|---/ {
			print "| `" name "` | added by the self-test |"
			insec = 0
		}
	' "$doc" >"$tmp" && mv "$tmp" "$doc"
}

# Run one self-test case: $1 names it, $2 is "pass" or the name the check
# must report as failing; the altered copy is in $case_root.
expect() {
	local label=$1 want=$2 out rc
	out=$(check_root "$case_root" 2>&1)
	rc=$?
	if [ "$want" = pass ]; then
		if [ $rc -eq 0 ]; then
			echo "test reference/self-test/$label ... ok"
			return 0
		fi
	elif [ $rc -eq 1 ] && echo "$out" | grep -q "FAILED" &&
		echo "$out" | grep -qE ": $(printf '%s' "$want" | sed 's/[.[\*^$]/\\&/g')\$"; then
		echo "test reference/self-test/$label ... ok"
		return 0
	fi
	echo "test reference/self-test/$label ... FAILED"
	indent "    | " "$out"
	return 1
}

# Show that the check passes on an unaltered copy and fails, naming the
# culprit, on copies with a row removed from the document, a stale row
# added to it, or a new definition added to the code.
self_test() {
	local repo=$1 tmp kind name failed=0
	local -a scripts
	tmp=$(mktemp -d)

	case_root=$tmp/unchanged
	copy_tree "$repo" "$case_root"
	expect unchanged pass || failed=1

	for kind in "${kinds[@]}"; do
		name=$(code_names "$repo" "$kind" | head -n 1)
		case_root=$tmp/undocumented-$kind
		copy_tree "$repo" "$case_root"
		drop_doc_rows "$case_root/docs/reference.md" "$name"
		expect "undocumented-$kind" "$name" || failed=1
	done

	case_root=$tmp/stale-guc
	copy_tree "$repo" "$case_root"
	add_doc_row "$case_root/docs/reference.md" "Settings" "elastic_index.no_such_setting"
	expect stale-guc elastic_index.no_such_setting || failed=1

	case_root=$tmp/stale-function
	copy_tree "$repo" "$case_root"
	add_doc_row "$case_root/docs/reference.md" "Functions" "elastic_index_no_such_function(int4)"
	expect stale-function elastic_index_no_such_function || failed=1

	case_root=$tmp/new-guc
	copy_tree "$repo" "$case_root"
	cat >"$case_root/src/self_test_guc.c" <<'EOF'
void
self_test_guc(void)
{
	DefineCustomBoolVariable(
		"elastic_index.self_test_flag",
		"A setting that only the self-test defines.",
		NULL, &flag, false, PGC_USERSET, 0, NULL, NULL, NULL);
}
EOF
	expect new-guc elastic_index.self_test_flag || failed=1

	case_root=$tmp/new-reloption
	copy_tree "$repo" "$case_root"
	cat >"$case_root/src/self_test_reloption.c" <<'EOF'
void
self_test_reloption(void)
{
	add_bool_reloption(kind,
					   "self_test_option", "only the self-test defines it",
					   false, AccessExclusiveLock);
}
EOF
	expect new-reloption self_test_option || failed=1

	case_root=$tmp/new-function
	copy_tree "$repo" "$case_root"
	scripts=("$case_root"/sql/install/*.sql)
	printf '\nCREATE OR REPLACE FUNCTION\n\telastic_index_self_test() RETURNS int4\nAS $$ SELECT 1 $$ LANGUAGE sql;\n' \
		>>"${scripts[0]}"
	expect new-function elastic_index_self_test || failed=1

	case_root=$tmp/new-view
	copy_tree "$repo" "$case_root"
	scripts=("$case_root"/sql/install/*.sql)
	printf '\ncreate view elastic_index_self_test_view as select 1;\n' \
		>>"${scripts[0]}"
	expect new-view elastic_index_self_test_view || failed=1

	case_root=$tmp/no-document
	copy_tree "$repo" "$case_root"
	rm "$case_root/docs/reference.md"
	if check_root "$case_root" >/dev/null 2>&1; then
		echo "test reference/self-test/no-document ... FAILED"
		failed=1
	else
		echo "test reference/self-test/no-document ... ok"
	fi

	rm -rf "$tmp"
	return $failed
}

root=$(cd "$self_dir/../.." && pwd)
mode=check
while [ $# -gt 0 ]; do
	case $1 in
		--root)
			[ $# -ge 2 ] || { echo "usage: $0 [--root DIR] | --self-test" >&2; exit 2; }
			root=$2
			shift 2
			;;
		--self-test)
			mode=self-test
			shift
			;;
		*)
			echo "usage: $0 [--root DIR] | --self-test" >&2
			exit 2
			;;
	esac
done

if [ "$mode" = self-test ]; then
	self_test "$root"
else
	check_root "$root"
fi
