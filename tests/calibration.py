#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The calibration corpus (tests/data/calibration): what commdiag must conclude from each case.

  calibration.py argv NAME BIN         the command line of one case, one argument a line
  calibration.py names                 the case names, one a line
  calibration.py judge DIR             judge DIR/NAME.json + DIR/NAME.rc (+ .err) of every case:
                                       one line per case, "ok<TAB>NAME" or "bad<TAB>NAME: why"
  calibration.py table BIN [NAME...]   run the cases and print the confusion table (bench/calibration.sh)

cases.tsv's columns: name, part (tune|holdout), kind (healthy|broken), input (relative to the
corpus; a .log is nccl-tests output and goes through `import nccl-tests`, anything else through
`check --from`), args ('-': none), exit, findings, advice, note.

findings: '-' for none, else space-separated ids at warn or above, each 'ID' or 'ID@subject';
'?ID' may appear and need not. Every finding at warn or above must be listed; info is ignored.

advice: 'none' (the advice list is empty: no settings, no actions), '-' (no settings to export or
unset; actions are free), or items separated by ' ; '. An item is one or more alternatives
joined by ' or '; a leading '?' makes the item optional (allowed, not required):
  NAME          export NAME (any value)        NAME=VALUE   export NAME with exactly VALUE
  NAME~REGEX    export NAME, value matches     unset:NAME   unset NAME
  action~REGEX  a command or action for a person (env null) whose text matches
Every setting the advice exports or unsets must be allowed by an item; actions need only match
the required ones.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "data", "calibration")
MANIFEST = os.path.join(CORPUS, "cases.tsv")
COLS = ("name", "part", "kind", "input", "args", "exit", "findings", "advice", "note")


def load_cases():
    cases = []
    with open(MANIFEST, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != len(COLS):
                sys.exit("%s:%d: %d columns, expected %d" % (MANIFEST, n, len(cols), len(COLS)))
            c = dict(zip(COLS, cols))
            if c["part"] not in ("tune", "holdout") or c["kind"] not in ("healthy", "broken"):
                sys.exit("%s:%d: part must be tune|holdout and kind healthy|broken" % (MANIFEST, n))
            c["findings_spec"] = parse_findings(c["findings"])
            c["advice_spec"] = parse_advice(c["advice"])
            if c["kind"] == "healthy" and (c["exit"] != "0" or c["findings"] != "-" or c["advice"] != "none"):
                sys.exit("%s:%d: a healthy case expects exit 0, no findings and no advice" % (MANIFEST, n))
            cases.append(c)
    names = [c["name"] for c in cases]
    if len(set(names)) != len(names):
        sys.exit("%s: duplicate case names" % MANIFEST)
    return cases


def parse_findings(spec):
    if spec == "-":
        return []
    out = []
    for tok in spec.split():
        opt = tok.startswith("?")
        tok = tok.lstrip("?")
        fid, _, subj = tok.partition("@")
        out.append({"optional": opt, "id": fid, "subject": subj or None})
    return out


def parse_alt(s):
    if s.startswith("unset:"):
        return ("unset", s[6:], None)
    if s.startswith("action~"):
        return ("action", None, re.compile(s[7:]))
    m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)(?:(=|~)(.*))?$", s)
    if not m:
        raise SystemExit("%s: bad advice item '%s'" % (MANIFEST, s))
    name, op, val = m.groups()
    if op == "=":
        return ("eq", name, val)
    if op == "~":
        return ("re", name, re.compile(val))
    return ("any", name, None)


def parse_advice(spec):
    if spec in ("none", "-"):
        return spec
    items = []
    for raw in spec.split(" ; "):
        raw = raw.strip()
        opt = raw.startswith("?")
        raw = raw[1:] if opt else raw
        items.append({"optional": opt, "text": raw, "alts": [parse_alt(a.strip()) for a in raw.split(" or ")]})
    return items


def argv(case, binary):
    path = os.path.normpath(os.path.join(CORPUS, case["input"]))
    args = [] if case["args"] == "-" else case["args"].split()
    if path.endswith(".log"):
        return [binary, "import", "nccl-tests", path, "--json"] + args
    return [binary, "check", "--from", path, "--json"] + args


# ---------------------------------------------------------------- judging


