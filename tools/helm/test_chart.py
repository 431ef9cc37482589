"""Template assertions on helm/glassledger, run by tools/helm/check (pytest in its venv; HELM names the binary).

Each test renders the chart with `helm template` (release "rel", namespace "ledger") and checks the YAML.
"""
import base64
import functools
import json
import os
import pathlib
import subprocess

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHART = pathlib.Path(os.environ.get("GLASSLEDGER_CHART", ROOT / "helm" / "glassledger"))
CI = CHART / "ci"
BAD = pathlib.Path(__file__).resolve().parent / "values"
HELM = os.environ.get("HELM", "helm")
REL, NS, F, D = "rel", "ledger", "rel-glassledger", "cluster.local"


def helm_template(*args):
    return subprocess.run([HELM, "template", REL, str(CHART), "-n", NS, *args],
                          capture_output=True, text=True, timeout=60)


@functools.lru_cache(maxsize=None)
def render(*args):
    p = helm_template(*args)
    assert p.returncode == 0, "helm template %s failed:\n%s" % (" ".join(args), p.stderr)
    return [d for d in yaml.safe_load_all(p.stdout) if d]


def ci(name):
    return ("-f", str(CI / name))


RENDERS = {
    "1x1": ci("1x1-values.yaml"),
    "3x3": ci("3x3-certmanager-values.yaml"),
    "auditor-only": ci("auditor-only-values.yaml"),
    "2x1": ci("2x1-selfsigned-values.yaml"),
}


def docs(render_args, kind=None, name=None):
    return [d for d in render(*render_args)
            if (kind is None or d["kind"] == kind) and (name is None or d["metadata"]["name"] == name)]


def one(render_args, kind, name):
    found = docs(render_args, kind, name)
    assert len(found) == 1, "%d %s/%s" % (len(found), kind, name)
    return found[0]


def pod_specs(render_args):
    return [(d["metadata"]["name"], d["spec"]["template"]["spec"]) for d in docs(render_args, "StatefulSet")]


def env_of(container):
    return [(e["name"], e.get("value")) for e in container.get("env", [])]


def host(s, r, fullname=F):
    return "%s-s%d-%d.%s-s%d.%s.svc.%s" % (fullname, s, r, fullname, s, NS, D)


# ---------------------------------------------------------------------------------------------- topology (3 x 3)

