#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# explain's learning curve (issue 17): builds commdiag at earlier commits of this repository and
# measures each build with today's bench/explain_accuracy.sh on today's corpus, so every build
# meets the same logs, the same labels and the same scorer. Prints, per build, the catalogue's
# size and the tune, clean-holdout and fix-bearing-holdout counts: how the estimate on logs
# never tuned on grows with the catalogue. Builds in a temporary git worktree; no hardware.
# Usage: bench/explain_learning_curve.sh [COMMIT ...]   (default: HEAD and the first commit of
# every 150 since rules/causes.catalog appeared; about two minutes a build on two cores)
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-curve.XXXXXX")
trap 'git worktree remove --force "$TMP/tree" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
if [ $# -eq 0 ]; then
	first=$(git log --reverse --format=%H -- rules/causes.catalog | head -1)
	[ -n "$first" ] || { echo "explain_learning_curve: no commit has rules/causes.catalog" >&2; exit 2; }
	set -- $(git rev-list --reverse "$first^..HEAD" | awk 'NR % 150 == 1') HEAD
fi
git worktree add -q --detach "$TMP/tree" HEAD || exit 2
# the fix-bearing holdout: clean holdout rows whose INDEX expects a fix, not "-"
grep -v '^#' tests/data/logs/HOLDOUT | sed '/^$/d' >"$TMP/holdout"
awk -F'\t' '!/^#/ && NF && $5 != "-" { print $1 }' tests/data/logs/INDEX >"$TMP/fixrows"
printf '%-12s %8s %14s %14s %18s\n' commit entries "tune first" "holdout first" "holdout, a fix"
for c in "$@"; do
	sha=$(git rev-parse --short=10 "$c^{commit}" 2>/dev/null) || { echo "explain_learning_curve: $c is no commit" >&2; exit 2; }
	(cd "$TMP/tree" && git checkout -q -f "$sha" && git clean -qfdx && make -j"$(nproc)" commdiag >"$TMP/build.log" 2>&1) ||
		{ echo "$sha: build failed (see a build of it by hand)" >&2; continue; }
	n=0
	[ -f "$TMP/tree/rules/causes.catalog" ] && n=$(grep -c '^\[' "$TMP/tree/rules/causes.catalog")
	bash bench/explain_accuracy.sh "$TMP/tree/commdiag" >"$TMP/acc" 2>/dev/null
	# the per-log verdicts: rerun the first-recommendation rule on the fix-bearing holdout rows
	fix=0 of=0
	while IFS=$'\t' read -r file _s _c _f expect; do
		case "$file" in '#'* | '') continue ;; esac
		grep -qxF -- "$file" "$TMP/holdout" && grep -qxF -- "$file" "$TMP/fixrows" || continue
		grep -qxF -- "$file" <(grep -v '^#' tests/data/logs/holdout-tainted.tsv | cut -f1) && continue
		of=$((of + 1))
		"$TMP/tree/commdiag" explain "tests/data/logs/$file" --shell 2>/dev/null | sed '/^$/d' | head -1 | grep -qF -- "$expect" &&
			fix=$((fix + 1))
	done <tests/data/logs/INDEX
	printf '%-12s %8d %14s %14s %18s\n' "$sha" "$n" \
		"$(awk '$1 == "tune" && $2 == "ALL" { print $5 "/" $3 }' "$TMP/acc")" \
		"$(awk '$1 == "holdout" && $2 == "ALL" { print $5 "/" $3 }' "$TMP/acc")" "$fix/$of"
done