def alt_matches(alt, env, value):
    kind, name, arg = alt
    if kind == "action":
        return env is None and value is not None and arg.search(value) is not None
    if env != name:
        return False
    if kind == "unset":
        return value is None
    if value is None:
        return False
    if kind == "eq":
        return value == arg
    if kind == "re":
        return arg.search(value) is not None
    return True


def judge_one(case, rc, out_text, err_text=""):
    """-> dict: ok, problems (list of text), found (set of (id, subject)), per-id tp/fp/fn sets."""
    res = {"problems": [], "tp": set(), "fp": set(), "fn": set(), "rc": rc, "found": []}
    doc = None
    try:
        doc = json.loads(out_text) if out_text.strip() else None
    except ValueError:
        doc = None
    if str(rc) != case["exit"]:
        why = "exit %s, expected %s" % (rc, case["exit"])
        if doc is None and err_text.strip():
            why += " (%s)" % err_text.strip().splitlines()[0][:200]
        res["problems"].append(why)
    findings = []
    if isinstance(doc, dict):
        findings = [(f.get("id"), f.get("subject")) for f in doc.get("findings") or []
                    if f.get("severity") in ("warn", "fail")]
    elif rc in (0, 1):
        res["problems"].append("no JSON document on stdout")
    res["found"] = findings
    res["no_doc"] = not isinstance(doc, dict)
    spec = case["findings_spec"]

    def allowed(fid, subj):
        return any(e["id"] == fid and (e["subject"] is None or e["subject"] == subj) for e in spec)
    missing = [e for e in spec if not e["optional"] and
               not any(fid == e["id"] and (e["subject"] is None or subj == e["subject"]) for fid, subj in findings)]
    extra = []
    for fid, subj in findings:
        if not allowed(fid, subj) and (fid, subj) not in extra:
            extra.append((fid, subj))
    for e in spec:
        if e["optional"]:
            continue
        (res["fn"] if e in missing else res["tp"]).add(e["id"])
    for fid, _ in extra:
        res["fp"].add(fid)
    if missing:
        res["problems"].append("missing " + " ".join(e["id"] + ("@" + e["subject"] if e["subject"] else "")
                                                     for e in missing))
    if extra:
        res["problems"].append("unexpected " + ", ".join("%s (%s)" % (f, s) for f, s in extra))
    if isinstance(doc, dict):
        res["problems"] += judge_advice(case["advice_spec"], doc.get("advice") or [])
    res["ok"] = not res["problems"]
    return res


def show(a):
    if a.get("env") is None:
        return "action '%s'" % (a.get("value") or "")[:90]
    if a.get("value") is None:
        return "unset %s" % a["env"]
    return "%s=%s" % (a["env"], a["value"])


def judge_advice(spec, advice):
    if spec == "none":
        return ["advice given, none expected: " + "; ".join(show(a) for a in advice)] if advice else []
    items = [] if spec == "-" else spec
    problems = []
    for it in items:
        if it["optional"]:
            continue
        if not any(alt_matches(alt, a.get("env"), a.get("value")) for alt in it["alts"] for a in advice):
            problems.append("advice lacks '%s'" % it["text"])
    bad = []
    for a in advice:
        if a.get("env") is None:
            continue
        if not any(alt_matches(alt, a.get("env"), a.get("value")) for it in items for alt in it["alts"]):
            if show(a) not in bad:
                bad.append(show(a))
    if bad:
        problems.append("unexpected settings: " + "; ".join(bad))
    return problems


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def cmd_judge(d):
    fails = 0
    for c in load_cases():
        base = os.path.join(d, c["name"])
        rc_text = read(base + ".rc").strip()
        if not rc_text:
            print("bad\t%s: not run" % c["name"])
            fails += 1
            continue
        r = judge_one(c, int(rc_text), read(base + ".json"), read(base + ".err"))
        if r["ok"]:
            print("ok\t%s" % c["name"])
        else:
            fails += 1
            print("bad\t%s (%s, %s): %s" % (c["name"], c["part"], c["kind"], "; ".join(r["problems"])))
    return 0


# ---------------------------------------------------------------- the table


