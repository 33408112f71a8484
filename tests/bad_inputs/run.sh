#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The bad-input catalogue (docs/FUZZING.md, "Bad input"): every kind of bad input, each with its
# exact exit status (2), its exact message on stderr, nothing on stdout, and no -o
# file (nor its temporary file) left behind. Usage: tests/bad_inputs/run.sh ./commdiag
# Inputs are the files beside this script, plus a few made at run time (a huge file,
# an unreadable one, a fake NCCL). CD_WRAP="valgrind …" runs each case under a wrapper
# (the huge inputs are skipped then: they test the refusal, not the wrapper's speed).
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")" || exit 2
D=$PWD
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-bad.XXXXXX")
trap 'chmod -R u+rwx "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
O=$TMP/out/report.json # every case that takes -o writes here, or must not
mkdir -p "$TMP/out"
export NO_COLOR=1
read -ra WRAP <<<"${CD_WRAP:-}"
pass=0 fail=0 skip=0

# bad NAME 'EXPECTED STDERR' ARGS...: exit 2, exactly that message, stdout empty, $TMP/out empty.
# IN (default /dev/null) is the standard input; ENV (an array) is added to the environment.
IN=/dev/null
ENV=()
bad() {
	local name=$1 want=$2 got
	shift 2
	env "${ENV[@]}" "${WRAP[@]}" "$BIN" "$@" >"$TMP/stdout" 2>"$TMP/stderr" <"$IN"
	got=$?
	IN=/dev/null
	ENV=()
	if [ "$got" != 2 ]; then
		fail=$((fail + 1)); echo "FAIL: $name: exit $got, expected 2: $(head -c 300 "$TMP/stderr")" >&2
	elif [ "$(cat "$TMP/stderr")" != "$want" ]; then
		fail=$((fail + 1)); printf 'FAIL: %s: stderr\n  got:  %s\n  want: %s\n' "$name" "$(cat "$TMP/stderr")" "$want" >&2
	elif [ -s "$TMP/stdout" ]; then
		fail=$((fail + 1)); echo "FAIL: $name: stdout not empty" >&2
	elif [ -n "$(ls -A "$TMP/out")" ]; then
		fail=$((fail + 1)); echo "FAIL: $name: left $(ls -A "$TMP/out") behind" >&2
		rm -rf "${TMP:?}/out/"* "$TMP"/out/.[!.]*
	else
		pass=$((pass + 1))
	fi
}
skip() { skip=$((skip + 1)); echo "SKIP: $*" >&2; }
E="commdiag:"

# --- the command line ---
bad "unknown command" "$E unknown command 'frobnicate', try 'commdiag help'" frobnicate -o "$O"
bad "unknown long option" "$E unknown option '--frobnicate', try 'commdiag help'" check --frobnicate -o "$O"
bad "unknown short option" "$E unknown option '-Z', try 'commdiag help'" check -Z -o "$O"
bad "option without its value" "$E option '--timeout' needs a value" check -o "$O" --timeout
bad "short option without its value" "$E option '-o' needs a value" check -o
bad "option for the wrong command" "$E option '--from' does not apply to 'topo', see 'commdiag help topo'" \
	topo --from "$D/wrong-type.json" -o "$O"
