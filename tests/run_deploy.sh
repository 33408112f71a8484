#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Tests of what installs and deploys commdiag: `make install`/`uninstall` of the systemd
# units (their paths filled in), the alert rules and the example /etc/default/commdiag;
# the units under `systemd-analyze verify`; every metric name in the alert rules and the
# Grafana dashboard against what the binary under test exports, and the dashboard's
# queries under promtool; the Kubernetes manifests against the Kubernetes API's models
# (python3-kubernetes) and structurally; the Containerfile structurally (Debian has no
# linter for it: hadolint is not packaged). Each checker is also run on a broken copy
# and must reject it. Without promtool, systemd-analyze, python3-yaml or
# python3-kubernetes those parts SKIP.
# Usage: tests/run_deploy.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.." || exit 2
DOCS=tests/data/docs
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-deploy.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export NO_COLOR=1
. tests/lib.sh
# is NAME FILE: the file exists (a plain file)
is_file() { if [ -f "$2" ]; then ok; else bad "$1: $2 missing"; fi; }
# rejects NAME CMD...: a checker fails on a broken copy (it can see what it is there for)
rejects() {
	local name=$1
	shift
	if "$@" >"$TMP/neg" 2>&1; then bad "$name: the checker accepted a broken copy"; else ok; fi
}

# python3 with PyYAML (python3-yaml), and with the Kubernetes API's models (python3-kubernetes):
# the first python3 on PATH, else Debian's (a PATH python3 may be a virtualenv's)
PY='' PYK=''
for p in python3 /usr/bin/python3; do
	[ -z "$PY" ] && "$p" -c 'import yaml' 2>/dev/null && PY=$p
	[ -z "$PYK" ] && "$p" -c 'import yaml, kubernetes' 2>/dev/null && PYK=$p
done
have_promtool=0
command -v promtool >/dev/null && have_promtool=1