def test_each_shard_is_its_own_statefulset():
    sts = {d["metadata"]["name"]: d for d in docs(RENDERS["3x3"], "StatefulSet")}
    assert set(sts) == {F + "-s0", F + "-s1", F + "-s2", F + "-auditor"}
    for s in range(3):
        spec = sts["%s-s%d" % (F, s)]["spec"]
        assert spec["replicas"] == 3
        assert spec["podManagementPolicy"] == "Parallel"
        assert spec["serviceName"] == "%s-s%d" % (F, s)
        labels = spec["template"]["metadata"]["labels"]
        assert labels["glassledger.io/shard"] == str(s)
        assert labels["app.kubernetes.io/component"] == "server"
        assert spec["selector"]["matchLabels"]["glassledger.io/shard"] == str(s)
        [claim] = spec["volumeClaimTemplates"]
        assert claim["metadata"]["name"] == "data"
        assert claim["spec"]["resources"]["requests"]["storage"] == "50Gi"
        assert claim["spec"]["storageClassName"] == "fast-ssd"
        pod = spec["template"]["spec"]
        terms = pod["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
        assert terms[0]["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
        [spread] = pod["topologySpreadConstraints"]
        assert spread["topologyKey"] == "topology.kubernetes.io/zone"
        assert spread["whenUnsatisfiable"] == "ScheduleAnyway"
        ports = {p["name"]: p["containerPort"] for p in pod["containers"][0]["ports"]}
        assert ports == {"https": 8443, "management": 8444, "raft": 9600, "directory": 9700}


def test_one_headless_service_per_shard():
    for s in range(3):
        svc = one(RENDERS["3x3"], "Service", "%s-s%d" % (F, s))["spec"]
        assert svc["clusterIP"] == "None"
        assert svc["publishNotReadyAddresses"] is True
        assert svc["selector"]["glassledger.io/shard"] == str(s)
        assert {p["name"]: p["port"] for p in svc["ports"]} == {"https": 8443, "raft": 9600, "directory": 9700}
    client = one(RENDERS["3x3"], "Service", F)["spec"]
    assert client["type"] == "ClusterIP"
    assert [(p["name"], p["port"]) for p in client["ports"]] == [("https", 8443)]
    assert "glassledger.io/shard" not in client["selector"]
    assert client["selector"]["app.kubernetes.io/component"] == "server"


def test_a_pdb_per_shard_with_max_unavailable_1():
    for key in ("3x3", "1x1", "2x1"):
        sts = [d for d in docs(RENDERS[key], "StatefulSet") if d["metadata"]["name"] != F + "-auditor"
               and not d["metadata"]["name"].endswith("-auditor")]
        pdbs = {d["metadata"]["name"]: d["spec"] for d in docs(RENDERS[key], "PodDisruptionBudget")}
        assert len(pdbs) == len(sts) > 0
        for st in sts:
            pdb = pdbs[st["metadata"]["name"]]
            assert pdb["maxUnavailable"] == 1
            assert pdb["selector"]["matchLabels"] == st["spec"]["selector"]["matchLabels"]


def expected_server_env(n, r, s, fullname=F):
    """The contract, written out independently of the templates."""
    env = [("POD_NAME", None), ("GLASSLEDGER_SHARD", str(s)), ("GLASSLEDGER_CLUSTER_SHARDS", str(n)),
           ("MANAGEMENT_SERVER_PORT", "8444")]
    if n * r > 1:
        env.append(("GLASSLEDGER_CLUSTER_PEERS", ",".join(
            "|".join("https://%s:8443" % host(i, k, fullname) for k in range(r)) for i in range(n))))
    if r > 1:
        env += [
            ("GLASSLEDGER_REPLICATION_PEERS", ",".join("%s:9600" % host(s, k, fullname) for k in range(r))),
            ("GLASSLEDGER_REPLICATION_URLS", ",".join("https://%s:8443" % host(s, k, fullname) for k in range(r))),
            ("GLASSLEDGER_REPLICATION_SELF", "$(POD_NAME).%s-s%d.%s.svc.%s:9600" % (fullname, s, NS, D)),
            ("GLASSLEDGER_REPLICATION_LISTEN", "0.0.0.0:9600"),
        ]
    if n * r > 1:
        env += [
            ("GLASSLEDGER_DIRECTORY_PEERS",
             ",".join("%s:9700" % host(i, k, fullname) for i in range(n) for k in range(r))),
            ("GLASSLEDGER_DIRECTORY_SELF", "$(POD_NAME).%s-s%d.%s.svc.%s:9700" % (fullname, s, NS, D)),
            ("GLASSLEDGER_DIRECTORY_LISTEN", "0.0.0.0:9700"),
            ("GLASSLEDGER_DIRECTORY_VOTERS", str(r if r > 1 else 3 if n >= 3 else 1)),
        ]
    return env


def server_env(render_args, s, fullname=F):
    pod = one(render_args, "StatefulSet", "%s-s%d" % (fullname, s))["spec"]["template"]["spec"]
    [c] = pod["containers"]
    return c["env"], env_of(c)


def test_certManager_membersTrustItsCa_mounted_fromTheTlsSecret():
    pod = one(RENDERS["3x3"], "StatefulSet", "%s-s0" % F)["spec"]["template"]["spec"]
    [tls] = [v for v in pod["volumes"] if v["name"] == "tls"]
    assert {"key": "ca.crt", "path": "ca.crt"} in tls["secret"]["items"]


def test_env_wiring_3x3_is_exact():
    for s in range(3):
        raw, env = server_env(RENDERS["3x3"], s)
        assert raw[0] == {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}
        assert env == expected_server_env(3, 3, s) + [
            ("SERVER_SSL_CERTIFICATE", "/etc/glassledger/tls/tls.crt"),
            ("SERVER_SSL_CERTIFICATE_PRIVATE_KEY", "/etc/glassledger/tls/tls.key"),
            # cert-manager issues the certificate (3x3 values): members trust its CA on the directory's Raft port
            ("GLASSLEDGER_MEMBERTLS_TRUST", "/etc/glassledger/tls/ca.crt"),
            ("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=70"),
            ("GLASSLEDGER_PERSIST_INTERVAL", "50ms"),  # extraEnv, last
        ]


def test_env_wiring_1x1_has_no_peers():
    _, env = server_env(RENDERS["1x1"], 0)
    assert env == expected_server_env(1, 1, 0) + [
        ("SERVER_SSL_CERTIFICATE", "/etc/glassledger/tls/tls.crt"),
        ("SERVER_SSL_CERTIFICATE_PRIVATE_KEY", "/etc/glassledger/tls/tls.key"),
        ("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=70"),
    ]
    pod = one(RENDERS["1x1"], "StatefulSet", F + "-s0")["spec"]["template"]["spec"]
    assert [p["name"] for p in pod["containers"][0]["ports"]] == ["https", "management"]
    assert [p["name"] for p in one(RENDERS["1x1"], "Service", F + "-s0")["spec"]["ports"]] == ["https"]
    items = [v for v in pod["volumes"] if v["name"] == "secrets"][0]["secret"]["items"]
    assert "glassledger.cluster.peer-key" not in [i["key"] for i in items]


def test_env_wiring_2x1_directory_without_raft():
    for s in range(2):
        _, env = server_env(RENDERS["2x1"], s, fullname="gl")
        assert env[:len(expected_server_env(2, 1, s, "gl"))] == expected_server_env(2, 1, s, "gl")
        assert not [k for k, _ in env if k.startswith("GLASSLEDGER_REPLICATION_")]
        assert dict(env)["GLASSLEDGER_DIRECTORY_VOTERS"] == "1"


@pytest.mark.parametrize("n,r,voters", [(3, 1, "3"), (1, 3, "3"), (2, 1, "1"), (4, 5, "5"), (5, 1, "3")])
def test_directory_voters(n, r, voters):
    args = ci("1x1-values.yaml") + ("--set", "shards.count=%d" % n, "--set", "shards.replicas=%d" % r)
    for s in range(n):
        _, env = server_env(args, s)
        assert env[:len(expected_server_env(n, r, s))] == expected_server_env(n, r, s)
        assert dict(env)["GLASSLEDGER_DIRECTORY_VOTERS"] == voters


def test_cluster_properties():
    cm = one(RENDERS["3x3"], "ConfigMap", F + "-cluster")
    lines = cm["data"]["cluster.properties"].splitlines()
    assert lines == ["shards=3", "map-version=1"] + [
        "url.%d=%s" % (s, ",".join("https://%s:8443" % host(s, r) for r in range(3))) for s in range(3)]
    assert not [l for l in lines if l.startswith("pin")]


def test_certificate_covers_every_name():
    cert = one(RENDERS["3x3"], "Certificate", F)["spec"]
    names = set(cert["dnsNames"])
    for s in range(3):
        assert "*.%s-s%d.%s.svc.%s" % (F, s, NS, D) in names
        assert "%s-s%d.%s.svc.%s" % (F, s, NS, D) in names
    assert {F, "%s.%s" % (F, NS), "%s.%s.svc" % (F, NS), "%s.%s.svc.%s" % (F, NS, D), "ledger.example.com"} <= names
    assert cert["secretName"] == F + "-tls"
    assert cert["issuerRef"] == {"name": "glassledger-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"}
    # One certificate serves clients and, for mutual TLS between members, authenticates members to each other.
    assert {"server auth", "client auth"} <= set(cert["usages"])
    sts = one(RENDERS["3x3"], "StatefulSet", F + "-s0")["spec"]["template"]["spec"]
    assert [v for v in sts["volumes"] if v["name"] == "tls"][0]["secret"]["secretName"] == F + "-tls"
    # 2 x 1: a self-signed Issuer of the release.
    issuer = one(RENDERS["2x1"], "Issuer", "gl-selfsigned")
    assert issuer["spec"] == {"selfSigned": {}}
    assert one(RENDERS["2x1"], "Certificate", "gl")["spec"]["issuerRef"]["name"] == "gl-selfsigned"


# -------------------------------------------------------------------------------------------------- the auditor

def auditor(render_args, fullname=F):
    st = one(render_args, "StatefulSet", fullname + "-auditor")
    pod = st["spec"]["template"]["spec"]
    [c] = pod["containers"]
    return st, pod, c


def test_auditor_of_the_same_release():
    st, pod, c = auditor(RENDERS["3x3"])
    assert c["args"] == ["auditor"]
    assert [(p["name"], p["containerPort"]) for p in c["ports"]] == [("https", 8480)]
    env = dict(env_of(c))
    assert env["GLASSLEDGER_AUDITOR_CLUSTER"] == "/etc/glassledger/cluster/cluster.properties"
    assert env["GLASSLEDGER_AUDITOR_PIN_CERTIFICATE"] == "/etc/glassledger/cluster-tls/tls.crt"
    assert "GLASSLEDGER_AUDITOR_PIN" not in env
    vols = {v["name"]: v for v in pod["volumes"]}
    assert vols["cluster"]["configMap"]["name"] == F + "-cluster"
    assert vols["cluster-tls"]["secret"] == {"secretName": F + "-tls", "defaultMode": 0o440,
                                             "items": [{"key": "tls.crt", "path": "tls.crt"}]}
    assert vols["secrets"]["secret"]["items"] == [{"key": "glassledger.auth.auditor-key",
                                                   "path": "glassledger.auditor.api-key"}]
    mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
    assert mounts["secrets"] == "/etc/glassledger/secrets"
    assert mounts["cluster-tls"] == "/etc/glassledger/cluster-tls"
    svc = one(RENDERS["3x3"], "Service", F + "-auditor")["spec"]
    assert [(p["name"], p["port"]) for p in svc["ports"]] == [("https", 8480)]


def test_auditor_only():
    r = RENDERS["auditor-only"]
    assert [d["metadata"]["name"] for d in docs(r, "StatefulSet")] == [F + "-auditor"]
    assert not docs(r, "Secret") and not docs(r, "PodDisruptionBudget")
    assert [d["metadata"]["name"] for d in docs(r, "Service")] == [F + "-auditor"]
    cm = one(r, "ConfigMap", F + "-auditor-cluster")["data"]["cluster.properties"].splitlines()
    urls = lambda s: ",".join("https://ledger-glassledger-s%d-%d.ledger-glassledger-s%d.prod.svc.cluster.local:8443"
                              % (s, k, s) for k in range(3))
    assert cm == ["shards=2", "map-version=1", "url.0=" + urls(0), "url.1=" + urls(1)]
    st, pod, c = auditor(r)
    env = dict(env_of(c))
    assert env["GLASSLEDGER_AUDITOR_PIN"] == "3f9a1c0e5b7d2468ace013579bdf2468ace013579bdf2468ace013579bdf2468"
    assert "GLASSLEDGER_AUDITOR_PIN_CERTIFICATE" not in env
    assert env["SERVER_SSL_CERTIFICATE"] == "/etc/glassledger/tls/tls.crt"
    assert env["SERVER_SSL_CERTIFICATE_PRIVATE_KEY"] == "/etc/glassledger/tls/tls.key"
    vols = {v["name"]: v for v in pod["volumes"]}
    assert vols["secrets"]["secret"]["secretName"] == "prod-ledger-auditor-key"
    assert vols["secrets"]["secret"]["items"] == [{"key": "api-key", "path": "glassledger.auditor.api-key"}]
    assert vols["cluster"]["configMap"]["name"] == F + "-auditor-cluster"
    assert vols["tls"]["secret"]["secretName"] == "auditor-tls"
    assert "cluster-tls" not in vols


# -------------------------------------------------------------------------------------- every pod, every render

@pytest.mark.parametrize("key", sorted(RENDERS))
def test_pods_are_locked_down(key):
    specs = pod_specs(RENDERS[key])
    assert specs
    for name, pod in specs:
        sc = pod["securityContext"]
        assert sc["runAsNonRoot"] is True and sc["runAsUser"] == 65532 and sc["fsGroup"] == 65532, name
        assert pod["automountServiceAccountToken"] is False
        assert pod["enableServiceLinks"] is False
        assert "initContainers" not in pod
        for c in pod["containers"]:
            csc = c["securityContext"]
            assert csc["runAsNonRoot"] is True and csc["runAsUser"] == 65532, name
            assert csc["readOnlyRootFilesystem"] is True, name
            assert csc["allowPrivilegeEscalation"] is False, name
            assert csc["capabilities"]["drop"] == ["ALL"], name
            assert "add" not in csc["capabilities"]
            assert not csc.get("privileged")
            assert "command" not in c, "the image's entrypoint is fixed"
            assert c["args"][0] in ("server", "auditor")
            assert not [a for a in c["args"] if a in ("sh", "-c", "/bin/sh", "bash")]
            mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
            assert "/data" in mounts and "/tmp" in mounts
            vols = {v["name"]: v for v in pod["volumes"]}
            assert "emptyDir" in vols[mounts["/tmp"]]
            for m in c["volumeMounts"]:
                if m["mountPath"].startswith("/etc/glassledger/"):
                    assert m.get("readOnly") is True, m
            port = 8443 if c["name"] == "server" else 8480
            assert [p["containerPort"] for p in c["ports"] if p["name"] == "https"] == [port]
            # A server's probes on its management port, which the API's connections cannot exhaust.
            probed = "management" if c["name"] == "server" else "https"
            if c["name"] == "server":
                assert [p["containerPort"] for p in c["ports"] if p["name"] == "management"] == [8444]
            for probe, path in (("startupProbe", "/actuator/health/liveness"),
                                ("livenessProbe", "/actuator/health/liveness"),
                                ("readinessProbe", "/actuator/health/readiness")):
                get = c[probe]["httpGet"]
                assert (get["path"], get["port"], get["scheme"]) == (path, probed, "HTTPS"), (name, probe)
            assert c["startupProbe"]["failureThreshold"] * c["startupProbe"]["periodSeconds"] >= 300
            assert c["image"] == "glassledger:0.1.0-SNAPSHOT"


@pytest.mark.parametrize("key", sorted(RENDERS))
def test_standard_labels(key):
    for d in render(*RENDERS[key]):
        labels = d["metadata"]["labels"]
        for k in ("app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version",
                  "app.kubernetes.io/managed-by", "helm.sh/chart"):
            assert k in labels, (d["kind"], d["metadata"]["name"], k)
        assert d["metadata"]["namespace"] == NS


# ------------------------------------------------------------------------------------------------------ secrets

def env_values(d):
    out = []
    if d["kind"] == "StatefulSet":
        for c in d["spec"]["template"]["spec"]["containers"]:
            out += [e["value"] for e in c.get("env", []) if "value" in e]
    return out


@pytest.mark.parametrize("key", ["3x3", "1x1"])
def test_each_replicated_shard_mounts_its_own_signing_key_as_the_config_trees_server_key(key):
    for sts in docs(RENDERS[key], "StatefulSet"):
        if sts["metadata"]["labels"].get("app.kubernetes.io/component") != "server":
            continue
        shard = int(sts["metadata"]["labels"]["glassledger.io/shard"])
        [vol] = [v for v in sts["spec"]["template"]["spec"]["volumes"] if v["name"] == "secrets"]
        items = {i["path"]: i["key"] for i in vol["secret"]["items"]}
        if key == "3x3":
            assert items["glassledger.auth.server-key"] == "glassledger.shard-%d.server-key" % shard
        else:
            assert "glassledger.auth.server-key" not in items


@pytest.mark.parametrize("key", ["3x3", "1x1"])
def test_secret_values_never_leave_the_secret(key):
    [secret] = docs(RENDERS[key], "Secret")
    assert secret["metadata"]["name"] == F + "-secrets"
    assert secret["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    data = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    shard_keys = {"glassledger.shard-%d.server-key" % i for i in range(3)} if key == "3x3" else set()
    assert set(data) == {"glassledger.cluster.peer-key", "glassledger.auth.admin-key",
                         "glassledger.auth.client-key", "glassledger.auth.auditor-key"} | shard_keys
    assert len(set(data.values())) == 4 + len(shard_keys)
    for k, v in data.items():
        if k in shard_keys:
            assert len(v) == 64 and all(c in "0123456789abcdef" for c in v), k  # an Ed25519 seed in hex
        else:
            assert len(v) >= 24 and v.isprintable() and " " not in v
    for d in render(*RENDERS[key]):
        if d is secret:
            continue
        text = json.dumps(d)
        for k, v in data.items():
            assert v not in text, "%s leaks into %s/%s" % (k, d["kind"], d["metadata"]["name"])
            assert base64.b64encode(v.encode()).decode() not in text
        if d["kind"] == "ConfigMap":
            for content in d["data"].values():
                assert "key" not in content.lower() or "map-version" in content, d["metadata"]["name"]
        for value in env_values(d):
            assert value not in data.values()


def test_secrets_are_a_config_tree():
    for s in range(3):
        pod = one(RENDERS["3x3"], "StatefulSet", "%s-s%d" % (F, s))["spec"]["template"]["spec"]
        [c] = pod["containers"]
        assert {m["name"]: m["mountPath"] for m in c["volumeMounts"]}["secrets"] == "/etc/glassledger/secrets"
        vol = [v for v in pod["volumes"] if v["name"] == "secrets"][0]["secret"]
        assert vol["secretName"] == F + "-secrets"
        assert [(i["key"], i["path"]) for i in vol["items"]] == [(k, k) for k in (
            "glassledger.cluster.peer-key", "glassledger.auth.admin-key", "glassledger.auth.client-key",
            "glassledger.auth.auditor-key")] + [("glassledger.shard-%d.server-key" % s, "glassledger.auth.server-key")]
        for e in c["env"]:
            assert "secretKeyRef" not in json.dumps(e)
    # An existing auth Secret: nothing generated.
    assert not docs(RENDERS["2x1"], "Secret")
    pod = one(RENDERS["2x1"], "StatefulSet", "gl-s0")["spec"]["template"]["spec"]
    assert [v for v in pod["volumes"] if v["name"] == "secrets"][0]["secret"]["secretName"] == "gl-auth"


# --------------------------------------------------------------------------------------------- optional extras

def test_service_monitor_and_network_policy():
    sm = one(RENDERS["3x3"], "ServiceMonitor", F)["spec"]
    [ep] = sm["endpoints"]
    assert (ep["port"], ep["path"], ep["scheme"]) == ("management", "/actuator/prometheus", "https")
    assert ep["bearerTokenSecret"] == {"name": F + "-secrets", "key": "glassledger.auth.auditor-key"}
    # The key goes only to a server whose certificate verifies: cert-manager's CA, a name the certificate carries.
    assert ep["tlsConfig"] == {"ca": {"secret": {"name": F + "-tls", "key": "ca.crt"}},
                               "serverName": "%s.%s.svc.%s" % (F, NS, D)}
    assert "%s.%s.svc.%s" % (F, NS, D) in one(RENDERS["3x3"], "Certificate", F)["spec"]["dnsNames"]
    # The management ports through a headless Service of their own, never the client Service (maybe a LoadBalancer).
    assert sm["selector"]["matchLabels"]["glassledger.io/service"] == "management"
    management = one(RENDERS["3x3"], "Service", F + "-management")
    assert all(management["metadata"]["labels"].get(k) == v for k, v in sm["selector"]["matchLabels"].items())
    assert management["spec"]["clusterIP"] == "None"
    assert [(p["name"], p["port"], p["targetPort"]) for p in management["spec"]["ports"]] == \
        [("management", 8444, "management")]
    client = one(RENDERS["3x3"], "Service", F)
    assert not all(client["metadata"]["labels"].get(k) == v for k, v in sm["selector"]["matchLabels"].items())
    assert one(RENDERS["2x1"], "ServiceMonitor", "gl")["spec"]["endpoints"][0]["tlsConfig"]["ca"] == \
        {"secret": {"name": "gl-tls", "key": "ca.crt"}}

    server = one(RENDERS["3x3"], "NetworkPolicy", F + "-server")["spec"]
    https, management, peers = server["ingress"]
    assert [p["port"] for p in https["ports"]] == [8443]
    assert {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "apps"}}} in https["from"]
    assert [p["port"] for p in management["ports"]] == [8444]
    assert management["from"] == [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}]
    assert [p["port"] for p in peers["ports"]] == [9600, 9700]
    [only] = peers["from"]
    assert only["podSelector"]["matchLabels"]["app.kubernetes.io/component"] == "server"
    assert only["podSelector"]["matchLabels"]["app.kubernetes.io/instance"] == REL
    aud = one(RENDERS["3x3"], "NetworkPolicy", F + "-auditor")["spec"]
    assert [p["port"] for p in aud["ingress"][0]["ports"]] == [8480]
    # Nothing optional by default.
    for d in render(*RENDERS["1x1"]):
        assert d["kind"] not in ("ServiceMonitor", "Certificate", "Issuer")