bad "stray argument" "$E check: unexpected argument 'extra'" check extra -o "$O"
bad "help for an unknown command" "$E help: unknown command 'frobnicate', try 'commdiag help'" help frobnicate
bad "--timeout -1" "$E option '--timeout': '-1' is not a number of seconds: expected a plain number above 0 and at most 31536000 (a year), like 120 or 0.5" check --timeout -1 -o "$O"
bad "--timeout abc" "$E option '--timeout': 'abc' is not a number of seconds: expected a plain number above 0 and at most 31536000 (a year), like 120 or 0.5" check --timeout abc -o "$O"
bad "--timeout 0" "$E option '--timeout': '0' is not a number of seconds: expected a plain number above 0 and at most 31536000 (a year), like 120 or 0.5" check --timeout 0 -o "$O"
bad "--timeout 1e3" "$E option '--timeout': '1e3' is not a number of seconds: expected a plain number above 0 and at most 31536000 (a year), like 120 or 0.5" check --timeout 1e3 -o "$O"
bad "--timeout 1e12" "$E option '--timeout': '1e12' is not a number of seconds: expected a plain number above 0 and at most 31536000 (a year), like 120 or 0.5" check --timeout 1e12 -o "$O"
bad "--timeout a year and a second" "$E option '--timeout': '31536001' is not a number of seconds: expected a plain number above 0 and at most 31536000 (a year), like 120 or 0.5" check --timeout 31536001 -o "$O"
bad "--format xml" "$E option '--format': unknown format 'xml': expected text, json, prometheus or html" check --format xml -o "$O"
# metrics and the page render the results document: the commands that write something else refuse them
for f in prometheus html; do
	H="does not render a results document; $f is for check, topo, probe NAME..., report, score, import, hang and compare"
	for c in rules env version advise; do
		bad "--format $f on $c" "$E option '--format $f': '$c' $H" "$c" --format $f -o "$O"
	done
	bad "--format $f on explain" "$E option '--format $f': 'explain' $H" explain "$D/wrong-type.json" \
		--format $f -o "$O"
	bad "--format $f on probe without a name" \
		"$E option '--format $f': 'probe' without a probe name lists the probes: it $H" probe --format $f -o "$O"
	bad "--format $f with --shell" \
		"$E option '--shell' writes shell lines: it cannot be combined with '--format $f'" \
		check --shell --format $f -o "$O"
done
bad "--format prometheus, bad document" "$E results: '$D/not-json.txt': line 1: not valid JSON (byte 0)" \
	report --from "$D/not-json.txt" --format prometheus -o "$O"
# a key given twice, deep in the document: refused with its path (readers disagree on which counts)
bad "a key twice" "$E results: '$D/duplicate-key.json': hosts[0].env: key 'NCCL_DEBUG' appears twice: expected each key once" \
	report --from "$D/duplicate-key.json" -o "$O"
bad "--fail-on critical" "$E option '--fail-on': unknown severity 'critical': expected info, warn or fail" \
	check --fail-on critical -o "$O"
bad "report without --from" "$E report: which document? use 'commdiag report --from FILE.json' ('-' for stdin)" \
	report -o "$O"
bad "--from with --topology" \
	"$E options '--from' and '--topology' exclude each other: a saved document has its topology" \
	check --from "$D/wrong-type.json" --topology "$D/nccl-topo.xml" -o "$O"
# the probes' size sweep and iterations
bad "-b 12Q" "$E -b: '12Q' is not a size like 8, 64K, 8M or 1G" check -b 12Q -o "$O"
bad "-n 0" "$E option '--iters': '0' is not a whole number from 1 to 1000000" probe copy -n 0 -o "$O"
bad "--probe-timeout -1" "$E option '--probe-timeout': '-1' is not a number of seconds: expected a plain number above 0 and at most 31536000 (a year), like 120 or 0.5" \
	probe copy --probe-timeout -1 -o "$O"
bad "unknown probe" "$E probe: unknown probe 'nosuch': see 'commdiag probe' for the list" probe copy nosuch -o "$O"
bad "--quick with --full" "$E options '--quick' and '--full' exclude each other" check --quick --full -o "$O"

# --- --from: the results document ---
R="$E results:"
bad "--from a missing file" "$R cannot open '$TMP/none.json': No such file or directory" \
	report --from "$TMP/none.json" -o "$O"
bad "--from a directory" "$R '$D' is a directory: expected a regular file ('-' reads standard input)" report --from "$D" -o "$O"
if [ "$(id -u)" != 0 ]; then
	echo '{"schema": 1}' >"$TMP/unreadable.json" && chmod 000 "$TMP/unreadable.json"
	bad "--from an unreadable file" "$R cannot open '$TMP/unreadable.json': Permission denied" \
		report --from "$TMP/unreadable.json" -o "$O"
