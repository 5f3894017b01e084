#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run.sh HARNESS CORPUS_DIR SECONDS [SEED_DIR...] - a short libFuzzer run
# for CI. SEED_DIRs are read like the corpus (a scheduler's examples/, so
# they are not copied into corpus/).
# New inputs go to a scratch directory, so the committed corpus only
# changes when someone copies a finding into it on purpose. A crash leaves
# its reproducer in the build directory and fails the test.
set -eu
harness=$1 corpus=$2 secs=$3
shift 3
scratch=$(mktemp -d "${TMPDIR:-/tmp}/fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
artifacts=$(dirname "$harness")/fuzz-artifacts/$(basename "$harness")/
mkdir -p "$artifacts"
exec "$harness" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -max_len=8192 \
	-print_final_stats=1 -close_fd_mask=3 -artifact_prefix="$artifacts" "$scratch" "$corpus" "$@"