@pytest.mark.parametrize("args,ca", [
    (("--set", "metrics.serviceMonitor.enabled=true"), {"name": F + "-tls", "key": "tls.crt"}),
    (ci("1x1-values.yaml") + ("--set", "metrics.serviceMonitor.enabled=true"), {"name": "glassledger-tls",
                                                                               "key": "tls.crt"}),
    (ci("1x1-values.yaml") + ("--set", "metrics.serviceMonitor.enabled=true", "--set",
                              "metrics.serviceMonitor.caSecret.name=corp-ca"), {"name": "corp-ca", "key": "ca.crt"}),
])
def test_service_monitor_verifies_the_certificate_it_sends_the_key_to(args, ca):
    # Self-signed by the chart, or an existing Secret: the certificate itself is trusted (as clients pin it).
    [ep] = one(args, "ServiceMonitor", F)["spec"]["endpoints"]
    assert ep["tlsConfig"] == {"ca": {"secret": ca}, "serverName": "%s.%s.svc.%s" % (F, NS, D)}


@pytest.mark.parametrize("args,rules", [
    ((), [[8443]]),
    (("--set", "shards.count=3"), [[8443], [9700]]),
    (("--set", "shards.replicas=3"), [[8443], [9600, 9700]]),
])
def test_network_policy_is_on_by_default(args, rules):
    server = one(args, "NetworkPolicy", F + "-server")["spec"]
    assert server["podSelector"]["matchLabels"]["app.kubernetes.io/component"] == "server"
    assert server["policyTypes"] == ["Ingress"]
    assert [[p["port"] for p in rule["ports"]] for rule in server["ingress"]] == rules
    https = server["ingress"][0]
    assert "from" not in https, "the API from anywhere unless networkPolicy.server.httpsFrom says"
    for peers in server["ingress"][1:]:  # Raft and the directory: this release's servers only
        [only] = peers["from"]
        assert only == {"podSelector": {"matchLabels": {"app.kubernetes.io/name": "glassledger",
                                                        "app.kubernetes.io/instance": REL,
                                                        "app.kubernetes.io/component": "server"}}}
    # No rule names the management port: the kubelet's probes only (not subject to NetworkPolicy on most CNIs).
    assert 8444 not in [p["port"] for rule in server["ingress"] for p in rule["ports"]]
    assert one(args, "NetworkPolicy", F + "-auditor")["spec"]["ingress"][0]["ports"] == [{"port": 8480,
                                                                                         "protocol": "TCP"}]
    off = ("--set", "networkPolicy.enabled=false") + args
    assert not docs(off, "NetworkPolicy")