else
	skip "--from an unreadable file: root reads everything (CI runs this as a normal user too)"
fi
bad "--from an empty file" "$R '$D/empty.json': empty input: expected a JSON document from 'commdiag --json'" \
	report --from "$D/empty.json" -o "$O"
bad "--from white space only" \
	"$R '$D/whitespace.json': empty input (white space only): expected a JSON document from 'commdiag --json'" \
	report --from "$D/whitespace.json" -o "$O"
bad "--from empty stdin" "$R '<stdin>': empty input: expected a JSON document from 'commdiag --json'" \
	report --from - -o "$O"
bad "--from a binary file" "$R '$D/binary.json': binary data (NUL byte at offset 26): expected JSON text" \
	report --from "$D/binary.json" -o "$O"
bad "--from a truncated file" "$R '$D/truncated.json': line 1: not valid JSON (byte 38)" \
	report --from "$D/truncated.json" -o "$O"
bad "--from text that is not JSON" "$R '$D/not-json.txt': line 1: not valid JSON (byte 0)" \
	report --from "$D/not-json.txt" -o "$O"
bad "--from two documents" "$R '$D/two-documents.json': line 2: unexpected data after the JSON document (byte 14)" \
	report --from "$D/two-documents.json" -o "$O"
bad "--from a JSON array" "$R '$D/top-array.json': expected a JSON object at the top level" \
	report --from "$D/top-array.json" -o "$O"
bad "--from JSON without a schema" "$R '$D/no-schema.json': schema: missing: not a commdiag results document" \
	check --from "$D/no-schema.json" -o "$O"
bad "--from another schema" \
	"$R '$D/wrong-schema.json': schema: this commdiag reads schema 1 and 2, the document has schema 99" \
	report --from "$D/wrong-schema.json" -o "$O"
bad "--from a compact document referring to a later host" \
	"$R '$D/compact-later-host.json': hosts[0].gpus.same_as: expected only the index of a host before this one (host 0)" \
	check --from "$D/compact-later-host.json" -o "$O"
bad "--from a compact document with a bad NVLink run" \
	"$R '$D/compact-bad-run.json': hosts[0].gpus[0].nvlinks[0].count: expected 2 to 36 links numbered up from a link index of 0 or more" \
	report --from "$D/compact-bad-run.json" -o "$O"
bad "--from a key of the wrong type" "$R '$D/wrong-type.json': hosts[0].nics[0].mtu: expected a number or null" \
	check --from "$D/wrong-type.json" -o "$O"
bad "--from an unknown value" "$R '$D/unknown-value.json': findings[0].severity: unknown value 'critical'" \
	report --from "$D/unknown-value.json" -o "$O"
bad "--from deeply nested JSON" \
	"$R '$D/deep.json': line 1: nested deeper than 64 levels (byte 64): not a results document" \
	report --from "$D/deep.json" -o "$O"
if [ -z "${CD_WRAP:-}" ]; then
	truncate -s 1100M "$TMP/huge.json" # sparse: no disk, and refused by its size before a byte is read
	bad "--from a file over 1024 MiB" "$R '$TMP/huge.json': larger than 1024 MiB: not a results document" \
		report --from "$TMP/huge.json" -o "$O"
	IN=$TMP/huge.json
	bad "--from over 1024 MiB on stdin" "$R '-': larger than 1024 MiB: not a results document" \
		report --from - -o "$O"
	head -c 200000000 /dev/zero | tr '\0' ' ' >"$TMP/spaces.json"
	bad "--from 200 MB of spaces" \
		"$R '$TMP/spaces.json': empty input (white space only): expected a JSON document from 'commdiag --json'" \
		report --from "$TMP/spaces.json" -o "$O"
	rm -f "$TMP/spaces.json"
	python3 -c 'import sys; sys.stdout.write("[" + "0," * (33 << 20) + "0]")' >"$TMP/many.json"
	bad "--from 33 Mi values" "$R '$TMP/many.json': line 1: more than 33554432 values (byte 67108862): not a results document" \
		report --from "$TMP/many.json" -o "$O"
	rm -f "$TMP/many.json" "$TMP/huge.json"