# ---------------------------------------------------------------- what commdiag exports
# The metric families of the binary under test, over every saved document (report renders
# it as recorded, score re-judges it: findings and the score card); the alert rules' own
# recording rules are names too.
for d in "$DOCS"/*.json; do
	"$BIN" report --from "$d" --format prometheus 2>/dev/null
	"$BIN" score "$d" --format prometheus 2>/dev/null
done | sed -n 's/^# TYPE \([^ ]*\) gauge$/\1/p' | sort -u >"$TMP/metrics"
n=$(wc -l <"$TMP/metrics")
if [ "$n" -ge 30 ] && grep -qx commdiag_finding "$TMP/metrics"; then ok; else
	bad "exported metrics: only $n families from $DOCS: $(tr '\n' ' ' <"$TMP/metrics")"; fi

# promql_names FILE-OF-EXPRS ALLOWED: every metric name in the expressions (one a line) is
# in ALLOWED; prints the strangers. Names are what is left once strings, label matchers,
# ranges, grouping clauses, functions (a name before '(') and keywords are taken out.
promql_names() {
	python3 - "$1" "$2" <<'PY'
import re, sys
allowed = set(open(sys.argv[2]).read().split())
keywords = {"by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool",
            "and", "or", "unless", "inf", "nan", "atan2"}
bad = 0
for n, line in enumerate(open(sys.argv[1]), 1):
    e = line.strip()
    if not e:
        continue
    s = re.sub(r'"(?:[^"\\]|\\.)*"', '""', e)
    s = re.sub(r"\{[^{}]*\}", " ", s)
    s = re.sub(r"\[[^\]]*\]", " ", s)
    s = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", s)
    names = [m.group(1) for m in re.finditer(r"(?<![\w.:])([A-Za-z_:][\w:]*)(?![\w:])(?!\s*\()", s)]
    names = [x for x in names if x not in keywords]
    if not names:
        print(f"expression {n} has no metric: {e}")
        bad = 1
    for x in names:
        if x not in allowed:
            print(f"expression {n}: '{x}' is not a metric commdiag exports: {e}")
            bad = 1
sys.exit(bad)
PY
}

# promql_parse FILE-OF-EXPRS: promtool parses each expression (as a recording rule)
promql_parse() {
	python3 - "$1" "$TMP/exprs-rules.yml" <<'PY'
import json, sys
exprs = [l.strip() for l in open(sys.argv[1]) if l.strip()]
with open(sys.argv[2], "w") as f:
    f.write("groups:\n  - name: parse\n    rules:\n")
    for i, e in enumerate(exprs):
        # JSON strings are YAML strings
        f.write(f"      - record: parse:expr_{i}\n        expr: {json.dumps(e)}\n")
PY
	promtool check rules "$TMP/exprs-rules.yml"
}

# ---------------------------------------------------------------- alert rules
# (promtool check rules and their unit tests: tests/run_prom.sh) every name they use is real
if [ -n "$PY" ]; then
	# rules_exprs RULES: the expressions, one a line, and the recorded names into $TMP/recorded
	rules_exprs() {
		"$PY" - "$1" "$TMP/recorded" <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
with open(sys.argv[2], "w") as rec:
    for g in d["groups"]:
        for r in g["rules"]:
            print(" ".join(r["expr"].split()))
            if "record" in r:
                rec.write(r["record"] + "\n")
PY
	}
	rules_exprs scripts/prometheus/commdiag-alerts.yml >"$TMP/alert-exprs"
	sort -u "$TMP/metrics" "$TMP/recorded" >"$TMP/allowed"
	if promql_names "$TMP/alert-exprs" "$TMP/allowed" >"$TMP/names"; then ok; else bad "alert rules: $(cat "$TMP/names")"; fi
	for a in CommdiagFailFinding CommdiagRunIncomplete CommdiagBandwidthRegression CommdiagStale; do
		if grep -q "^      - alert: $a$" scripts/prometheus/commdiag-alerts.yml; then ok; else bad "alert rules: no $a"; fi
	done
	sed 's/commdiag_run_complete/commdiag_run_completed/' "$TMP/alert-exprs" >"$TMP/alert-exprs.bad"
	rejects "alert rules: a metric that does not exist" promql_names "$TMP/alert-exprs.bad" "$TMP/allowed"
else
	skip "python3-yaml not installed: the alert rules' metric names not checked"
	sort -u "$TMP/metrics" >"$TMP/allowed"
	echo commdiag:probe_bandwidth_bytes_per_second:max1h >>"$TMP/allowed"
fi

# ---------------------------------------------------------------- Grafana dashboard
DASH=scripts/grafana/commdiag-dashboard.json
# check_dashboard FILE: the structure Grafana imports (schema 39: panels on a 24-column
# grid, ids unique, every query on the datasource variable, variables defined before
# use); writes the PromQL of its panels and variables, variables replaced, to $TMP/dash-exprs
check_dashboard() {
	python3 - "$1" "$TMP/dash-exprs" <<'PY'
import json, re, sys
errs = []
d = json.load(open(sys.argv[1]))
for k in ("title", "uid", "panels", "templating", "schemaVersion"):
    if k not in d:
        errs.append(f"no '{k}'")
if not isinstance(d.get("schemaVersion"), int) or not 36 <= d["schemaVersion"] <= 41:
    errs.append(f"schemaVersion {d.get('schemaVersion')!r}: expected 36-41 (Grafana 9.4-11)")
if d.get("id") is not None:
    errs.append("id must be null in a dashboard to import")
variables = d.get("templating", {}).get("list", [])
names = [v.get("name") for v in variables]
dsvars = [v["name"] for v in variables if v.get("type") == "datasource" and v.get("query") == "prometheus"]
if not dsvars:
    errs.append("no Prometheus datasource variable")
DS = {"type": "prometheus", "uid": "${%s}" % (dsvars[0] if dsvars else "datasource")}
if "instance" not in names:
    errs.append("no instance variable")
exprs = []
def subst(e, where):
    for v in re.findall(r"\$\{?(\w+)\}?", e):
        if not v.startswith("__") and v not in names:
            errs.append(f"{where}: variable ${v} is not defined")
    e = re.sub(r"\$__\w+", "5m", e)
    return re.sub(r"\$\{?\w+\}?", ".*", e)
for v in variables:
    if v.get("type") != "query":
        continue
    if v.get("datasource") != DS:
        errs.append(f"variable {v.get('name')}: datasource {v.get('datasource')} is not {DS}")
    q = v["query"]["query"] if isinstance(v.get("query"), dict) else v.get("query", "")
    m = re.fullmatch(r"\s*label_values\((.+),\s*(\w+)\)\s*", q)
    if not m:
        errs.append(f"variable {v.get('name')}: query '{q}' is not label_values(SELECTOR, LABEL)")
    else:
        exprs.append(subst(m.group(1), f"variable {v['name']}"))
panels, ids = [], set()
def walk(ps):
    for p in ps:
        panels.append(p)
        walk(p.get("panels", []))
walk(d.get("panels", []))
cells = {}
for p in panels:
    t = f"panel {p.get('id')} '{p.get('title')}'"
    if p.get("id") in ids or not isinstance(p.get("id"), int):
        errs.append(f"{t}: id missing or repeated")
    ids.add(p.get("id"))
    g = p.get("gridPos", {})
    if not all(isinstance(g.get(k), int) for k in "xywh") or g["w"] < 1 or g["h"] < 1 or g["x"] < 0 or g["x"] + g["w"] > 24:
        errs.append(f"{t}: gridPos {g} is not on the 24-column grid")
        continue
    for x in range(g["x"], g["x"] + g["w"]):
        for y in range(g["y"], g["y"] + g["h"]):
            if (x, y) in cells:
                errs.append(f"{t}: overlaps panel {cells[(x, y)]}")
                break
            cells[(x, y)] = p.get("id")
        else:
            continue
        break
    if p.get("type") == "row":
        continue
    if p.get("datasource") != DS:
        errs.append(f"{t}: datasource {p.get('datasource')} is not {DS}")
    targets = p.get("targets") or []
    if not targets:
        errs.append(f"{t}: no query")
    refs = [x.get("refId") for x in targets]
    if len(set(refs)) != len(refs) or None in refs:
        errs.append(f"{t}: refIds {refs} not unique")
    for x in targets:
        if x.get("datasource") not in (None, DS):
            errs.append(f"{t}: query {x.get('refId')} on {x.get('datasource')}")
        if not x.get("expr"):
            errs.append(f"{t}: query {x.get('refId')} has no expr")
        else:
            exprs.append(subst(" ".join(x["expr"].split()), t))
with open(sys.argv[2], "w") as f:
    f.write("\n".join(exprs) + "\n")
for e in errs:
    print(e)
sys.exit(1 if errs else 0)
PY
}
if check_dashboard "$DASH" >"$TMP/dash"; then ok; else bad "dashboard: $(cat "$TMP/dash")"; fi
if [ "$(wc -l <"$TMP/dash-exprs")" -ge 20 ]; then ok; else bad "dashboard: only $(wc -l <"$TMP/dash-exprs") queries"; fi
if promql_names "$TMP/dash-exprs" "$TMP/allowed" >"$TMP/names"; then ok; else bad "dashboard: $(cat "$TMP/names")"; fi
if [ "$have_promtool" = 1 ]; then
	if promql_parse "$TMP/dash-exprs" >"$TMP/promtool" 2>&1; then ok; else bad "dashboard: promtool: $(head -c 1500 "$TMP/promtool")"; fi
	cp "$TMP/dash-exprs" "$TMP/dash-exprs.good"
	sed '0,/(/s//((/' "$TMP/dash-exprs.good" >"$TMP/dash-exprs.bad"
	rejects "dashboard: an expression that does not parse" promql_parse "$TMP/dash-exprs.bad"
	cp "$TMP/dash-exprs.good" "$TMP/dash-exprs"
else
	skip "promtool not installed (Debian package prometheus): the dashboard's queries not parsed"
fi
# broken copies: a metric commdiag does not export, a panel off the grid, an undefined variable
sed 's/commdiag_gpu_nvlinks_up/commdiag_gpu_nvlink_up/' "$DASH" >"$TMP/dash-name.json"
check_dashboard "$TMP/dash-name.json" >/dev/null
rejects "dashboard: an unknown metric" promql_names "$TMP/dash-exprs" "$TMP/allowed"
sed '0,/"w": 4,/s//"w": 40,/' "$DASH" >"$TMP/dash-grid.json"
rejects "dashboard: a panel off the grid" check_dashboard "$TMP/dash-grid.json"
# shellcheck disable=SC2016 # a literal $instance, $node
sed 's/instance=~\\"\$instance\\"/instance=~\\"$node\\"/' "$DASH" >"$TMP/dash-var.json"
rejects "dashboard: an undefined variable" check_dashboard "$TMP/dash-var.json"

# ---------------------------------------------------------------- Kubernetes manifests
K8S=scripts/kubernetes
# check_k8s DIR: each object as the API server's models read it (python3-kubernetes: a
# field they do not know, or of the wrong type, does not come back from the round trip;
# a required one missing raises), and the pod specs structurally; writes each container's
# sh -c script to $TMP/k8s-NAME.sh and its COMMDIAG_ARGS to $TMP/k8s-NAME.args
check_k8s() {
	"$PY" - "$1" "$TMP" "${PYK:+models}" <<'PY'
import glob, os, sys, yaml
errs = []
objs = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.yaml"))):
    for d in yaml.safe_load_all(open(f)):
        if d is None:
            continue
        where = f"{os.path.basename(f)}: {d.get('kind')}/{(d.get('metadata') or {}).get('name')}"
        for k in ("apiVersion", "kind", "metadata"):
            if k not in d:
                errs.append(f"{where}: no {k}")
        if not (d.get("metadata") or {}).get("name"):
            errs.append(f"{where}: no metadata.name")
        objs.append((where, d))
if sys.argv[3] == "models":
    import kubernetes.client as k
    api = k.ApiClient()
    groups = {"v1": "V1", "apps/v1": "V1", "batch/v1": "V1"}
    def diff(a, b, path):
        if isinstance(a, dict) and isinstance(b, dict):
            for key in a:
                if key not in b:
                    return f"{path}.{key}: not a field of the API (or null)"
                r = diff(a[key], b[key], f"{path}.{key}")
                if r:
                    return r
            return None
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                r = diff(x, y, f"{path}[{i}]")
                if r:
                    return r
            return None
        return None if a == b and type(a) == type(b) else f"{path}: {a!r} reads back as {b!r}"
    for where, d in objs:
        prefix = groups.get(d.get("apiVersion"))
        cls = f"{prefix}{d.get('kind')}" if prefix else None
        if not cls or not hasattr(k, cls):
            errs.append(f"{where}: {d.get('apiVersion')} {d.get('kind')} is no core, apps or batch v1 kind")
            continue
        try:
            back = api.sanitize_for_serialization(api._ApiClient__deserialize(d, cls))
        except Exception as e:
            errs.append(f"{where}: {e}")
            continue
        r = diff(d, back, d["kind"])
        if r:
            errs.append(f"{where}: {r}")
byname = {(d["kind"], d["metadata"].get("name")): d for _, d in objs}
def subset(a, b):
    return all(b.get(k) == v for k, v in (a or {}).items())
for where, d in objs:
    kind, spec = d.get("kind"), d.get("spec") or {}
    if kind not in ("DaemonSet", "Job"):
        continue
    tpl = spec.get("template") or {}
    labels = (tpl.get("metadata") or {}).get("labels") or {}
    ps = tpl.get("spec") or {}
    if kind == "DaemonSet" and not subset(spec.get("selector", {}).get("matchLabels"), labels):
        errs.append(f"{where}: the selector does not select the template's labels")
    vols = {v["name"]: v for v in ps.get("volumes", [])}
    used = set()
    for c in ps.get("containers", []):
        cw = f"{where}: container {c.get('name')}"
        if not c.get("image") or not c.get("command"):
            errs.append(f"{cw}: no image or no command")
        mounts = c.get("volumeMounts", [])
        paths = [m["mountPath"] for m in mounts]
        if len(set(paths)) != len(paths):
            errs.append(f"{cw}: a mountPath twice")
        for m in mounts:
            used.add(m["name"])
            if m["name"] not in vols:
                errs.append(f"{cw}: volumeMount {m['name']} has no volume")
        env = {e["name"]: e.get("value") for e in c.get("env", [])}
        if len(env) != len(c.get("env", [])):
            errs.append(f"{cw}: a variable twice")
        cmd = c.get("command") or []
        if cmd[:2] == ["/bin/sh", "-c"] and len(cmd) == 3:
            name = d["metadata"]["name"]
            open(os.path.join(sys.argv[2], f"k8s-{name}.sh"), "w").write(cmd[2])
            open(os.path.join(sys.argv[2], f"k8s-{name}.args"), "w").write(env.get("COMMDIAG_ARGS", "") + "\n")
        else:
            errs.append(f"{cw}: command is not /bin/sh -c SCRIPT")
        priv = (c.get("securityContext") or {}).get("privileged") is True
        gpus = ((c.get("resources") or {}).get("limits") or {}).get("nvidia.com/gpu")
        if kind == "DaemonSet":
            # the node check: the node's network, processes and devices; the textfile on the node
            if not (ps.get("hostNetwork") and ps.get("hostPID") and priv):
                errs.append(f"{cw}: not hostNetwork, hostPID and privileged")
            if gpus:
                errs.append(f"{cw}: requests nvidia.com/gpu: it would take the GPUs from the jobs")
            tf = env.get("COMMDIAG_TEXTFILE") or ""
            mdir = os.path.dirname(tf)
            m = [m for m in mounts if m["mountPath"] == mdir]
            hp = (vols.get(m[0]["name"], {}).get("hostPath") or {}).get("path") if m else None
            if not tf.endswith(".prom") or hp != "/var/lib/node_exporter/textfile" or m[0].get("readOnly"):
                errs.append(f"{cw}: COMMDIAG_TEXTFILE {tf!r} is not a .prom file in a writable hostPath "
                            f"/var/lib/node_exporter/textfile")
        if kind == "Job":
            if not priv or not gpus:
                errs.append(f"{cw}: not privileged with the node's GPUs")
            n = [spec.get("completions"), spec.get("parallelism")]
            if spec.get("completionMode") != "Indexed" or n[0] != n[1] or str(n[0]) != env.get("COMMDIAG_RANKS"):
                errs.append(f"{cw}: not Indexed with completions = parallelism = COMMDIAG_RANKS ({n}, {env.get('COMMDIAG_RANKS')})")
            shm = [m for m in mounts if m["mountPath"] == "/dev/shm"]
            if not shm or (vols.get(shm[0]["name"], {}).get("emptyDir") or {}).get("medium") != "Memory":
                errs.append(f"{cw}: no memory-backed /dev/shm (a pod's is 64 MiB: SYS001)")
    for v in vols:
        if v not in used:
            errs.append(f"{where}: volume {v} is mounted nowhere")
    if kind == "Job":
        if ps.get("restartPolicy") not in ("Never", "OnFailure"):
            errs.append(f"{where}: restartPolicy {ps.get('restartPolicy')}")
        svc = byname.get(("Service", ps.get("subdomain")))
        if not svc or svc["spec"].get("clusterIP") != "None" or not subset(svc["spec"].get("selector"), labels):
            errs.append(f"{where}: subdomain {ps.get('subdomain')} is no headless Service selecting the pods")
        for v in vols.values():
            if "secret" in v and not v["secret"].get("secretName"):
                errs.append(f"{where}: volume {v['name']}: no secretName")
kinds = sorted(d["kind"] for _, d in objs)
for want in ("DaemonSet", "Job"):
    if want not in kinds:
        errs.append(f"no {want} in {sys.argv[1]}")
for e in errs:
    print(e)
sys.exit(1 if errs else 0)
PY
}
if [ -z "$PY" ]; then
	skip "python3-yaml not installed: the Kubernetes manifests not checked"
else
	[ -n "$PYK" ] && PY=$PYK
	[ -z "$PYK" ] && skip "python3-kubernetes not installed: the manifests are checked structurally only, not against the API's models"
	if check_k8s "$K8S" >"$TMP/k8s"; then ok; else bad "kubernetes: $(cat "$TMP/k8s")"; fi
	# the containers' scripts: POSIX sh (the image's /bin/sh is dash), shellcheck-clean
	for s in "$TMP"/k8s-*.sh; do
		name=$(basename "$s" .sh)
		if sh -n "$s" 2>"$TMP/err"; then ok; else bad "kubernetes $name: sh -n: $(cat "$TMP/err")"; fi
		if command -v shellcheck >/dev/null; then
			if out=$(shellcheck -s sh "$s" 2>&1); then ok; else bad "kubernetes $name: shellcheck: $out"; fi
		fi
	done
	# the DaemonSet's command line, as its script runs it, on a saved document: valid
	# options, and a textfile that promtool reads
	read -r -a args <"$TMP/k8s-commdiag-node-check.args"
	run "DaemonSet command line" "0 1" "$BIN" check --format prometheus "${args[@]}" --from "$DOCS/h100-faulty.json" \
		-o "$TMP/ds.prom"
	if [ "$have_promtool" = 1 ]; then
		: >"$TMP/promtool"
		if [ -s "$TMP/ds.prom" ] && promtool check metrics <"$TMP/ds.prom" >"$TMP/promtool" 2>&1; then ok; else
			bad "DaemonSet metrics: none, or promtool: $(head -c 600 "$TMP/promtool")"; fi
	fi
	read -r -a args <"$TMP/k8s-commdiag-mpi-check.args"
	run "Job command line" "0 1" "$BIN" check --json -o "$TMP/job.json" "${args[@]}" --from "$DOCS/h100-faulty.json"
	run "Job report" "0 1" "$BIN" report --from "$TMP/job.json"
	# broken copies: a misspelt field (the models' part), a mount without its volume
	mkdir -p "$TMP/k8s-typo" "$TMP/k8s-mount"
	sed 's/hostNetwork: true/hostNetwrk: true/' "$K8S/node-check-daemonset.yaml" >"$TMP/k8s-typo/ds.yaml"
	cp "$K8S/mpi-check-job.yaml" "$TMP/k8s-typo/"
	if [ -n "$PYK" ]; then
		rejects "kubernetes: a misspelt field" check_k8s "$TMP/k8s-typo"
		if grep -q 'hostNetwrk: not a field' "$TMP/neg"; then ok; else bad "kubernetes: the models did not name the misspelt field: $(cat "$TMP/neg")"; fi
	fi
	sed '0,/- name: machine-id$/s//- name: machine-idd/' "$K8S/node-check-daemonset.yaml" >"$TMP/k8s-mount/ds.yaml"
	cp "$K8S/mpi-check-job.yaml" "$TMP/k8s-mount/"
	rejects "kubernetes: a mount without its volume" check_k8s "$TMP/k8s-mount"
fi

# ---------------------------------------------------------------- Containerfile
# check_containerfile FILE: stages and their bases (Debian 12), the build runs make with the
# CUDA headers where CUDA_HOME says, the build stage installs every build dependency the
# Makefile names (deb_*), the runtime stage the package of every library the binary under
# test needs (readelf NEEDED, dpkg -S; libc6 is in every base image)
check_containerfile() {
	python3 - "$1" "$TMP/needed-pkgs" <<'PY'
import re, shlex, sys
errs = []
text = re.sub(r"\\\n", " ", open(sys.argv[1]).read())
ins = [l.strip() for l in text.splitlines() if l.strip() and not l.strip().startswith("#")]
ins = [(l.split(None, 1)[0].upper(), l.split(None, 1)[1] if " " in l else "") for l in ins]
if not ins or ins[0][0] not in ("ARG", "FROM"):
    errs.append("the first instruction is not ARG or FROM")
args, stages, cur = {}, [], None
for op, rest in ins:
    if op == "ARG" and cur is None:
        k, _, v = rest.partition("=")
        args[k.strip()] = v.strip()
    elif op == "FROM":
        w = rest.split()
        img = re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), "?"), w[0])
        name = w[2] if len(w) == 3 and w[1].upper() == "AS" else None
        cur = {"name": name, "image": img, "run": [], "copy": [], "env": "", "entry": ""}
        stages.append(cur)
    elif cur is None:
        errs.append(f"{op} before the first FROM")
    elif op == "RUN":
        cur["run"].append(rest)
    elif op == "COPY":
        cur["copy"].append(rest)
    elif op == "ENV":
        cur["env"] += " " + rest
    elif op in ("ENTRYPOINT", "CMD"):
        cur["entry"] += " " + rest
    elif op not in ("ARG", "WORKDIR", "LABEL", "USER", "EXPOSE", "VOLUME", "SHELL", "STOPSIGNAL", "HEALTHCHECK"):
        errs.append(f"unknown instruction {op}")
if "?" in "".join(s["image"] for s in stages):
    errs.append("a FROM names an ARG that is not declared before the first FROM")
names = [s["name"] for s in stages if s["name"]]
if len(set(names)) != len(names):
    errs.append("a stage name twice")
for i, s in enumerate(stages):
    earlier = [t["name"] for t in stages[:i]]
    for c in s["copy"]:
        m = re.match(r"--from=(\S+)", c)
        if m and m.group(1) not in earlier:
            errs.append(f"COPY --from={m.group(1)}: no such earlier stage")
def pkgs(stage):
    out = set()
    for r in stage["run"]:
        for m in re.finditer(r"apt-get install ((?:-\S+\s+)*)((?:[a-z0-9][a-z0-9+.-]+\s*)+)", r):
            out |= set(m.group(2).split())
    return out
build = [s for s in stages if any(re.search(r"\bmake\b.*\bcommdiag\b", r) for r in s["run"])]
if not build:
    errs.append("no stage runs make to build commdiag")
else:
    b = build[0]
    if not re.search(r"debian:12", b["image"]):
        errs.append(f"the build stage is on {b['image']}, not Debian 12")
    mk = open("Makefile").read()
    want = set(re.findall(r"^deb_\S+\s*:=\s*(\S+)", mk, re.M)) - {"check"}
    missing = want - pkgs(b)
    if missing:
        errs.append(f"the build stage lacks the Makefile's build dependencies {sorted(missing)}")
    runs = " ".join(b["run"])
    m = re.search(r"CUDA_HOME=(\S+)", runs)
    if not m or not any(re.search(r"\s" + re.escape(m.group(1)) + r"/include/?$", c) for c in b["copy"]):
        errs.append("the build's CUDA_HOME is not where the CUDA headers are copied")
    if "make install" not in runs:
        errs.append("the build stage does not make install")
rt = stages[-1] if stages else None
if rt is None or rt in build:
    errs.append("no runtime stage after the build")
else:
    if not re.search(r"debian:12", rt["image"]):
        errs.append(f"the runtime stage is on {rt['image']}, not Debian 12")
    need = set(open(sys.argv[2]).read().split()) - {"libc6"}
    missing = need - pkgs(rt)
    if missing:
        errs.append(f"the runtime stage lacks the packages of the binary's libraries {sorted(missing)}")
    if not any(re.search(r"--from=\S+\s+\S*staging\S*\s+/$", c) or "commdiag" in c for c in rt["copy"]):
        errs.append("the runtime stage copies no commdiag from the build")
    if "commdiag" not in rt["entry"] or "NVIDIA_DRIVER_CAPABILITIES" not in rt["env"]:
        errs.append("the runtime stage has no commdiag entry point or no NVIDIA_DRIVER_CAPABILITIES")
for e in errs:
    print(e)
sys.exit(1 if errs else 0)
PY
}
# the Debian packages of the libraries the binary under test needs
: >"$TMP/needed-pkgs"
if command -v readelf >/dev/null && command -v dpkg >/dev/null; then
	ldd "$BIN" >"$TMP/ldd" 2>&1
	# a sanitizer build (CI's SANITIZE=1) also needs the sanitizers' runtimes: not the image's
	needed=$(readelf -d "$BIN" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -Ev '^lib(a|ub|l|t|hwa)san\.so')
	paths=()
	for so in $needed; do
		path=$(awk -v so="$so" '$1 == so {print $3}' "$TMP/ldd")
		# merged /usr: dpkg knows a library under /lib or /usr/lib, ldd may say the other
		[ -n "$path" ] && paths+=("$path" "/usr$path" "${path#/usr}")
	done
	# one dpkg -S for all (each call reads every package's file list)
	dpkg -S "${paths[@]}" >"$TMP/dpkg" 2>/dev/null
	for so in $needed; do
		pkg=$(grep -m1 "/$so\$" "$TMP/dpkg" | sed 's/[:,].*//')
		if [ -n "$pkg" ]; then echo "$pkg" >>"$TMP/needed-pkgs"; else skip "Containerfile: no Debian package holds $so"; fi
	done
