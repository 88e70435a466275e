#!/usr/bin/env bash
# Checks the Kubernetes manifests without a cluster (none can be started here):
#   - yamllint: every file is well-formed YAML in one style,
#   - kubernetes-validate --strict: every object matches the Kubernetes API schema (the schemas ship
#     in the PyPI package; no network at check time), unknown fields included,
#   - consistency the schemas cannot see: every Secret and ConfigMap a pod mounts exists, Services
#     select their pods, the StatefulSet names its headless Service, the namenode addresses in
#     creel-site.conf are the StatefulSet's pods in order (one per replica), and the site file holds
#     only keys conf/creel-site.conf documents.
# Needs python3 with PyYAML; installs yamllint and kubernetes-validate with pip when missing.
# Usage: deploy/kubernetes/check.sh   (about 10 s)
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v yamllint >/dev/null 2>&1 || ! command -v kubernetes-validate >/dev/null 2>&1; then
  python3 -m pip install -q yamllint kubernetes-validate || {
    echo "k8s check: cannot install yamllint and kubernetes-validate from PyPI" >&2; exit 2; }
fi
manifests=(namespace.yaml secrets.yaml configmap.yaml namenode.yaml storage.yaml)
yamllint -d '{extends: default, rules: {line-length: {max: 200}, document-start: disable, comments: {min-spaces-from-content: 1}, truthy: {check-keys: false}, octal-values: {forbid-implicit-octal: false}}}' \
  kustomization.yaml "${manifests[@]}"
kubernetes-validate --strict --quiet "${manifests[@]}"
python3 - "${manifests[@]}" <<'PYEOF'
import re, sys, yaml
docs = [d for f in sys.argv[1:] for d in yaml.safe_load_all(open(f)) if d]
by_kind = {}
for d in docs:
    by_kind.setdefault(d["kind"], {})[d["metadata"]["name"]] = d
problems = []
kust = yaml.safe_load(open("kustomization.yaml"))
if sorted(kust["resources"]) != sorted(sys.argv[1:]):
    problems.append("kustomization.yaml lists %s, the manifests are %s" % (kust["resources"], sys.argv[1:]))
for d in docs:
    if d["kind"] != "Namespace" and d["metadata"].get("namespace") != "creel":
        problems.append("%s %s is not in namespace creel" % (d["kind"], d["metadata"]["name"]))
workloads = {**by_kind.get("StatefulSet", {}), **by_kind.get("DaemonSet", {})}
for name, w in workloads.items():
    pod = w["spec"]["template"]
    if w["spec"]["selector"]["matchLabels"].items() - pod["metadata"]["labels"].items():
        problems.append("%s: its selector does not match its pods' labels" % name)
    for v in pod["spec"].get("volumes", []):
        if "secret" in v and v["secret"]["secretName"] not in by_kind.get("Secret", {}):
            problems.append("%s mounts Secret %s, which no manifest makes" % (name, v["secret"]["secretName"]))
        if "configMap" in v and v["configMap"]["name"] not in by_kind.get("ConfigMap", {}):
            problems.append("%s mounts ConfigMap %s, which no manifest makes" % (name, v["configMap"]["name"]))
    mounts = {m["name"] for c in pod["spec"]["containers"] + pod["spec"].get("initContainers", [])
              for m in c.get("volumeMounts", [])}
    declared = {v["name"] for v in pod["spec"].get("volumes", [])} | {
        t["metadata"]["name"] for t in w["spec"].get("volumeClaimTemplates", [])}
    for m in mounts - declared:
        problems.append("%s mounts volume %s, which it does not declare" % (name, m))
for name, svc in by_kind.get("Service", {}).items():
    sel = svc["spec"]["selector"].items()
    if not any(sel <= w["spec"]["template"]["metadata"]["labels"].items() for w in workloads.values()):
        problems.append("Service %s selects no pods" % name)
site = by_kind["ConfigMap"]["creel-site"]["data"]["creel-site.conf"]
settings = dict(re.findall(r"(?m)^\s*(creel\.[a-z0-9.]+)\s*=\s*(.*?)\s*$", site))
documented = set(re.findall(r"(?m)^# (creel\.[a-z0-9.]+) =", open("../../conf/creel-site.conf").read()))
for k in settings:
    if k not in documented:
        problems.append("creel-site.conf sets %s, which conf/creel-site.conf does not document" % k)
for name, ss in by_kind.get("StatefulSet", {}).items():
    svc = by_kind.get("Service", {}).get(ss["spec"]["serviceName"])
    if svc is None or svc["spec"].get("clusterIP") != "None":
        problems.append("StatefulSet %s: serviceName %s is no headless Service" % (name, ss["spec"]["serviceName"]))
    want = ",".join("creel://%s-%d.%s.creel.svc.cluster.local:9060" % (name, i, ss["spec"]["serviceName"])
                    for i in range(ss["spec"]["replicas"]))
    if settings.get("creel.namenode.address") != want:
        problems.append("creel.namenode.address is %s; %d replicas of %s need %s"
                        % (settings.get("creel.namenode.address"), ss["spec"]["replicas"], name, want))
if problems:
    sys.exit("k8s check: " + "\n  ".join([""] + problems))
print("k8s check: %d objects valid and consistent" % len(docs))
PYEOF
