#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# explain's version table end to end: the logs of tests/data/versions (written in the formats
# NCCL v2.21.5-1, PyTorch and nvidia-smi print; their README says which) give the version
# findings and fixes rules/versions.catalog says, a healthy log gives none, and a malformed
# COMMDIAG_VERSIONS is exit 2 naming the file and the line with nothing on stdout.
# Usage: tests/run_versions.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-versions.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export NO_COLOR=1 COMMDIAG_DETERMINISTIC=1
unset COMMDIAG_VERSIONS COMMDIAG_CAUSES
# shellcheck disable=SC2034 # read by tests/lib.sh
FAIL_PREFIX="versions: "
# shellcheck source=tests/lib.sh
. tests/lib.sh
D=tests/data/versions

# a GPU newer than the build: PyTorch's fix first (its kernels run first), then NCCL's
run "arch too new" 1 "$BIN" explain "$D/arch-too-new.log"
out_has "arch too new: pytorch" "FAIL  LOG024  gpu5090 pytorch sm_120: this PyTorch build has no kernels for the GPU's sm_120"
out_has "arch too new: nccl" "FAIL  LOG024  gpu5090 nccl sm_120: NCCL 2.21.5 built with CUDA 12.4 has only PTX, no machine code, for the GPU's sm_120"
out_has "arch too new: row" "versions.catalog:"
run "arch too new --shell" 1 "$BIN" explain --shell "$D/arch-too-new.log"
first=$(head -n 1 "$TMP/out")
case $first in
"# install a PyTorch build made with CUDA 12.8 or later whose torch.cuda.get_arch_list() includes sm_120"*) ok ;;
*) bad "arch too new: first recommendation is '$first'" ;;
esac
out_has "arch too new: nccl fix" "# upgrade NCCL to 2.25.1 or later, built with CUDA 12.8 or later"

run "driver too old" 1 "$BIN" explain "$D/driver-too-old.log"
out_has "driver too old" "FAIL  LOG024  node7 cuda driver: the NVIDIA driver supports CUDA 11.4; NCCL was built with CUDA 12.4, which needs a CUDA 12 driver"
out_has "driver too old: fix" "upgrade the NVIDIA driver to 525 or later (the minimum for CUDA 12.x)"

run "skew" 0 "$BIN" explain "$D/skew.log"
out_has "skew: driver" "WARN  LOG009  nodeB cuda driver api: cuda driver api versions differ between ranks or hosts"
out_has "skew: evidence" "nodeA has cuda driver api 12.4, nodeB has 12.2"
out_has "skew: build" "WARN  LOG009  nodeB nccl cuda build"

run "healthy" 0 "$BIN" explain "$D/healthy.log"
if grep -qE 'LOG024|LOG009|sm_|cuda driver|nvidia driver' "$TMP/out"; then bad "healthy: a version finding: $(grep -E 'LOG024|LOG009' "$TMP/out")"; else ok; fi
run "healthy json" 0 "$BIN" explain --json "$D/healthy.log"
json_true "healthy json: no LOG024 or LOG009" "$TMP/out" \
	'not any(f["id"] in ("LOG024", "LOG009") for f in d["findings"])'

# the table replaced: a malformed one is refused with its line; a good one is used
printf '# mine\ncuda-driver 12 525 | a source\nnccl-build 2.21.5 2.21.5 12.0 - 90,sm_100 90 | s\n' >"$TMP/bad.catalog"
COMMDIAG_VERSIONS="$TMP/bad.catalog" run "malformed table" 2 "$BIN" explain "$D/healthy.log"
err_has "malformed table" "$TMP/bad.catalog:3: expected a list of architectures like 80,90,100, got 'sm_100'"
if [ -s "$TMP/out" ]; then bad "malformed table: something on stdout"; else ok; fi
COMMDIAG_VERSIONS="$TMP/missing.catalog" run "missing table" 2 "$BIN" explain "$D/healthy.log"
err_has "missing table" "COMMDIAG_VERSIONS '$TMP/missing.catalog' cannot be opened"
printf 'cuda-driver 12 600 | a stricter site table\n' >"$TMP/site.catalog"
COMMDIAG_VERSIONS="$TMP/site.catalog" run "site table" 1 "$BIN" explain "$D/healthy.log"
out_has "site table" "NVIDIA driver 550.54.15 is older than CUDA 12.x needs (600)"

echo "versions: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
