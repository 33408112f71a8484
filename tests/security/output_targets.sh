#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 19, attack 1: what -o does to what is already at the path. Only a regular file (or
# nothing, or a link someone else planted) is renamed over; a character device, a FIFO and
# this process's own stdout/stderr are written in place; block devices and sockets are
# refused; a replaced file keeps its mode and owner, a new one gets the umask's mode; a
# name too long to ever write is refused before the run. The cases that need root make
# their devices with mknod in a temporary directory, and /dev/null itself only inside a
# private mount namespace with its own /dev, so a failure never touches the machine's.
# Usage: tests/security/output_targets.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/../.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-sec-out.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. tests/lib.sh
FAIL_PREFIX="security/output: "
DOC=tests/data/docs/h100-clean.json
root=0; [ "$(id -u)" = 0 ] && root=1
kind() { stat -c %F "$1" 2>/dev/null; }
want_kind() { if [ "$(kind "$2")" = "$3" ]; then ok; else bad "$1: $2 is '$(kind "$2")', expected '$3'"; fi; }

# a FIFO with a reader gets the whole document and stays a FIFO
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/fifo.out" &
reader=$!
# cat may not have reached its open() yet on a loaded machine: until it has, commdiag rightly
# finds no reader (the case below), so try again for up to 20 s; any other result ends the wait
for _ in $(seq 1 200); do
	"$BIN" report --from "$DOC" --json -o "$TMP/fifo" >/dev/null 2>"$TMP/fifo.err"
	rc=$?
	[ "$rc" = 2 ] && grep -q "no process reads this FIFO" "$TMP/fifo.err" || break
	sleep 0.1
done
if [ "$rc" = 0 ]; then ok; else bad "-o FIFO with a reader: exit $rc, expected 0 ($(head -c 300 "$TMP/fifo.err"))"; kill "$reader" 2>/dev/null; fi
wait "$reader"
want_kind "-o FIFO" "$TMP/fifo" "fifo"
if cmp -s "$TMP/fifo.out" <("$BIN" report --from "$DOC" --json); then ok; else bad "-o FIFO: the reader did not get the document"; fi
# ... and without one it is an error at once, not a wait nor a file put in its place
run "-o FIFO without a reader" 2 "$BIN" report --from "$DOC" --json -o "$TMP/fifo"
err_has "-o FIFO without a reader" "no process reads this FIFO"
want_kind "-o FIFO without a reader" "$TMP/fifo" "fifo"

# this process's stdout by a /proc link: written there, the link untouched
"$BIN" report --from "$DOC" --json -o /proc/self/fd/1 >"$TMP/stdout.json" 2>"$TMP/err" && ok || bad "-o /proc/self/fd/1: $(cat "$TMP/err")"
if cmp -s "$TMP/stdout.json" <("$BIN" report --from "$DOC" --json); then ok; else bad "-o /proc/self/fd/1: stdout lacks the document"; fi
"$BIN" report --from "$DOC" --json -o /proc/self/fd/2 2>"$TMP/stderr.json" >/dev/null && ok || bad "-o /proc/self/fd/2"
if cmp -s "$TMP/stderr.json" <("$BIN" report --from "$DOC" --json); then ok; else bad "-o /proc/self/fd/2: stderr lacks the document"; fi

# a replaced file keeps its mode; a new one gets the umask's
printf 'old\n' >"$TMP/keep.json"
chmod 0600 "$TMP/keep.json"
run "-o over a 0600 file" 0 "$BIN" report --from "$DOC" --json -o "$TMP/keep.json"
if [ "$(stat -c %a "$TMP/keep.json")" = 600 ]; then ok; else bad "-o over a 0600 file made it $(stat -c %a "$TMP/keep.json")"; fi
run "-o new file, umask 077" 0 sh -c "umask 077 && exec \"$BIN\" report --from $DOC --json -o \"$TMP/new077.json\""
if [ "$(stat -c %a "$TMP/new077.json")" = 600 ]; then ok; else bad "umask 077: new file is $(stat -c %a "$TMP/new077.json")"; fi
run "-o new file, umask 027" 0 sh -c "umask 027 && exec \"$BIN\" report --from $DOC --json -o \"$TMP/new027.json\""
if [ "$(stat -c %a "$TMP/new027.json")" = 640 ]; then ok; else bad "umask 027: new file is $(stat -c %a "$TMP/new027.json")"; fi