# ------------------------------------------------------------------------------------------ refused values

@pytest.mark.parametrize("args,message", [
    (("-f", str(BAD / "invalid-misspelt-key.yaml")), "additional properties 'shard' not allowed"),
    (("-f", str(BAD / "invalid-replicas-type.yaml")), "got string, want integer"),
    (("-f", str(BAD / "invalid-nested-key.yaml")), "additional properties 'persistance' not allowed"),
    (ci("1x1-values.yaml") + ("--set", "shards.replicas=2"), "shards/replicas"),
    (ci("1x1-values.yaml") + ("--set", "shards.count=65"), "shards/count"),
    (ci("1x1-values.yaml") + ("--set", "server.service.type=Ingress"), "server/service/type"),
    (ci("1x1-values.yaml") + ("--set", "auditor.cluster.pin=nothex"), "auditor/cluster/pin"),
    (("--set", "shards.count=3", "--set", "shards.replicas=3", "--set", "tls.generate=false"),
     "set tls.existingSecret, tls.certManager.enabled or tls.generate"),
    (("--set", "shards.count=2", "--set", "auditor.enabled=false", "--set", "tls.generate=false"),
     "only a 1 x 1 release"),
    (("--set", "tls.generate=false"), "the auditor cannot pin it"),
    (ci("1x1-values.yaml") + ("--set", "tls.certManager.enabled=true"), "not both"),
    (("--set", "tls.certManager.enabled=true"), "issuerRef.name"),
    (("--set", "shards.count=0"), "give the cluster to audit"),
    (ci("auditor-only-values.yaml") + ("--set", "auditor.apiKey.existingSecret="), "auditor-only release needs"),
    (ci("auditor-only-values.yaml") + ("--set", "auditor.cluster.pin="), "auditor.cluster.pin"),
    (("--set", "tls.generate=false", "--set", "auditor.enabled=false", "--set", "metrics.serviceMonitor.enabled=true"),
     "Prometheus cannot verify it"),
    (ci("1x1-values.yaml") + ("--set", "metrics.serviceMonitor.insecureSkipVerify=true"),
     "additional properties 'insecureSkipVerify' not allowed"),
])
def test_refused(args, message):
    p = helm_template(*args)
    assert p.returncode != 0, "rendered although it should not: %s" % (args,)
    assert message in p.stderr, p.stderr


