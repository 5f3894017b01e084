#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bpf-compat-check.sh TOP - BPF code goes through the shared compat layer.
#
# A kfunc that include/scxkit/compat.bpf.h wraps (renamed or versioned
# between 6.12 and the newest kernel) must not be called by its own name
# anywhere else: a direct call silently does nothing on kernels where only
# the other name exists (cadence_cpu_release did this). Likewise
# task_struct.migration_disabled is read only by scxk_migration_disabled(),
# which knows when the count includes the BPF program's own.
# Prints TAP; exit 1 on a finding.
. "$(dirname "$0")/../lib/tap.sh"
top=${1:-.}
cd "$top" || exit 2

bpf_files=$(ls scheds/*/*.bpf.c scheds/*/*.bpf.h common/*/*.bpf.c include/scxkit/*.bpf.h 2>/dev/null |
	grep -v 'include/scxkit/compat.bpf.h')
wrapped=$(sed -n 's/.*\b\(scx_bpf_[a-z_]*\)___scxk\b.*/\1/p' include/scxkit/compat.bpf.h |
	sed 's/___v[0-9]*$//' | sort -u)
[ -n "$wrapped" ] || { _report 1 "no wrapped kfuncs found in compat.bpf.h"; done_testing; }
for k in $wrapped; do
	hits=$(grep -nE "\\b$k\\b *\\(|bpf_ksym_exists\\( *$k *\\)" $bpf_files 2>/dev/null)
	_report "$( [ -z "$hits" ]; echo $?)" "$k only through its compat wrapper"
	[ -z "$hits" ] || echo "$hits" | sed 's/^/#   /'
done
hits=$(grep -n 'migration_disabled\b' $bpf_files | grep -v 'include/scxkit/common.bpf.h' |
	grep -vE 'scxk_migration_disabled|SCX_OPS_ENQ_MIGRATION_DISABLED|/?\*')
_report "$( [ -z "$hits" ]; echo $?)" "p->migration_disabled read only by scxk_migration_disabled()"
[ -z "$hits" ] || echo "$hits" | sed 's/^/#   /'
done_testing