else
	skip "readelf or dpkg missing: the runtime stage's libraries not checked"
fi
if check_containerfile Containerfile >"$TMP/cf"; then ok; else bad "Containerfile: $(cat "$TMP/cf")"; fi
sed 's/libcjson-dev //' Containerfile >"$TMP/cf-build"
rejects "Containerfile: a build dependency missing" check_containerfile "$TMP/cf-build"
sed 's/libhwloc15 //' Containerfile >"$TMP/cf-runtime"
if grep -qx libhwloc15 "$TMP/needed-pkgs"; then
	rejects "Containerfile: a runtime library missing" check_containerfile "$TMP/cf-runtime"
fi
sed 's|COPY --from=cuda /out/include/ /usr/local/cuda/include/|COPY --from=cuda /out/include/ /opt/cuda/include/|' Containerfile >"$TMP/cf-cuda"
rejects "Containerfile: the CUDA headers elsewhere" check_containerfile "$TMP/cf-cuda"

# ---------------------------------------------------------------- make install / uninstall
# The binary under test is built already: -o commdiag installs it as it is, never rebuilds.
# PREFIX=/usr, staged (DESTDIR): what a package holds
DEST=$TMP/dest
if make -s -o commdiag install DESTDIR="$DEST" PREFIX=/usr >"$TMP/out" 2>"$TMP/err"; then ok; else bad "make install: $(tail -5 "$TMP/err")"; fi
UNIT=$DEST/usr/lib/systemd/system
is_file "install" "$UNIT/commdiag-check.service"
is_file "install" "$UNIT/commdiag-check.timer"
is_file "install" "$DEST/etc/default/commdiag"
is_file "install" "$DEST/usr/share/commdiag/prometheus/commdiag-alerts.yml"
if cmp -s scripts/prometheus/commdiag-alerts.yml "$DEST/usr/share/commdiag/prometheus/commdiag-alerts.yml" &&
	cmp -s scripts/default/commdiag "$DEST/etc/default/commdiag"; then ok; else bad "install: the alert rules or the default file differ from scripts/"; fi