else
	skip "huge --from files under $CD_WRAP"
fi

# --- compare OLD NEW and --baseline: each document through the same loader, named ---
G=$D/../data/docs/h100-clean.json
bad "compare: one document" "$E compare: two documents: use 'commdiag compare OLD.json NEW.json'" compare "$G" -o "$O"
bad "compare: OLD not JSON" "$R '$D/not-json.txt': line 1: not valid JSON (byte 0)" compare "$D/not-json.txt" "$G" -o "$O"
bad "compare: NEW of another schema" \
	"$R '$D/wrong-schema.json': schema: this commdiag reads schema 1 and 2, the document has schema 99" \
	compare "$G" "$D/wrong-schema.json" -o "$O"
bad "compare: both from stdin" "$E compare: standard input ('-') can be one of the documents, not both" \
	compare - - -o "$O"
bad "compare: a bad -D" "$E option '-D': 'x' is not a number: expected a plain non-negative number, like '3.5'" compare "$G" "$G" -D baseline.noise_k=x -o "$O"
bad "--baseline an empty file" "$R '$D/empty.json': empty input: expected a JSON document from 'commdiag --json'" \
	check --from "$G" --baseline "$D/empty.json" -o "$O"
bad "score --baseline a JSON array" "$R '$D/top-array.json': expected a JSON object at the top level" \
	score "$G" --baseline "$D/top-array.json" -o "$O"

# --- merge: documents of many nodes (the loader's refusals above hold for each file) ---
F=$D/../data/docs/fleet/nodes
mkdir -p "$TMP/nojson" && : >"$TMP/nojson/notes.txt"
bad "merge: a directory without .json" \
	"$E merge: directory '$TMP/nojson' has no .json file: expected the documents of 'commdiag check --json' (NAME.json)" \
	merge "$TMP/nojson" -o "$O"
bad "merge: one file of another schema" \
	"$R '$D/wrong-schema.json': schema: this commdiag reads schema 1 and 2, the document has schema 99" \
	merge "$F/node01.json" "$D/wrong-schema.json" -o "$O"
bad "merge: a file that is not a document" "$R '$D/no-schema.json': schema: missing: not a commdiag results document" \
	merge "$F/node01.json" "$D/no-schema.json" -o "$O"
bad "merge: standard input" "$E merge: '-': standard input is one document; name the files or a directory" merge - -o "$O"
bad "merge: nothing named" "$E merge: which documents? use 'commdiag merge FILE.json... | DIR'" merge -o "$O"
bad "--from twice" \
	"$E option '--from' given twice ('$F/node01.json', '$F/node02.json'): it takes one document; 'commdiag merge FILE...|DIR' puts many into one" \
	report --from "$F/node01.json" --from "$F/node02.json" -o "$O"

# --- import nccl-tests: logs with nothing to import, bad numbers, bad JSON ---
I="$E import:"
NT=$D/../data/nccl-tests
bad "import without a format" "$I which format?: use 'commdiag import nccl-tests FILE...' ('-' for stdin)" import -o "$O"
bad "import an unknown format" \
	"$I unknown format 'ib-tests', the one known is nccl-tests: use 'commdiag import nccl-tests FILE...' ('-' for stdin)" \
	import ib-tests x.log -o "$O"
bad "import without a file" "$E import nccl-tests: which file? use 'commdiag import nccl-tests FILE...' ('-' for stdin)" \
	import nccl-tests -o "$O"
bad "import a missing file" "$I cannot open '$TMP/none.log': No such file or directory" \
	import nccl-tests "$TMP/none.log" -o "$O"
bad "import an empty file" \
	"$I '$D/empty.json': nothing to import: no size rows of an nccl-tests run (its text output, or the JSON of -J) in it" \
	import nccl-tests "$D/empty.json" -o "$O"
