#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# commdiag merge: per-node documents (tests/data/docs/fleet, and fleets written by its
# make-fleet.py into a temporary directory) become one fleet document; the cross-host rules
# fire on it (HOST001 duplicate hostname and machine-id, HOST002 NCCL skew, HOST003 interface
# names, HOST004 RDMA devices, BAL002 a slow host), each host gets a verdict in text and JSON,
# every format renders, the JSON reads back byte for byte, a merged document merges again,
# the same file twice is merged once, and bad inputs (an empty directory, a file that is not
# a document, another schema, an import) exit 2 naming the file with nothing written. A
# repeated --from is an error. No test asserts a duration.
# Usage: tests/run_merge.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-merge.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export NO_COLOR=1 COMMDIAG_DETERMINISTIC=1
# shellcheck disable=SC2034 # read by tests/lib.sh
FAIL_PREFIX="merge: "
# shellcheck source=tests/lib.sh
. tests/lib.sh
FLEET=tests/data/docs/fleet
MAKE="python3 $FLEET/make-fleet.py"

# --- Done means: three nodes, node03 claiming node01's hostname (and machine-id) ---
run "fleet" 1 "$BIN" merge "$FLEET/nodes/node01.json" "$FLEET/nodes/node02.json" "$FLEET/nodes/node03.json"
out_has "fleet HOST001" "FAIL  HOST001 node01 node01: two hosts of the job report the same identity"
out_has "fleet HOST001 files" "host 0 (from '$FLEET/nodes/node01.json') and host 2 (from '$FLEET/nodes/node03.json') are separate hosts of the merged fleet"
out_has "fleet verdicts" "# verdicts (3 hosts of 3 merged documents: 1 pass, 0 warn, 2 fail)"
out_has "fleet verdict node02" "  node02                   pass  -  ($FLEET/nodes/node02.json)"
out_has "fleet verdict node03" "  node01                   fail  HOST001  ($FLEET/nodes/node03.json)"
out_has "fleet title" "commdiag 0.1.0 merge · 3 ranks · 3 hosts"
# a directory: its *.json files by name, the same document
run "fleet dir json" 1 "$BIN" merge "$FLEET/nodes" --json
cp "$TMP/out" "$TMP/dir.json"
json_true "fleet dir" "$TMP/dir.json" "[m['file'] for m in d['run']['merged']] == ['$FLEET/nodes/node0%d.json' % i for i in (1, 2, 3)]"
json_true "fleet json verdicts" "$TMP/dir.json" "d['verdicts']['fail'] == 2 and [h['verdict'] for h in d['verdicts']['hosts']] == ['fail', 'pass', 'fail'] and d['verdicts']['hosts'][2]['rules'] == ['HOST001'] and d['verdicts']['hosts'][2]['file'].endswith('node03.json')"
json_true "fleet json mode" "$TMP/dir.json" "d['run']['mode'] == 'merge' and len(d['hosts']) == 3 and [f['id'] for f in d['findings'] if f['severity'] == 'fail'] == ['HOST001']"
# the committed merged document is this one, and reads back byte for byte
if cmp -s "$TMP/dir.json" "$FLEET/merged.json"; then ok; else bad "merge $FLEET/nodes --json differs from $FLEET/merged.json (regenerate it: see $FLEET/README)"; fi
run "round trip" 1 "$BIN" report --from "$FLEET/merged.json" --json
if cmp -s "$TMP/out" "$FLEET/merged.json"; then ok; else bad "report --from merged.json --json does not reproduce it byte for byte"; fi
run "report text" 1 "$BIN" report --from "$FLEET/merged.json"
out_has "report text verdicts" "# verdicts (3 hosts of 3 merged documents: 1 pass, 0 warn, 2 fail)"
# score re-judges a fleet document as merge did
run "score fleet" 1 "$BIN" score "$FLEET/merged.json" --json
if cmp -s "$TMP/out" "$FLEET/merged.json"; then ok; else bad "score merged.json --json differs from merge's document"; fi
for fmt in prometheus html; do
	run "format $fmt" 1 "$BIN" merge "$FLEET/nodes" --format "$fmt"
	out_has "format $fmt host" "node02"
done
run "fail-on warn" 1 "$BIN" merge "$FLEET/nodes" --fail-on warn -q
run "-o" 1 "$BIN" merge "$FLEET/nodes" --json -o "$TMP/o.json"
if [ ! -s "$TMP/out" ] && cmp -s "$TMP/o.json" "$FLEET/merged.json"; then ok; else bad "-o: stdout not empty or the file differs"; fi

# --- a merged document merged again lists the original files ---
$MAKE "$TMP/more" --count 4 >/dev/null
run "merge merged" 1 "$BIN" merge "$FLEET/merged.json" "$TMP/more/node04.json" --json
cp "$TMP/out" "$TMP/again.json"
json_true "merge merged files" "$TMP/again.json" "[m['file'] for m in d['run']['merged']][-2:] == ['$FLEET/nodes/node03.json', '$TMP/more/node04.json'] and len(d['hosts']) == 4"

# --- the same bytes twice: merged once, with a warning ---
run "same file twice" 0 "$BIN" merge "$FLEET/nodes/node02.json" "$FLEET/nodes/node02.json" "$TMP/more/node01.json"
err_has "same file twice" "merge: '$FLEET/nodes/node02.json' has the same bytes as '$FLEET/nodes/node02.json': merged once"
out_has "same file twice hosts" "2 hosts of 2 merged documents: 2 pass"