if [ "$(stat -c %a "$UNIT/commdiag-check.service" "$UNIT/commdiag-check.timer" "$DEST/etc/default/commdiag" | sort -u)" = 644 ]; then ok; else
	bad "install: the units and the default file are not 0644"; fi
# shellcheck disable=SC2016 # systemd's variables, literally
if grep -qx 'ExecStart=/usr/bin/commdiag check --format prometheus $COMMDIAG_ARGS -o ${COMMDIAG_TEXTFILE}' "$UNIT/commdiag-check.service"; then ok; else
	bad "install: ExecStart is not /usr/bin/commdiag's: $(grep ExecStart "$UNIT/commdiag-check.service")"; fi
if grep -qx 'EnvironmentFile=-/etc/default/commdiag' "$UNIT/commdiag-check.service"; then ok; else bad "install: EnvironmentFile is not /etc/default/commdiag"; fi
if grep -n '/usr/local\|@[A-Z]*@' "$UNIT"/commdiag-check.* >"$TMP/left"; then bad "install: units keep $(cat "$TMP/left")"; else ok; fi
# the example's variables are the unit's, and in systemd's KEY=value form
python3 - "$DEST/etc/default/commdiag" "$UNIT/commdiag-check.service" >"$TMP/vars" 2>&1 <<'PY' || true
import re, sys
unit = open(sys.argv[2]).read()
for line in open(sys.argv[1]):
    m = re.match(r"#?([A-Z_]+)=(.*)$", line.strip())
    if m:
        if "$" + m.group(1) not in unit and "${" + m.group(1) + "}" not in unit:
            print(f"{m.group(1)} is not used by the unit")
        print("ARGS " + m.group(2).strip('"')) if m.group(1) == "COMMDIAG_ARGS" else None
    elif line.strip() and not line.startswith("#"):
        print(f"not a KEY=value line: {line.strip()}")
