# SPDX-License-Identifier: GPL-2.0-only
# rel-badinput.sh [--strict] BINARY - feed malformed values to every option
# of an scxkit binary, read from its own --help, and check that it refuses
# them cleanly.
#
# POSIX sh (runs under the host's sh and the guest's busybox sh). Prints TAP.
#
# Two classes of values:
#  - certainly bad (empty value, value for a flag, missing value, unknown
#    option, stray argument, and for numeric/choice/cpulist options: sign,
#    garbage, overflow, NaN, out-of-range cpulists): must exit 2 with one
#    message naming the option, and, since parsing happens before any
#    system check, without touching the kernel;
#  - possibly acceptable (odd but maybe valid strings, a 64 KiB value): must
#    not crash (no signal, no sanitizer report), exit 1 or 2. Skipped with
#    --strict, which the VM uses: there a value that parses would attach.
#
# Option kinds come from the binary's own table (--help-options: name, type,
# range, choices), so every typed option gets bad values: u64 and double
# options get malformed numbers and the values just outside their range,
# choices unknown words; custom options are told apart by metavar (CPU
# lists: CPUS, LIST, MASK, DOMAIN); strings only must not crash.
#
# Never on a machine where the binary could attach: a value that parses
# (a free string, say) would load the scheduler into the running kernel.
# Without --strict the script refuses (exit 77) when /sys/kernel/sched_ext
# exists and it has CAP_SYS_ADMIN; SCXK_BADINPUT_SYSFS_EXTRA names one more
# directory treated the same way, for the test of this guard.
# tap.sh is beside the scenarios' folder in the VM, in tests/lib on the host.
_here=$(dirname "$0")
if [ -f "$_here/../tap.sh" ]; then . "$_here/../tap.sh"; else . "$_here/../../lib/tap.sh"; fi
strict=
[ "$1" = --strict ] && { strict=1; shift; }
bin=$1
# Absolute, because free-string values run from a scratch directory.
case $bin in */*) bin=$(cd "$(dirname "$bin")" && pwd)/${bin##*/} ;; esac
[ -n "$bin" ] || { echo "usage: rel-badinput.sh [--strict] BINARY" >&2; exit 2; }
if ! command -v "$bin" >/dev/null 2>&1 && [ ! -x "$bin" ]; then
	skip_all "$bin not found"
fi
prog=${bin##*/}

# CAP_SYS_ADMIN (bit 21) in our effective set; unreadable counts as yes.
can_attach() {
	_cap=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status 2>/dev/null)
	[ -z "$_cap" ] && return 0
	[ $(((0x$_cap >> 21) & 1)) = 1 ]
}
if [ -z "$strict" ]; then
	for d in /sys/kernel/sched_ext ${SCXK_BADINPUT_SYSFS_EXTRA:-}; do
		if [ -d "$d" ] && can_attach; then
			skip_all "$d exists and $prog could attach here: run it in the VM (--strict)"
		fi
	done
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/badinput.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# expect_usage DESC OPTNAME ARGS... : exit 2, message names OPTNAME, no crash
expect_usage() {
	_d=$1 _o=$2
	shift 2
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	_rc=$?
	if [ $_rc != 2 ]; then
		nok "$_d: exit $_rc, want 2"
		sed 's/^/#   /' "$tmp/err" | head -n 5
	elif ! grep -q -- "$_o" "$tmp/err"; then
		nok "$_d: message does not name '$_o'"
		sed 's/^/#   /' "$tmp/err" | head -n 5
	elif [ "$(wc -l <"$tmp/err")" -gt 3 ] || [ -s "$tmp/out" ]; then
		nok "$_d: more than a short message on stderr, or output on stdout"
	else
		ok "$_d"
	fi
}

# expect_no_crash DESC ARGS... : exit 0, 1 or 2, nothing worse. A free string
# may be a valid output path (strata's --example FILE writes FILE), so it
# runs in a scratch directory and exit 0 is fine.
expect_no_crash() {
	_d=$1
	shift
	mkdir -p "$tmp/cwd"
	(cd "$tmp/cwd" && exec "$bin" "$@") >"$tmp/out" 2>"$tmp/err" </dev/null
	_rc=$?
	if [ $_rc -le 2 ] && ! grep -qE 'Sanitizer|runtime error:' "$tmp/err"; then
		ok "$_d"
	else
		nok "$_d: exit $_rc"
		sed 's/^/#   /' "$tmp/err" | head -n 5
	fi
}

"$bin" --help >"$tmp/help" 2>&1
_rc=$?
if [ $_rc != 0 ]; then
	echo "Bail out! $prog --help exits $_rc"
	exit 1
fi
ok "--help exits 0"

