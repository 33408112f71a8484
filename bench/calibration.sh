#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The confusion table of the calibration corpus (tests/data/calibration, issue 16): per rule id,
# the cases where it fired as expected (TP), fired unexpected (FP) and stayed silent though
# expected (FN), for the tune and the holdout parts; per part, the cases judged right in every
# respect; then each case's verdict. The holdout part is written from independent sources: tune
# rules on the tune part only, read the holdout line as the estimate.
# Usage: bench/calibration.sh [./commdiag] [CASE...]     (needs python3; no hardware)
set -eu
BIN=$(realpath "${1:-./commdiag}")
shift $(($# > 0 ? 1 : 0))
cd "$(dirname "$0")/.."
exec python3 tests/calibration.py table "$BIN" "$@"