def test_without_a_generated_certificate_a_1x1_renders_without_the_auditor():
    # A bare 1 x 1 with its own self-signed certificate works once the auditor (which could not pin it) is off.
    args = ("--set", "auditor.enabled=false", "--set", "tls.generate=false")
    names = [d["metadata"]["name"] for d in render(*args) if d["kind"] == "StatefulSet"]
    assert names == [F + "-s0"]
    _, env = server_env(args, 0)
    assert not [k for k, _ in env if k.startswith("SERVER_SSL")]


@pytest.mark.parametrize("args", [(), ("--set", "shards.count=3", "--set", "shards.replicas=3")])
def test_defaults_make_one_certificate_for_every_member_which_servers_mount_and_the_auditor_pins(args):
    import subprocess
    import tempfile
    out = render(*args)
    [tls] = [d for d in out if d["kind"] == "Secret" and d["type"] == "kubernetes.io/tls"]
    assert tls["metadata"]["name"] == F + "-tls"
    assert tls["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    crt = base64.b64decode(tls["data"]["tls.crt"]).decode()
    key = base64.b64decode(tls["data"]["tls.key"]).decode()
    assert "BEGIN CERTIFICATE" in crt and "PRIVATE KEY" in key
    with tempfile.NamedTemporaryFile("w", suffix=".crt") as f:
        f.write(crt)
        f.flush()
        sans = subprocess.run(["openssl", "x509", "-noout", "-ext", "subjectAltName", "-in", f.name],
                              capture_output=True, text=True, check=True).stdout
        usages = subprocess.run(["openssl", "x509", "-noout", "-ext", "extendedKeyUsage", "-in", f.name],
                                capture_output=True, text=True, check=True).stdout
    assert "TLS Web Server Authentication" in usages and "TLS Web Client Authentication" in usages, usages
    shards = 3 if args else 1
    for s in range(shards):
        assert "DNS:*.%s-s%d.ledger.svc.cluster.local" % (F, s) in sans, sans
    assert "DNS:%s.ledger.svc.cluster.local" % F in sans, sans
    for d in out:
        if d is not tls:
            assert tls["data"]["tls.key"] not in json.dumps(d), "%s/%s" % (d["kind"], d["metadata"]["name"])
    for s in range(shards):
        _, env = server_env(args, s)
        assert ("SERVER_SSL_CERTIFICATE", "/etc/glassledger/tls/tls.crt") in env
    [auditor] = [d for d in out if d["kind"] == "StatefulSet" and d["metadata"]["name"] == F + "-auditor"]
    [c] = auditor["spec"]["template"]["spec"]["containers"]
    assert {"name": "GLASSLEDGER_AUDITOR_PIN_CERTIFICATE", "value": "/etc/glassledger/cluster-tls/tls.crt"} in c["env"]


# ------------------------------------------------------------------------------------------------------- NOTES

@functools.lru_cache(maxsize=None)
def notes_chart(tmp_root):
    """A copy of the chart whose NOTES.txt is also rendered by `helm template` (into a ConfigMap), which otherwise
    renders it only at install time, against a cluster."""
    import shutil
    copy = pathlib.Path(tmp_root) / "glassledger"
    shutil.copytree(CHART, copy)
    notes = (CHART / "templates" / "NOTES.txt").read_text()
    (copy / "templates" / "_notes_under_test.tpl").write_text('{{- define "notes-under-test" -}}\n' + notes
                                                              + '\n{{- end -}}\n')
    (copy / "templates" / "notes-under-test.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes-under-test\n"
        "data:\n  notes: {{ include \"notes-under-test\" . | toJson }}\n")
    return copy


@pytest.mark.parametrize("key", sorted(RENDERS))
def test_notes(key, tmp_path_factory):
    chart = notes_chart(str(tmp_path_factory.mktemp("notes")))
    values = [str(chart / "ci" / pathlib.Path(a).name) if a.endswith(".yaml") else a for a in RENDERS[key]]
    p = subprocess.run([HELM, "template", REL, str(chart), "-n", NS, *values, "--show-only",
                        "templates/notes-under-test.yaml"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    text = yaml.safe_load(p.stdout)["data"]["notes"]
    assert "<no value>" not in text
    if key == "auditor-only":
        assert "port-forward svc/%s-auditor 8480:8480" % F in text
        assert "ConfigMap %s-auditor-cluster" % F in text
        return
    fullname = "gl" if key == "2x1" else F
    assert "port-forward svc/%s 8443:8443" % fullname in text
    assert "https://%s.%s.svc.%s:8443" % (fullname, NS, D) in text
    assert "get configmap %s-cluster" % fullname in text
    tls = {"1x1": "glassledger-tls", "3x3": F + "-tls", "2x1": "gl-tls"}[key]
    assert ("get secret %s -o jsonpath='{.data.tls\\.crt}' | base64 -d | openssl x509 -outform der | sha256sum"
            % tls) in text
    auth = {"1x1": F + "-secrets", "3x3": F + "-secrets", "2x1": "gl-auth"}[key]
    for k in ("admin", "client", "auditor"):
        assert "get secret %s -o jsonpath='{.data.glassledger\\.auth\\.%s-key}' | base64 -d" % (auth, k) in text
    if key == "3x3":
        assert "renewal changes" in text and "ServiceMonitor" in text
        assert "verifying the servers' certificate against ca.crt of Secret %s-tls" % F in text
    # The NetworkPolicy is on by default, and says what it lets through.
    assert "NetworkPolicy %s-server: HTTPS (8443) from" % fullname in text
    assert "kubelet's probes come from the" in text
    assert "WARNING" not in text


def test_notes_warn_of_raft_without_the_network_policy(tmp_path_factory):
    chart = notes_chart(str(tmp_path_factory.mktemp("notes")))
    p = subprocess.run([HELM, "template", REL, str(chart), "-n", NS, "-f", str(chart / "ci" / "2x1-selfsigned-values.yaml"),
                        "--set", "networkPolicy.enabled=false", "--show-only", "templates/notes-under-test.yaml"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    text = yaml.safe_load(p.stdout)["data"]["notes"]
    # Raft and the directory carry no TLS: a release of several members without the NetworkPolicy is warned.
    assert "WARNING: the members' Raft (9600) and directory (9700) ports carry no TLS" in text
    assert "NetworkPolicy gl-server" not in text