# names: up to NAME_MAX works (the temporary name is shortened), longer is refused before the run
long=$(printf 'a%.0s' $(seq 1 250)).json
run "-o a 255-byte name" 0 "$BIN" report --from "$DOC" --json -o "$TMP/$long"
if [ -s "$TMP/$long" ] && [ "$(ls -A "$TMP" | grep -c '^\.')" = 0 ]; then ok; else bad "-o a 255-byte name: not written, or a temporary file left"; fi
run "-o a 256-byte name" 2 "$BIN" check --json -o "$TMP/${long}x"
err_has "-o a 256-byte name" "is 256 bytes long: at most 255"
if grep -q "discover\|probe" "$TMP/err"; then bad "-o a 256-byte name: the run started: $(head -c 300 "$TMP/err")"; else ok; fi

# a socket is refused
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$TMP/sock"
run "-o a socket" 2 "$BIN" report --from "$DOC" --json -o "$TMP/sock"
err_has "-o a socket" "is a socket: expected a file, a character device or a FIFO"
want_kind "-o a socket" "$TMP/sock" "socket"

if [ $root = 1 ]; then
	# a character device (what /dev/null is) is written in place and stays one
	mknod -m 666 "$TMP/null" c 1 3
	run "-o a character device" 0 "$BIN" report --from "$DOC" --json -o "$TMP/null"
	want_kind "-o a character device" "$TMP/null" "character special file"
	mknod -m 600 "$TMP/blk" b 7 250
	run "-o a block device" 2 "$BIN" report --from "$DOC" --json -o "$TMP/blk"
	err_has "-o a block device" "is a block device"
	want_kind "-o a block device" "$TMP/blk" "block special file"
	# the owner of a replaced file is kept too
	printf 'old\n' >"$TMP/owned.json"
	chown nobody: "$TMP/owned.json"
	run "-o over nobody's file" 0 "$BIN" report --from "$DOC" --json -o "$TMP/owned.json"
	if [ "$(stat -c %U "$TMP/owned.json")" = nobody ]; then ok; else bad "-o over nobody's file: now $(stat -c %U "$TMP/owned.json")'s"; fi
	# a link another user planted is replaced, never written through (not even to a device)
	ln -s "$TMP/null" "$TMP/planted"
	chown -h nobody: "$TMP/planted"
	run "-o a planted link to a device" 0 "$BIN" report --from "$DOC" --json -o "$TMP/planted"
	want_kind "-o a planted link" "$TMP/planted" "regular file"
	want_kind "-o a planted link: its target" "$TMP/null" "character special file"
	# root's own link to a device is followed (as /dev/stdout is)
	ln -s "$TMP/null" "$TMP/mine"
	run "-o root's link to a device" 0 "$BIN" report --from "$DOC" --json -o "$TMP/mine"
	want_kind "-o root's link to a device" "$TMP/mine" "symbolic link"
	# the real names, /dev/null and /dev/stdout, in a mount namespace with a /dev of its own
	if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
		unshare -m bash -c '
			mount -t tmpfs commdiag-test-dev /dev || exit 9
			mknod -m 666 /dev/null c 1 3 && ln -s /proc/self/fd/1 /dev/stdout || exit 9
			"$1" check --from "$2" --json -o /dev/null; echo "null rc=$? $(stat -c %F /dev/null)"
			"$1" report --from "$2" --json -o /dev/stdout >"$3/ns-stdout.json"; echo "stdout rc=$? $(stat -c %F /dev/stdout)"
		' _ "$BIN" "$DOC" "$TMP" >"$TMP/ns.out" 2>"$TMP/ns.err"
		if grep -qx "null rc=0 character special file" "$TMP/ns.out"; then ok; else bad "-o /dev/null as root: $(cat "$TMP/ns.out" "$TMP/ns.err" | head -c 400)"; fi
		if grep -qx "stdout rc=0 symbolic link" "$TMP/ns.out" && [ -s "$TMP/ns-stdout.json" ]; then ok; else bad "-o /dev/stdout as root: $(cat "$TMP/ns.out" | head -c 400)"; fi
	else
		skip "-o /dev/null as root: no mount namespace here (unshare -m)"
	fi
else
	skip "character and block devices, owners, planted links, /dev/null: need root (mknod, chown, unshare -m)"
fi

echo "security/output: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
