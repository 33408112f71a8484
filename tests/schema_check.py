#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Validate results documents against docs/schema/commdiag-results-1.schema.json (JSON
# Schema draft 2020-12, python3-jsonschema). Called once per suite by schema_check in
# tests/lib.sh. Usage: schema_check.py SCHEMA TMPDIR RESULT <MANIFEST
#
# MANIFEST has one line per file, KIND<TAB>PATH[<TAB>LABEL]:
#   stdout  a copy of a command's stdout (run() in tests/lib.sh): commdiag wrote it, so
#           every schema 1 document is validated
#   file    a *.json file left under TMPDIR, or a copy of the file json_true read (the suite
#           may overwrite it later): validated when commdiag wrote it, that is when it starts
#           the way cJSON_Print writes a document ({, tab, "schema":, tab, 1, …, "tool" named
#           "commdiag"); other schema 1 documents are inputs the suite crafted (bad input, a
#           hostile hostname) and are counted, not validated
#   saved   a committed document (tests/data/docs): written by earlier builds, so keys added
#           to schema 1 since may be absent (the loader reads an absent key as null); every
#           other constraint holds: types, nulls, enums, unknown keys
# Schema 2 (the compact form, one line) is validated the same way. Files that are not JSON
# objects with "schema": 1 or 2 (nccl-tests -J output, `rules --json`,
# `version --json`, a truncated input) are counted as other JSON and ignored.
#
# The same document kept twice is validated once. RESULT gets the outcome, read by the shell:
# "invalid<TAB>LABEL<TAB>FIRST ERROR" a document, then "valid<TAB>N". The errors, up to 5 a
# document, go to stderr; a summary line to stdout. Exit 0, or 77 when jsonschema (or its
# draft 2020-12) is missing.
import copy
import hashlib
import json
import os
import sys

try:
    import jsonschema
    Validator = jsonschema.Draft202012Validator
except (ImportError, AttributeError):
    sys.stderr.write("schema: python3-jsonschema with draft 2020-12 support (4.0 or later) is not installed\n")
    sys.exit(77)

MAX_BYTES = 64 << 20  # the suites' huge bad inputs are not documents
ERRORS_SHOWN = 5
WRITER_PREFIX = '{\n\t"schema":\t1,\n\t"tool":\t{\n\t\t"name":\t"commdiag",'
COMPACT_PREFIX = '{"schema":2,"tool":{"name":"commdiag",'  # the compact form (schema 2, report_compact.c)


def json_path(err):
    p = "$"
    for k in err.absolute_path:
        p += "[%d]" % k if isinstance(k, int) else "." + str(k)
    return p


def short(msg, n=300):
    msg = " ".join(msg.split())
    return msg if len(msg) <= n else msg[: n - 1] + "…"


def loosen(node):
    """The schema for saved documents: no "required" inside $defs (absent reads as null)."""
    if isinstance(node, dict):
        # the keyword (a list of names), not a property named "required" (rules.required)
        if isinstance(node.get("required"), list):
            node.pop("required")
        for v in node.values():
            loosen(v)
    elif isinstance(node, list):
        for v in node:
            loosen(v)


def main():
    schema_path, tmp, result_path = sys.argv[1:4]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    Validator.check_schema(schema)
    strict = Validator(schema)
    loose_schema = copy.deepcopy(schema)
    loosen(loose_schema["$defs"])
    loose = Validator(loose_schema)

    counts = {"stdout": 0, "file": 0, "saved": 0}
    crafted, other, invalid, dups, seen = [], 0, 0, 0, set()
    out = open(result_path, "w", encoding="utf-8")
    for line in sys.stdin:
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 2:
            continue
        kind, path = parts[0], parts[1]
        label = parts[2] if len(parts) > 2 and parts[2] else os.path.relpath(path, tmp) if kind == "file" else path
        try:
            if os.path.getsize(path) > MAX_BYTES:
                other += 1
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            doc = json.loads(text)
        except (OSError, ValueError):  # unreadable, not UTF-8, not JSON
            other += 1
            continue
        if not isinstance(doc, dict) or doc.get("schema") not in (1, 2) or isinstance(doc.get("schema"), bool):
            other += 1
            continue
        if kind == "file" and not text.startswith((WRITER_PREFIX, COMPACT_PREFIX)):
            if label not in crafted:
                crafted.append(label)
            continue
        digest = hashlib.sha256((("saved:" if kind == "saved" else "") + text).encode()).hexdigest()
        if digest in seen:  # the same document kept twice (json_true on one file, then the file itself)
            dups += 1
            continue
        seen.add(digest)
        v = loose if kind == "saved" else strict
        errs = sorted(v.iter_errors(doc), key=lambda e: (list(map(str, e.absolute_path)), e.message))
        if not errs:
            counts[kind] = counts.get(kind, 0) + 1
            continue
        invalid += 1
        first = errs[0]
        out.write("invalid\t%s\t%s: %s%s\n" % (label, json_path(first), short(first.message),
                                             " (+%d more)" % (len(errs) - 1) if len(errs) > 1 else ""))
        for e in errs[:ERRORS_SHOWN]:
            sys.stderr.write("  schema: %s: %s: %s\n" % (label, json_path(e), short(e.message)))
    valid = sum(counts.values())
    out.write("valid\t%d\n" % valid)
    out.close()

    what = "%d valid (%d on stdout, %d files, %d saved)" % (valid, counts["stdout"], counts["file"], counts["saved"])
    if invalid:
        what += ", %d INVALID" % invalid
    ign = "%d other JSON, %d copies of a document already checked" % (other, dups)
    if crafted:
        ign = "%d crafted input%s (%s), " % (len(crafted), "" if len(crafted) == 1 else "s",
                                             ", ".join(sorted(crafted)[:6]) + (", …" if len(crafted) > 6 else "")) + ign
    print("schema: %s against %s; not validated: %s" % (what, os.path.basename(schema_path), ign))
    return 0


if __name__ == "__main__":
    sys.exit(main())
