# SPDX-License-Identifier: GPL-2.0-only
# tap.sh - TAP output for the shell tests: the host tests (tests/packaging,
# tests/rel) and the VM scenarios (tests/vm/lib.sh sources it in the guest).
# POSIX sh, so busybox runs it too.
#
# A test prints one line per check through check/is/like and ends with
# done_testing, which prints the plan and exits 0 or 1 (77 from skip_all).
_n=0
_fail=0

diag() { echo "# $*"; }

_report() { # STATUS DESC
	_n=$((_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $_n - $2"
	else
		echo "not ok $_n - $2"
		_fail=$((_fail + 1))
	fi
}

# ok DESC / nok DESC: a check the caller decided itself
ok() { _report 0 "$*"; }
nok() { _report 1 "$*"; }

# check DESC CMD... : passes when CMD (run in this shell) exits 0; its
# output is shown on failure
check() {
	_d=$1; shift
	_out=${TMPDIR:-/tmp}/tap-check.$$
	"$@" >"$_out" 2>&1
	_rc=$?
	_report $_rc "$_d"
	[ $_rc = 0 ] || sed 's/^/#   /' "$_out" | tail -n 25
	rm -f "$_out"
	return $_rc
}

# is DESC GOT WANT
is() {
	if [ "$2" = "$3" ]; then _report 0 "$1"; else
		_report 1 "$1"; diag "  got '$2', want '$3'"; fi
}

# like DESC TEXT PATTERN (grep -E)
like() {
	if printf '%s\n' "$2" | grep -qE -- "$3"; then _report 0 "$1"; else
		_report 1 "$1"; diag "  '$(printf '%s' "$2" | head -c 300)' does not match /$3/"; fi
}

skip_all() { echo "1..0 # SKIP $*"; exit 77; }

# tap_done: the plan and the exit status; done_testing unless a library
# (tests/vm/lib.sh) wraps it with its own clean-up
tap_done() {
	echo "1..$_n"
	[ $_fail = 0 ] && exit 0
	diag "$_fail of $_n checks failed"
	exit 1
}
done_testing() { tap_done; }