bad "import empty stdin" \
	"$I 'stdin': nothing to import: no size rows of an nccl-tests run (its text output, or the JSON of -J) in it" \
	import nccl-tests - -o "$O"
bad "import a binary file" \
	"$I '$BIN': nothing to import: no size rows of an nccl-tests run (its text output, or the JSON of -J) in it" \
	import nccl-tests "$BIN" -o "$O"
bad "import JSON with a NUL byte" "$I $D/binary.json: not nccl-tests JSON output: no \"results\" list" \
	import nccl-tests "$D/binary.json" -o "$O"
bad "import a log with a header and no table" \
	"$I '$NT/header-only-nccl-583.log': nothing to import: no size rows of an nccl-tests run (its text output, or the JSON of -J) in it" \
	import nccl-tests "$NT/header-only-nccl-583.log" -o "$O"
bad "import a row with a bad number" \
	"$I $D/nccl-tests-bad-number.log:5: '12.9.0' is not a number (time of the out-of-place columns)" \
	import nccl-tests "$D/nccl-tests-bad-number.log" -o "$O"
# a log that does not name its collective is no bad input since issue 21: told from its table (tests/run_e2e.sh)
bad "import --collective unknown" \
	"$E option '--collective': unknown collective 'allreduce': expected one of all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, alltoallv, sendrecv, gather, scatter, hypercube" \
	import nccl-tests "$NT/tagged-nccl-1453.log" --collective allreduce -o "$O"
bad "import truncated JSON" "$I $D/truncated.json: not valid JSON near byte 38" import nccl-tests "$D/truncated.json" -o "$O"
bad "import JSON that is not nccl-tests'" "$I $D/no-schema.json: not nccl-tests JSON output: no \"results\" list" \
	import nccl-tests "$D/no-schema.json" -o "$O"
bad "--collective on check" "$E option '--collective' does not apply to 'check', see 'commdiag help check'" \
	check --collective all_reduce -o "$O"
bad "--reach unknown mode" "$E option '--reach': unknown mode 'pairs': expected sample or all" \
	check --reach pairs -o "$O"
bad "--reach on report" "$E option '--reach' does not apply to 'report', see 'commdiag help report'" \
	report --reach all -o "$O"

# --- --topology: an hwloc XML export ---
T="$E topo: cannot load topology"
bad "--topology a missing file" "$T '$TMP/none.xml': No such file or directory" topo --topology "$TMP/none.xml" -o "$O"
bad "--topology an empty file" "$T '$D/empty.json': empty file" topo --topology "$D/empty.json" -o "$O"
bad "--topology JSON" \
	"$T '$D/wrong-type.json': not a valid hwloc XML topology (expected the output of 'lstopo --of xml')" \
	topo --topology "$D/wrong-type.json" -o "$O"
bad "--topology truncated hwloc XML" \
	"$T '$D/hwloc-truncated.xml': not a valid hwloc XML topology (expected the output of 'lstopo --of xml')" \
	check --topology "$D/hwloc-truncated.xml" -o "$O"
bad "--topology an NCCL topology file" \
	"$T '$D/nccl-topo.xml': an NCCL topology file (NCCL_TOPO_FILE), not an hwloc XML export (make one with 'lstopo --of xml FILE.xml')" \
	topo --topology "$D/nccl-topo.xml" -o "$O"
# found by tests/fuzz/fuzz_topology_xml: libxml2 kept ~3 KB of an unknown encoding in tables that
# went away with hwloc's XML plugin, a definite leak under valgrind (check-valgrind runs this)
bad "--topology XML in an encoding libxml2 does not know" \
	"$T '$D/hwloc-unknown-encoding.xml': not a valid hwloc XML topology (expected the output of 'lstopo --of xml')" \
	topo --topology "$D/hwloc-unknown-encoding.xml" -o "$O"
