#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# How well `commdiag import nccl-tests` reads real outputs (issue 21): every file of
# tests/data/nccl-tests/CORPUS.tsv imported, its collective (or the candidates a table cannot
# tell apart) and its peak busbw to the printed digits checked, per file a line, then the
# tune and holdout accuracy. The holdout part is never tuned on: read its line as the estimate.
# Usage: bench/import_accuracy.sh [./commdiag]      (needs python3; no hardware)
set -eu
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.."
exec python3 tests/nccl_corpus.py "$BIN" tests/data/nccl-tests