# --- the other cross-host rules on fleets (a healthy fleet first: nothing) ---
$MAKE "$TMP/healthy" --count 5 >/dev/null
run "healthy fleet" 0 "$BIN" merge "$TMP/healthy" --fail-on warn
out_has "healthy verdicts" "5 hosts of 5 merged documents: 5 pass, 0 warn, 0 fail"
out_has "healthy findings" "# findings (0)"
$MAKE "$TMP/same-name" 2:name=node01 >/dev/null
run "same name, other machine-id" 0 "$BIN" merge "$TMP/same-name"
out_has "same name warn" "WARN  HOST001 node01 node01"
$MAKE "$TMP/skew" --count 4 3:nccl=2.19.3 >/dev/null
run "version skew" 1 "$BIN" merge "$TMP/skew"
out_has "version skew HOST002" "FAIL  HOST002 n/a nccl: versions differ between hosts"
out_has "version skew evidence" "nccl 2.19.3 on node03"
out_has "version skew verdict" "(fleet: no one host)     fail  HOST002"
$MAKE "$TMP/iface" --count 3 2:iface=eth0/enp1s0 >/dev/null
run "interface names" 0 "$BIN" merge "$TMP/iface"
out_has "interface names HOST003" "WARN  HOST003 n/a interfaces: interface names differ between hosts"
$MAKE "$TMP/hca" --count 3 3:nohca=mlx5_7 >/dev/null
run "hca sets" 0 "$BIN" merge "$TMP/hca"
out_has "hca sets HOST004" "WARN  HOST004 n/a RDMA devices: RDMA devices differ between hosts"
# 20 % slower: BAL002 among the hosts (and the profile's floors on that host too)
$MAKE "$TMP/slow" --count 6 4:slow=1.2 >/dev/null
run "slow host" 1 "$BIN" merge "$TMP/slow" --json
cp "$TMP/out" "$TMP/slow.json"
json_true "slow host BAL002" "$TMP/slow.json" "[(f['host'], f['subject']) for f in d['findings'] if f['id'] == 'BAL002'] == [('node04', 'node04')] * len([f for f in d['findings'] if f['id'] == 'BAL002']) and any(f['id'] == 'BAL002' for f in d['findings'])"
json_true "slow host verdict" "$TMP/slow.json" "[h['host'] for h in d['verdicts']['hosts'] if 'BAL002' in h['rules']] == ['node04'] and [h['verdict'] for h in d['verdicts']['hosts']] == ['pass'] * 3 + ['fail'] + ['pass'] * 2"
# each node's all_reduce is one host's: judged against the single-host floor, not "across 6 hosts"
json_true "slow host scope" "$TMP/slow.json" "not any('across' in n['reason'] for n in d['rules']['not_evaluated'])"

# --- bad inputs: exit 2, the file named, nothing written ---
bad_merge() { # NAME EXPECTED-STDERR ARGS...
	local name=$1 msg=$2
	shift 2
	rm -f "$TMP/bad-o.json"
	run "$name" 2 "$BIN" merge "$@" -o "$TMP/bad-o.json"
	err_has "$name" "$msg"
	if [ ! -s "$TMP/out" ] && [ ! -e "$TMP/bad-o.json" ]; then ok; else bad "$name: something was written"; fi
}
mkdir -p "$TMP/empty" && echo 'not json' >"$TMP/empty/notes.txt"
bad_merge "empty dir" "commdiag: merge: directory '$TMP/empty' has no .json file: expected the documents of 'commdiag check --json' (NAME.json)" "$TMP/empty"
echo '{"hello": 1}' >"$TMP/notdoc.json"
bad_merge "not a document" "commdiag: results: '$TMP/notdoc.json': schema: missing: not a commdiag results document" "$FLEET/nodes/node01.json" "$TMP/notdoc.json"
sed 's/"schema":\t1,/"schema":\t3,/' "$FLEET/nodes/node02.json" >"$TMP/schema3.json"
bad_merge "other schema" "commdiag: results: '$TMP/schema3.json': schema: this commdiag reads schema 1 and 2, the document has schema 3" "$FLEET/nodes/node01.json" "$TMP/schema3.json"
bad_merge "missing file" "commdiag: merge: cannot open '$TMP/nothere.json': No such file or directory" "$TMP/nothere.json"
head -c 300 "$FLEET/nodes/node02.json" >"$TMP/cut.json"
bad_merge "cut short" "commdiag: results: '$TMP/cut.json': line" "$FLEET/nodes/node01.json" "$TMP/cut.json"
printf '# nccl-tests\n#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n        8 2 float sum -1 10.0 0.00 0.00 0 10.0 0.00 0.00 0\n' >"$TMP/nt.log"
"$BIN" import nccl-tests "$TMP/nt.log" --json >"$TMP/import.json" 2>/dev/null
bad_merge "an import" "commdiag: merge: '$TMP/import.json': run.mode is 'import': expected the document of check, probe, topo or merge" "$TMP/import.json"
bad_merge "stdin" "commdiag: merge: '-': standard input is one document; name the files or a directory" -
run "no argument" 2 "$BIN" merge
err_has "no argument" "commdiag: merge: which documents? use 'commdiag merge FILE.json... | DIR'"
run "bad -D" 2 "$BIN" merge "$FLEET/nodes" -D nosuch.key=1
if [ ! -s "$TMP/out" ]; then ok; else bad "bad -D: a report was written"; fi

# --- repeated --from is an error on the commands that take one document ---
for c in report check advise env; do
	run "$c --from twice" 2 "$BIN" "$c" --from "$FLEET/nodes/node01.json" --from "$FLEET/nodes/node02.json"
	err_has "$c --from twice" "commdiag: option '--from' given twice ('$FLEET/nodes/node01.json', '$FLEET/nodes/node02.json'): it takes one document; 'commdiag merge FILE...|DIR' puts many into one"
done

schema_check "$FLEET"

echo "merge: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