def run_case(c, binary):
    env = dict(os.environ, COMMDIAG_DETERMINISTIC="1", NO_COLOR="1")
    p = subprocess.run(argv(c, binary), capture_output=True, text=True, env=env, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


def cmd_table(binary, names):
    cases = [c for c in load_cases() if not names or c["name"] in names]
    results = []
    for c in cases:
        rc, out, err = run_case(c, binary)
        results.append((c, judge_one(c, rc, out, err)))
    parts = ("tune", "holdout")
    ids = sorted({i for _, r in results for i in r["tp"] | r["fp"] | r["fn"]} |
                 {e["id"] for c, _ in results for e in c["findings_spec"]})
    shown = "./" + os.path.relpath(binary, ROOT) if os.path.abspath(binary).startswith(ROOT + os.sep) else binary
    print("calibration corpus: %d cases (%s), binary %s" % (
        len(cases), ", ".join("%s %d" % (p, sum(1 for c in cases if c["part"] == p)) for p in parts), shown))
    print()
    print("## per rule: cases where the rule was expected and fired (TP), fired unexpected (FP), expected and")
    print("## silent (FN); a case counts once per rule")
    print("%-9s %13s %13s %13s" % ("rule", "tune TP/FP/FN", "holdout", "all"))
    tot = {p: [0, 0, 0] for p in parts + ("all",)}
    for i in ids:
        row = []
        for p in parts + ("all",):
            sel = [r for c, r in results if p == "all" or c["part"] == p]
            v = [sum(i in r["tp"] for r in sel), sum(i in r["fp"] for r in sel), sum(i in r["fn"] for r in sel)]
            for k in range(3):
                tot[p][k] += v[k]
            row.append("%d/%d/%d" % tuple(v))
        print("%-9s %13s %13s %13s" % (i, row[0], row[1], row[2]))
    print("%-9s %13s %13s %13s" % ("total", *("%d/%d/%d" % tuple(tot[p]) for p in parts + ("all",))))
    print()
    print("## per part: cases whose verdict is right in every respect (exit code, findings, advice)")
    print("%-8s %-8s %7s %9s %9s %9s %9s" % ("part", "kind", "cases", "correct", "exit ok", "finds ok", "advice ok"))
    for p in parts:
        for k in ("healthy", "broken"):
            sel = [(c, r) for c, r in results if c["part"] == p and c["kind"] == k]
            if not sel:
                continue
            ex = sum(1 for c, r in sel if not any(x.startswith("exit") or x.startswith("no JSON") for x in r["problems"]))
            fi = sum(1 for c, r in sel if not r["no_doc"] and not any(x.startswith(("missing", "unexpected ")) and not
                                                   x.startswith("unexpected settings") for x in r["problems"]))
            ad = sum(1 for c, r in sel if not r["no_doc"] and not any("advice" in x or x.startswith("unexpected settings")
                                                  for x in r["problems"]))
            print("%-8s %-8s %7d %9d %9d %9d %9d" % (p, k, len(sel), sum(r["ok"] for _, r in sel), ex, fi, ad))
    healthy_fp = sum(1 for c, r in results if c["kind"] == "healthy" and r["found"])
    broken_caught = sum(1 for c, r in results if c["kind"] == "broken" and not r["fn"])
    print()
    print("healthy cases with a finding at warn or above: %d of %d" % (
        healthy_fp, sum(1 for c, _ in results if c["kind"] == "healthy")))
    print("broken cases whose expected findings all fired: %d of %d" % (
        broken_caught, sum(1 for c, _ in results if c["kind"] == "broken")))
    print()
    print("## per case")
    for c, r in results:
        print("%-4s %-40s %-7s %-7s exit %s/%s  %s" % ("ok" if r["ok"] else "FAIL", c["name"], c["part"], c["kind"],
                                                      r["rc"], c["exit"], "; ".join(r["problems"]) or "as expected"))
    return 0


def main(a):
    if len(a) >= 3 and a[0] == "argv":
        c = [c for c in load_cases() if c["name"] == a[1]]
        if not c:
            sys.exit("no case '%s'" % a[1])
        print("\n".join(argv(c[0], a[2])))
        return 0
    if a == ["names"]:
        print("\n".join(c["name"] for c in load_cases()))
        return 0
    if len(a) == 2 and a[0] == "judge":
        return cmd_judge(a[1])
    if len(a) >= 2 and a[0] == "table":
        return cmd_table(a[1], a[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