PY
if ! grep -v '^ARGS ' "$TMP/vars" | grep -q .; then ok; else bad "default file: $(grep -v '^ARGS ' "$TMP/vars")"; fi
# every COMMDIAG_ARGS it shows is valid for this commdiag
while read -r _ line; do
	read -r -a args <<<"$line"
	run "default file: COMMDIAG_ARGS=\"$line\"" "0 1" "$BIN" check --format prometheus "${args[@]}" --from "$DOCS/h100-faulty.json" -o "$TMP/def.prom"
done < <(grep '^ARGS ' "$TMP/vars")
# an administrator's file is never overwritten, nor removed
DEST2=$TMP/dest2
mkdir -p "$DEST2/etc/default"
echo 'COMMDIAG_ARGS=--timeout 100' >"$DEST2/etc/default/commdiag"
make -s -o commdiag install DESTDIR="$DEST2" PREFIX=/usr >/dev/null 2>&1
if [ "$(cat "$DEST2/etc/default/commdiag")" = 'COMMDIAG_ARGS=--timeout 100' ]; then ok; else bad "install overwrote an existing /etc/default/commdiag"; fi
make -s uninstall DESTDIR="$DEST2" PREFIX=/usr >"$TMP/out" 2>&1
left=$(cd "$DEST2" && find . ! -type d | sort)
if [ "$left" = ./etc/default/commdiag ]; then ok; else bad "uninstall with an administrator's default file: left '$left'"; fi
if grep -q 'was changed: kept' "$TMP/out"; then ok; else bad "uninstall: no word on the default file it kept: $(cat "$TMP/out")"; fi
# uninstall: nothing left, and none of commdiag's directories
if make -s uninstall DESTDIR="$DEST" PREFIX=/usr >"$TMP/out" 2>"$TMP/err"; then ok; else bad "make uninstall: $(tail -5 "$TMP/err")"; fi
left=$(cd "$DEST" && find . ! -type d | sort)
if [ -z "$left" ]; then ok; else bad "make uninstall left: $left"; fi
left=$(cd "$DEST" && find . -mindepth 1 -type d -empty -path '*commdiag*')
if [ -z "$left" ]; then ok; else bad "make uninstall left commdiag's directories: $left"; fi