# found by tests/fuzz/fuzz_topology_xml: hwloc 2.9 dereferences NULL on it (hwloc#783)
bad "--topology XML that crashes hwloc" \
	"$T '$D/hwloc-crash.xml': hwloc crashed reading it (Segmentation fault): not a valid hwloc XML topology" \
	topo --topology "$D/hwloc-crash.xml" -o "$O"

# --- --nccl-lib: must be an NCCL ---
N="$E option '--nccl-lib':"
bad "--nccl-lib a missing file" \
	"$N $TMP/libnccl.so.2: cannot open shared object file: No such file or directory: expected an NCCL library (libnccl.so.2)" \
	version --nccl-lib "$TMP/libnccl.so.2" -o "$O"
libm=$(ldd "$BIN" 2>/dev/null | awk '$1 == "libm.so.6" { print $3; exit }')
if [ -n "$libm" ]; then
	bad "--nccl-lib a library that is not NCCL" \
		"$N $libm: symbol 'ncclGetVersion' not found: expected an NCCL library (libnccl.so.2)" \
		check --nccl-lib "$libm" -o "$O"
else
	skip "libm.so.6 not found by ldconfig"
fi
if command -v "${CC:-cc}" >/dev/null; then
	mkdir -p "$TMP/fake"
	"${CC:-cc}" -shared -fPIC -o "$TMP/fake/libnccl.so.2" "$D/../fake/fake_nccl.c"
	bad "--nccl-lib an NCCL whose calls fail" \
		"$N $TMP/fake/libnccl.so.2: ncclGetVersion failed (ncclResult_t 2): expected an NCCL library (libnccl.so.2)" \
		topo --nccl-lib "$TMP/fake/libnccl.so.2" -o "$O"
else
	skip "no C compiler: the fake NCCL is not built"
fi

# --- -o: the output file ---
bad "-o in a missing directory" "$E option '--output': cannot create '$TMP/out/no/such/dir/r.json': No such file or directory" \
	check -o "$TMP/out/no/such/dir/r.json"
bad "-o a directory" "$E option '--output': '$TMP/out' is a directory: expected a file name" check -o "$TMP/out"
bad "-o a name ending in /" "$E option '--output': '$TMP/out/x/' is a directory: expected a file name" check -o "$TMP/out/x/"
bad "-o empty" "$E option '--output': expected a file name" check -o ""
if [ "$(id -u)" != 0 ]; then
	mkdir "$TMP/ro" && chmod 555 "$TMP/ro"
	bad "-o in a read-only directory" "$E option '--output': cannot create '$TMP/ro/r.json': Permission denied" \
		check -o "$TMP/ro/r.json"
else
	skip "-o in a read-only directory: root writes everywhere (CI runs this as a normal user too)"
fi

# --- explain's version table (COMMDIAG_VERSIONS): refused with its line ---
ENV=(COMMDIAG_VERSIONS="$D/versions-bad.catalog")
bad "COMMDIAG_VERSIONS malformed" \
	"$E explain: $D/versions-bad.catalog:3: expected a list of architectures like 80,90,100, got 'sm_100'" \
	explain "$D/nccl-tests-bad-number.log" -o "$O"

# --- test-only fault knobs: a typo is an error, not a test that tests nothing ---
ENV=(COMMDIAG_TESTING=1 COMMDIAG_FAULT=probe.hnag)
bad "COMMDIAG_FAULT with an unknown fault" \
	"$E fault: COMMDIAG_FAULT='probe.hnag': 'probe.hnag': unknown fault: expected one of discover.stall, probe.hang, output.stall, slow_rank, hang_rank, mute_rank, die_rank, late_rank" \
	check -o "$O"
ENV=(COMMDIAG_TESTING=1 COMMDIAG_FAULT=discover.stall=disk)
bad "COMMDIAG_FAULT with a bad value" \
	"$E fault: COMMDIAG_FAULT='discover.stall=disk': 'discover.stall=disk': expected discover.stall=system|topo|net|ib|gpu" \
	topo -o "$O"

echo "bad inputs: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
