# SPDX-License-Identifier: GPL-2.0-only
# tap.sh - TAP helpers for the host packaging tests (bash).
_n=0
_fail=0
diag() { echo "# $*"; }
_report() { # STATUS DESC
	_n=$((_n + 1))
	if [ "$1" = 0 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; _fail=$((_fail + 1)); fi
}
# check DESC CMD... : passes when CMD exits 0; its output is shown on failure
check() {
	local d=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	_report $rc "$d"
	[ $rc = 0 ] || printf '%s\n' "$out" | tail -n 25 | sed 's/^/#   /'
	return $rc
}
is() { # DESC GOT WANT
	if [ "$2" = "$3" ]; then _report 0 "$1"; else
		_report 1 "$1"; diag "  got '$2', want '$3'"; fi
}
like() { # DESC TEXT PATTERN
	if printf '%s\n' "$2" | grep -qE -- "$3"; then _report 0 "$1"; else
		_report 1 "$1"; diag "  '$(printf '%s' "$2" | head -c 300)' does not match /$3/"; fi
}
skip_all() { echo "1..0 # SKIP $*"; exit 77; }
done_testing() {
	echo "1..$_n"
	[ $_fail = 0 ] && exit 0
	diag "$_fail of $_n checks failed"
	exit 1
}