# ---------------------------------------------------------------- the installed units, verified
# Another PREFIX, not staged: the unit's paths are real, so systemd's own parser can check
# its ExecStart (an executable), EnvironmentFile and Documentation (man:commdiag(1)).
P=$TMP/prefix
if make -s -o commdiag install PREFIX="$P" >"$TMP/out" 2>"$TMP/err"; then ok; else bad "make install PREFIX=$P: $(tail -5 "$TMP/err")"; fi
is_file "install PREFIX=$P" "$P/lib/systemd/system/commdiag-check.service"
is_file "install PREFIX=$P: SYSCONFDIR is PREFIX/etc" "$P/etc/default/commdiag"
if grep -qx "EnvironmentFile=-$P/etc/default/commdiag" "$P/lib/systemd/system/commdiag-check.service" &&
	grep -q "^ExecStart=$P/bin/commdiag " "$P/lib/systemd/system/commdiag-check.service"; then ok; else
	bad "install PREFIX=$P: the unit's paths are not PREFIX's"; fi
if command -v systemd-analyze >/dev/null; then
	rc=0
	MANPATH=$P/share/man systemd-analyze verify "$P/lib/systemd/system/commdiag-check.service" \
		"$P/lib/systemd/system/commdiag-check.timer" >"$TMP/verify" 2>&1 || rc=$?
	# an unknown key is only a warning there (exit 0): any output fails the test
	if [ "$rc" = 0 ] && [ ! -s "$TMP/verify" ]; then ok; else bad "systemd-analyze verify exit $rc: $(head -c 600 "$TMP/verify")"; fi
	# a broken copy: a key systemd does not know
	sed 's/^Nice=10$/Nicety=10/' "$P/lib/systemd/system/commdiag-check.service" >"$TMP/commdiag-check.service"
	verify_quiet() { [ -z "$(MANPATH=$P/share/man systemd-analyze verify "$1" 2>&1)" ]; }
	rejects "systemd-analyze: an unknown key" verify_quiet "$TMP/commdiag-check.service"
