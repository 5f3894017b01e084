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
# Option kinds come from the metavar --help prints: numbers (US, MS, NS, N,
# SEC, BYTES, PCT, TGID, ...), choices "(a|b|c)", CPU lists (CPUS, LIST,
# MASK, DOMAIN), anything else is a free string.
strict=
[ "$1" = --strict ] && { strict=1; shift; }
bin=$1
# Absolute, because free-string values run from a scratch directory.
case $bin in */*) bin=$(cd "$(dirname "$bin")" && pwd)/${bin##*/} ;; esac
[ -n "$bin" ] || { echo "usage: rel-badinput.sh [--strict] BINARY" >&2; exit 2; }
if ! command -v "$bin" >/dev/null 2>&1 && [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not found"
	exit 77
fi
prog=${bin##*/}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/badinput.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }

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

# One line per option: "NAME METAVAR SHORT CHOICES" ('-' when absent).
sed -n 's/^  *\(-\(.\), \)\{0,1\}--\([a-z0-9-]*\)\(=\([A-Z_]*\)\)\{0,1\}.*$/\3:\5:\2/p' "$tmp/help" |
	while IFS=: read -r name meta short; do
		ch=$(grep -E -- "--$name(=| )" "$tmp/help" | head -n 1 |
			sed -n 's/.*(\([a-z0-9]*\(|[a-z0-9]*\)\{1,\}\)).*/\1/p')
		echo "$name ${meta:--} ${short:--} ${ch:--}"
	done >"$tmp/opts"
nopts=$(wc -l <"$tmp/opts")
if [ "$nopts" -lt 5 ]; then
	echo "Bail out! could not read the option table from $prog --help ($nopts options)"
	exit 1
fi
ok "read $nopts options from --help"

long=$(head -c 65536 /dev/zero | tr '\0' 7)
while read -r name meta short choices; do
	case $name in help | version | help-man | help-stats) continue ;; esac
	if [ "$meta" = - ]; then
		# A flag: a value, a negation or a misspelling must be refused.
		expect_usage "--$name=1 (flag with a value)" "$name" "--$name=1"
		expect_usage "--$name-x (misspelt)" "$name-x" "--$name-x"
		continue
	fi
	expect_usage "--$name without a value" "$name" "--$name"
	expect_usage "--$name= (empty)" "$name" "--$name="
	[ "$short" != - ] && expect_usage "-$short '' (empty)" "$name" "-$short" ""
	case $meta in
	US | MS | NS | N | SEC | BYTES | PCT | HZ | KHZ | MHZ | COUNT | TGID | PID | LEVEL | NUM | \
		*_US | *_MS | *_NS | WEIGHT | FACTOR | RATIO | DEPTH | MIB | KB)
		for v in -1 -0 +5 abc 12abc 0x 0xg " 7" "7 " 1e400 nan inf -inf \
			18446744073709551616 99999999999999999999999999 "$long"; do
			expect_usage "--$name='$(echo "$v" | head -c 24)' (not a valid number)" \
				"$name" "--$name=$v"
		done
		;;
	CPUS | CPULIST | LIST | MASK | DOMAIN | CPUMASK)
		for v in 0-999999 4294967296 0-4294967296 99999 -1 3-1 0-- ",," 0,,1 0x 0xzz \
			0x10000000000000000000000000000000000000000000000000000000000000000000000 \
			garbage; do
			expect_usage "--$name='$v' (not a usable CPU list)" "$name" "--$name=$v"
		done
		;;
	*)
		if [ "$choices" = - ] && [ -z "$strict" ]; then
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

echo "1..$n"
[ $fail = 0 ] || { echo "# $fail of $n checks failed"; exit 1; }
exit 0
