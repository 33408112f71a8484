#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A fake NCCL RAS server for tests/run_hang.sh. It speaks the server side of the protocol as
NCCL's src/ras/client_support.cc does (v2.24.3-1 … v2.30.7-1): "CLIENT PROTOCOL n" is answered
"SERVER PROTOCOL 2", "TIMEOUT s" "OK", "SET FORMAT json|text" "OK" (or, with --old, as a server
before 2.28.7: "ERROR: Unknown command SET FORMAT json"), "STATUS" and "VERBOSE STATUS" the
recorded report, after which it closes the connection, and anything else
"ERROR: Unknown command …". The Nth STATUS gets the Nth STATE (the last one repeats): the
file STATE.json when the client set the JSON format, else STATE.txt.

Usage: fake_ras.py [--old] [--stall STEP] [--close-mid] [--log FILE] DIR STATE...
  --stall protocol|timeout|format|status  never answer that command (status: after half the report)
  --close-mid   send half the report, then close the connection
It listens on 127.0.0.1, port 0 (the kernel picks a free one), and prints the port on stdout."""
import os
import socket
import sys
import threading
import time


def main():
    args = sys.argv[1:]
    old = stall = close_mid = False
    log = None
    while args and args[0].startswith("--"):
        a = args.pop(0)
        if a == "--old":
            old = True
        elif a == "--stall":
            stall = args.pop(0)
        elif a == "--close-mid":
            close_mid = True
        elif a == "--log":
            log = args.pop(0)
        else:
            sys.exit("fake_ras: unknown option " + a)
    if len(args) < 2:
        sys.exit(__doc__)
    folder, states = args[0], args[1:]
    served = [0]
    lock = threading.Lock()

    def note(line):
        if log:
            with lock, open(log, "a") as f:
                f.write(line + "\n")

    def serve(conn):
        fmt = "text"
        buf = b""
        with conn:
            while True:
                try:
                    data = conn.recv(4096)
                except OSError:
                    return
                if not data:
                    return
                buf += data
                while b"\n" in buf:
                    raw, buf = buf.split(b"\n", 1)
                    cmd = raw.decode("latin-1").rstrip("\r")
                    low = cmd.lower()
                    note(cmd)
                    if low.startswith("client protocol "):
                        if stall == "protocol":
                            time.sleep(3600)
                        conn.sendall(b"SERVER PROTOCOL 2\n")
                    elif low.startswith("timeout "):
                        if stall == "timeout":
                            time.sleep(3600)
                        v = cmd[len("timeout "):]
                        conn.sendall(b"OK\n" if v.isdigit() else ("ERROR: Invalid timeout value %s\n" % v).encode())
                    elif low.startswith("set format ") and not old:
                        if stall == "format":
                            time.sleep(3600)
                        v = cmd[len("set format "):].lower()
                        if v in ("json", "text"):
                            fmt = v
                            conn.sendall(b"OK\n")
                        else:
                            conn.sendall(("ERROR: Invalid format %s\n" % cmd[len("set format "):]).encode())
                    elif low in ("status", "verbose status"):
                        with lock:
                            i = min(served[0], len(states) - 1)
                            served[0] += 1
                        ext = ".json" if fmt == "json" else ".txt"
                        with open(os.path.join(folder, states[i] + ext), "rb") as f:
                            body = f.read()
                        if stall == "status" or close_mid:
                            conn.sendall(body[: len(body) // 2])
                            if stall == "status":
                                time.sleep(3600)
                            return
                        conn.sendall(body)
                        return  # the server closes after the report
                    else:
                        conn.sendall(("ERROR: Unknown command %s\n" % cmd).encode())

    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    print(srv.getsockname()[1], flush=True)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