else
	skip "systemd-analyze not installed (Debian package systemd): the units not verified"
fi
# the service's command line as systemd runs it: Environment= defaults, $COMMDIAG_ARGS split
# at spaces, ${COMMDIAG_TEXTFILE} one word (moved here), on this host
svc=$P/lib/systemd/system/commdiag-check.service
def_args=$(sed -n 's/^Environment="COMMDIAG_ARGS=\(.*\)"$/\1/p' "$svc")
cmd=$(sed -n "s|^ExecStart=$P/bin/commdiag ||p" "$svc")
cmd=${cmd//\$\{COMMDIAG_TEXTFILE\}/$TMP/textfile.prom}
cmd=${cmd//\$COMMDIAG_ARGS/$def_args}
read -r -a args <<<"$cmd"
if [ -n "$def_args" ] && [[ $cmd != *'$'* ]]; then ok; else bad "service: ExecStart '$cmd' keeps a variable without a default"; fi
run "service command line" "0 1" "$P/bin/commdiag" "${args[@]}"
if [ "$have_promtool" = 1 ]; then
	: >"$TMP/promtool"
	if [ -s "$TMP/textfile.prom" ] && promtool check metrics <"$TMP/textfile.prom" >"$TMP/promtool" 2>&1; then ok; else
		bad "service metrics: none, or promtool: $(head -c 600 "$TMP/promtool")"; fi
fi
if make -s uninstall PREFIX="$P" >"$TMP/out" 2>"$TMP/err"; then ok; else bad "make uninstall PREFIX=$P: $(tail -5 "$TMP/err")"; fi
left=$(cd "$P" && find . ! -type d | sort)
if [ -z "$left" ]; then ok; else bad "make uninstall PREFIX=$P left: $left"; fi

schema_check

echo "deploy: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