# One line per option: "NAME TYPE SHORT METAVAR MIN MAX CHOICES" ('-' when absent).
"$bin" --help-options >"$tmp/opts" 2>"$tmp/err"
_rc=$?
nopts=$(wc -l <"$tmp/opts")
if [ $_rc != 0 ] || [ "$nopts" -lt 5 ]; then
	echo "Bail out! $prog --help-options exits $_rc with $nopts options"
	exit 1
fi
ok "read $nopts typed options from --help-options"
# Both listings come from one table: an option missing from either would
# escape these checks.
sed -n 's/^  *\(-., \)\{0,1\}--\([a-z0-9-]*\).*$/\2/p' "$tmp/help" | sort >"$tmp/names.help"
cut -d' ' -f1 "$tmp/opts" | sort >"$tmp/names.opts"
if cmp -s "$tmp/names.help" "$tmp/names.opts"; then
	ok "--help and --help-options list the same options"
else
	nok "--help and --help-options list different options"
	diff "$tmp/names.help" "$tmp/names.opts" | sed 's/^/#   /' | head -n 10
fi

long=$(head -c 65536 /dev/zero | tr '\0' 7)
# expect_out_of_range NAME MIN MAX: the values just outside [MIN, MAX]
expect_out_of_range() {
	if [ "$2" != - ] && [ "$2" -gt 0 ] 2>/dev/null; then
		expect_usage "--$1=$(($2 - 1)) (below the minimum $2)" "$1" "--$1=$(($2 - 1))"
	fi
	# MAX + 1 in shell arithmetic only below 2^63.
	if [ "$3" != - ] && [ ${#3} -le 18 ]; then
		expect_usage "--$1=$(($3 + 1)) (above the maximum $3)" "$1" "--$1=$(($3 + 1))"
	fi
}
while read -r name type short meta min max choices; do
	case $name in help | version | help-man | help-stats | help-options) continue ;; esac
	if [ "$type" = flag ]; then
		# A flag: a value, a negation or a misspelling must be refused.
		expect_usage "--$name=1 (flag with a value)" "$name" "--$name=1"
		expect_usage "--$name-x (misspelt)" "$name-x" "--$name-x"
		continue
	fi
	expect_usage "--$name without a value" "$name" "--$name"
	expect_usage "--$name= (empty)" "$name" "--$name="
	[ "$short" != - ] && expect_usage "-$short '' (empty)" "$name" "-$short" ""
	case $type in
	u64)
		for v in -1 -0 +5 abc 12abc 0x 0xg " 7" "7 " 1.5 1e400 nan inf -inf \
			18446744073709551616 99999999999999999999999999 "$long"; do
			expect_usage "--$name='$(echo "$v" | head -c 24)' (not a valid integer)" \
				"$name" "--$name=$v"
		done
		expect_out_of_range "$name" "$min" "$max"
		;;
	double)
		for v in -1 -0 +5 abc 12abc " 7" "7 " 1,5 0x1p 1e400 nan inf -inf "$long"; do
			expect_usage "--$name='$(echo "$v" | head -c 24)' (not a valid number)" \
				"$name" "--$name=$v"
		done
		expect_out_of_range "$name" "$min" "$max"
		;;
	custom)
		case $meta in
		CPUS | CPULIST | LIST | MASK | DOMAIN | CPUMASK)
			for v in 0-999999 4294967296 0-4294967296 99999 -1 3-1 0-- ",," 0,,1 0x 0xzz \
				0x10000000000000000000000000000000000000000000000000000000000000000000000 \
				garbage; do
				expect_usage "--$name='$v' (not a usable CPU list)" "$name" "--$name=$v"
			done
			;;
		*)
			# -2, not -1: upstream's spelling of "off" for some (brisk's -I -1).
			for v in -2 +5 "$long" garbage; do
				expect_usage "--$name='$(echo "$v" | head -c 24)' (not a valid value)" \
					"$name" "--$name=$v"
			done
			;;
		esac
		;;
	string)
		if [ -z "$strict" ]; then
			# A free string (a path): odd values may be valid; only no crash.
			for v in "$long" "/nonexistent/$long" "$(printf 'a\tb')" "$tmp/no/such/dir/x"; do
				expect_no_crash "--$name='$(echo "$v" | head -c 24)' does not crash" \
					"--$name=$v"
			done
		fi
		;;
	esac
	if [ "$choices" != - ]; then
		first=${choices%%|*}
		up=$(echo "$first" | tr a-z A-Z)
		for v in bogus "$up" "$first,$first" "$first " 0 -1; do
			expect_usage "--$name='$v' (unknown choice)" "$name" "--$name=$v"
		done
	fi
done <"$tmp/opts"

expect_usage "unknown long option" "no-such-option" --no-such-option
expect_usage "unknown short option" "-Z" -Z
expect_usage "stray positional argument" "stray" stray
expect_usage "--stats and --monitor together" "monitor" --stats 1 --monitor 1

done_testing
exit 0
