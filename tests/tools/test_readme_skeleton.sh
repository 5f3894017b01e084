#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_readme_skeleton.sh SRCDIR BUILDDIR - every scheds/NAME/README.md has
# the shared skeleton (docs/scheduler-readme.md): "# scx_NAME", then the
# sections below in this order (others may sit between them), one figures
# table with the bench/run command that reproduces it, and every option of
# the built scx_NAME's own --help section.
set -uo pipefail
src=${1:?SRCDIR}
build=${2:?BUILDDIR}
sections=("When to choose it" "How it works" "Options" "Stats" "Current figures" "Limits")
n=0
bad=0
not_ok() { echo "not ok $n - $*"; bad=1; }

for readme in "$src"/scheds/*/README.md; do
	name=$(basename "$(dirname "$readme")")
	n=$((n + 1))
	head -1 "$readme" | grep -q "^# scx_$name\b" || { not_ok "$name: line 1 is not '# scx_$name'"; continue; }
	mapfile -t found < <(sed -n 's/^## //p' "$readme")
	i=0
	for h in "${found[@]}"; do
		[ $i -lt ${#sections[@]} ] && [ "$h" = "${sections[$i]}" ] && i=$((i + 1))
	done
	if [ $i -lt ${#sections[@]} ]; then
		not_ok "$name: no '## ${sections[$i]}' in order (want: ${sections[*]/#/## })"
		continue
	fi
	figures=$(sed -n '/^## Current figures$/,/^## /p' "$readme")
	tables=$(grep -c '^|---' <<<"$figures")
	if [ "$tables" != 1 ]; then
		not_ok "$name: '## Current figures' holds $tables tables, not one"
		continue
	fi
	grep -q 'bench/run ' <<<"$figures" || { not_ok "$name: no bench/run command with the figures"; continue; }
	exe=$build/scx_$name
	missing=
	if [ -x "$exe" ]; then
		for opt in $("$exe" --help | sed -n '/^Options:/,/^Common options:/p' |
			grep -v 'TEST BUILD ONLY' | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' |
			grep -oE -- '--[a-z0-9-]+'); do
			grep -q -- "$opt\b" "$readme" || missing="$missing $opt"
		done
	fi
	[ -z "$missing" ] || { not_ok "$name: options of --help missing from the README:$missing"; continue; }
	echo "ok $n - $name"
done
echo "1..$n"
exit $bad
