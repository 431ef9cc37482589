#!/usr/bin/env python3
"""The Helm chart's end-to-end test without a Kubernetes cluster (run by tools/helm/e2e).

Renders helm/glassledger with a values file (`helm template e2e <chart> -n e2e`), then runs every rendered pod's
containers from the image under Docker, playing the parts of Kubernetes and its controllers, and nothing more:

  cert-manager   each Certificate's Secret (spec.secretName: tls.crt, tls.key, ca.crt), made with openssl: a
                 self-signed EC P-256 (or RSA, per spec.privateKey) certificate with the Certificate's commonName
                 and dnsNames as SANs, its key in PKCS#8.
  API server     the rendered Secrets (data base64-decoded, stringData as is) and ConfigMaps.
  controllers    a StatefulSet makes pods <name>-<ordinal> for ordinal < replicas, a Deployment <name>-<i>; each
                 claim of a volumeClaimTemplate (and each persistentVolumeClaim volume) a fresh host directory.
  cluster DNS    every pod gets its own loopback address 127.0.0.(10+k). A StatefulSet pod whose serviceName is a
                 headless Service selecting it is <pod>.<service>.<ns>.svc.<clusterDomain> (only with
                 publishNotReadyAddresses: the hosts file is static, so a name that exists only once the pod is
                 ready cannot be emulated and is reported); every Service is <svc>.<ns>.svc.<domain>,
                 <svc>.<ns>.svc, <svc>.<ns> and <svc>, all mapped to the first pod it selects. Every container gets
                 all of these names with --add-host (it runs with --network host: the daemon has no bridge).
  kubelet        a container's command (--entrypoint, the rest before args), args, env (value, $(VAR) expansion of
                 earlier variables with $$ as the escape, fieldRef metadata.name / metadata.namespace /
                 status.podIP / status.hostIP / spec.nodeName, secretKeyRef, configMapKeyRef, envFrom), the image's
                 own environment kept underneath, volumes (emptyDir and claims: host directories, group fsGroup
                 and setgid when the pod has one; secret and configMap: a directory of the keys or only the items,
                 with defaultMode / item mode, group fsGroup, mounted read-only; subPath), securityContext (pod and
                 container merged: --user runAsUser:runAsGroup, --group-add fsGroup and supplementalGroups,
                 --read-only, --cap-drop/--cap-add, --security-opt no-new-privileges, runAsNonRoot refused for
                 UID 0), resources.limits (--memory, --cpus), workingDir, init containers (run to completion
                 first), and the probes: the startup probe, then the readiness probe (HTTP(S) GET on the pod's
                 address and the named port, no certificate check), the liveness probe once ready.

NetworkPolicies (on by default) are rendered but not emulated: every container shares the host's network.

THE ONE SUBSTITUTION made to a container spec: with host networking all pods share one network namespace, so a
process binding 0.0.0.0 would take its port on every pod's address. A bind address of 0.0.0.0 (an env value or an
argument that is `0.0.0.0`, `0.0.0.0:<port>` or ends in `=0.0.0.0[:<port>]`, and the image's own SERVER_ADDRESS)
becomes the pod's own address (a server's management port, where its probes are, binds its SERVER_ADDRESS unless
MANAGEMENT_SERVER_ADDRESS is given, so it moves with it). Each substitution is printed per pod. Everything else is
taken from the rendered spec as it is.

Then the checks, each printed PASS or FAIL: every pod ready; the cluster formed (each Raft group has exactly one
leader that all its replicas agree on, and every member's GET /v1/cluster shows the same shard map and directory);
ledger-cli (the image's `cli`) commits and verifies keys through it with the rendered <fullname>-cluster ConfigMap,
the pin of the TLS Secret's certificate and the client key of the rendered Secret, reads each back verified and
verifies the signed head; the rendered auditor audits every shard up to the last commit with no violation; and
(unless --no-failover) a replicated shard's leader is killed, a new one is elected, a commit still verifies, the
killed pod's container starts again with the same spec and volumes, becomes ready, and the auditor catches up.

Every container is labelled glassledger-e2e=1 and removed at the end (and leftovers of an earlier run at the
start); the temporary root is removed. Exit 0 only if every check passed.
"""
import argparse
import base64
import hashlib
import http.client
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import time

import yaml

LABEL = "glassledger-e2e"
PREFIX = "gle2e-"
FIRST_ADDR = 10
T0 = time.monotonic()


def log(msg):
    print("[%6.1fs] %s" % (time.monotonic() - T0, msg), flush=True)


class E2EError(Exception):
    pass


def run(cmd, check=True, timeout=120, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if check and p.returncode != 0:
        raise E2EError("%s failed (exit %d): %s" % (" ".join(cmd[:4]), p.returncode, (p.stderr or p.stdout).strip()))
    return p


# ---------------------------------------------------------------------------------------------------------------
# Rendering and the API server's objects

def render(helm, chart, values, release, namespace):
    p = run([helm, "template", release, chart, "-n", namespace, "-f", values], timeout=120)
    return [d for d in yaml.safe_load_all(p.stdout) if d]


def decode_secret(doc):
    out = {k: base64.b64decode(v) for k, v in (doc.get("data") or {}).items()}
    out.update({k: str(v).encode() for k, v in (doc.get("stringData") or {}).items()})
    return out


def decode_configmap(doc):
    out = {k: str(v).encode() for k, v in (doc.get("data") or {}).items()}
    out.update({k: base64.b64decode(v) for k, v in (doc.get("binaryData") or {}).items()})
    return out


def issue_certificate(cert, workdir):
    """What cert-manager would put in the Certificate's Secret (self-signed: clients pin the certificate)."""
    spec = cert["spec"]
    names = list(spec.get("dnsNames") or [])
    cn = spec.get("commonName") or (names[0] if names else cert["metadata"]["name"])
    pk = spec.get("privateKey") or {}
    algo = (pk.get("algorithm") or "RSA").upper()
    size = int(pk.get("size") or (256 if algo == "ECDSA" else 2048))
    os.makedirs(workdir, exist_ok=True)
    key, crt, cnf = (os.path.join(workdir, f) for f in ("tls.key", "tls.crt", "openssl.cnf"))
    if algo == "ECDSA":
        curve = {256: "P-256", 384: "P-384", 521: "P-521"}[size]
        run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:" + curve, "-out", key])
    elif algo == "RSA":
        run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:%d" % size, "-out", key])
    else:
        raise E2EError("Certificate %s: privateKey.algorithm %s is not emulated" % (cert["metadata"]["name"], algo))
    usages = set(spec.get("usages") or ["digital signature", "key encipherment"])
    ku = [k for u, k in (("digital signature", "digitalSignature"), ("key encipherment", "keyEncipherment"))
          if u in usages]
    eku = [k for u, k in (("server auth", "serverAuth"), ("client auth", "clientAuth")) if u in usages]
    with open(cnf, "w") as f:
        f.write("[req]\ndistinguished_name = dn\nprompt = no\nx509_extensions = ext\n[dn]\nCN = %s\n[ext]\n"
                "basicConstraints = critical, CA:%s\n" % (cn[:64], "TRUE" if spec.get("isCA") else "FALSE"))
        if ku:
            f.write("keyUsage = critical, %s\n" % ", ".join(ku))
        if eku:
            f.write("extendedKeyUsage = %s\n" % ", ".join(eku))
        if names or spec.get("ipAddresses"):
            sans = ["DNS:" + n for n in names] + ["IP:" + a for a in spec.get("ipAddresses") or []]
            f.write("subjectAltName = %s\n" % ", ".join(sans))
    days = max(1, int(parse_duration_hours(spec.get("duration") or "2160h") // 24))
    run(["openssl", "req", "-x509", "-new", "-key", key, "-config", cnf, "-days", str(days), "-out", crt])
    data = {"tls.key": open(key, "rb").read(), "tls.crt": open(crt, "rb").read()}
    data["ca.crt"] = data["tls.crt"]
    return data


def parse_duration_hours(s):
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", str(s))
    if not m:
        return 2160
    h, mi, se = (int(x or 0) for x in m.groups())
    return h + mi / 60 + se / 3600


def pin_of(pem_bytes):
    first = re.search(rb"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", pem_bytes, re.S)
    if not first:
        raise E2EError("no certificate in the TLS Secret")
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(first.group(0).decode())).hexdigest()


def memory_bytes(q):
    m = re.fullmatch(r"([0-9.]+)([EPTGMK]i?|[eptgmk])?", str(q))
    if not m:
        return None
    mult = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "K": 10**3, "k": 10**3, "M": 10**6, "G": 10**9,
            "T": 10**12, None: 1}
    return int(float(m.group(1)) * mult.get(m.group(2), 1))


def cpus(q):
    q = str(q)
    return float(q[:-1]) / 1000 if q.endswith("m") else float(q)


# ---------------------------------------------------------------------------------------------------------------
# Pods

class Pod:
    def __init__(self, name, owner, ordinal, template, claim_templates, addr):
        self.name, self.owner, self.ordinal = name, owner, ordinal
        self.labels = dict((template.get("metadata") or {}).get("labels") or {})
        self.spec = template["spec"]
        self.claim_templates = claim_templates
        self.addr = addr
        self.containers = []  # docker container names
        self.run_cmds = {}  # docker container name -> the docker run command (for a restart)

    @property
    def component(self):
        return self.labels.get("app.kubernetes.io/component", "")

    def container_port(self, container, port):
        if isinstance(port, int) or str(port).isdigit():
            return int(port)
        for p in container.get("ports") or []:
            if p.get("name") == port:
                return int(p["containerPort"])
        raise E2EError("pod %s: no container port named %s" % (self.name, port))


def make_pods(docs):
    pods = []
    k = 0
    for d in docs:
        kind = d.get("kind")
        if kind not in ("StatefulSet", "Deployment"):
            continue
        n = int(d["spec"].get("replicas", 1))
        for i in range(n):
            if FIRST_ADDR + k > 250:
                raise E2EError("too many pods for 127.0.0.x")
            pods.append(Pod("%s-%d" % (d["metadata"]["name"], i), d, i, d["spec"]["template"],
                            d["spec"].get("volumeClaimTemplates") or [], "127.0.0.%d" % (FIRST_ADDR + k)))
            k += 1
    return pods


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def dns_names(docs, pods, namespace, domain, notes):
    services = [d for d in docs if d.get("kind") == "Service"]
    hosts = {}
    for pod in pods:
        if pod.owner["kind"] != "StatefulSet":
            continue
        svc_name = pod.owner["spec"].get("serviceName")
        svc = next((s for s in services if s["metadata"]["name"] == svc_name), None)
        if svc is None:
            notes.append("StatefulSet %s: serviceName %s is no rendered Service: its pods have no DNS names"
                         % (pod.owner["metadata"]["name"], svc_name))
        elif svc["spec"].get("clusterIP") != "None":
            notes.append("StatefulSet %s: serviceName %s is not a headless Service: its pods have no DNS names"
                         % (pod.owner["metadata"]["name"], svc_name))
        elif not selects(svc["spec"].get("selector"), pod.labels):
            notes.append("Service %s does not select pod %s: it has no DNS name" % (svc_name, pod.name))
        elif not svc["spec"].get("publishNotReadyAddresses"):
            notes.append("Service %s: no publishNotReadyAddresses, so %s's name exists only once it is ready "
                         "(not emulated: given from the start)" % (svc_name, pod.name))
            hosts["%s.%s.%s.svc.%s" % (pod.name, svc_name, namespace, domain)] = pod.addr
        else:
            hosts["%s.%s.%s.svc.%s" % (pod.name, svc_name, namespace, domain)] = pod.addr
    for svc in services:
        name = svc["metadata"]["name"]
        behind = [p for p in pods if selects(svc["spec"].get("selector"), p.labels)]
        if not behind:
            notes.append("Service %s selects no rendered pod" % name)
            continue
        for n in ("%s.%s.svc.%s" % (name, namespace, domain), "%s.%s.svc" % (name, namespace),
                  "%s.%s" % (name, namespace), name):
            hosts.setdefault(n, behind[0].addr)
    return hosts


class Cluster:
    """The emulated API server, controllers and kubelet of one run."""

    def __init__(self, docs, namespace, domain, root, image_env):
        self.docs, self.namespace, self.domain, self.root = docs, namespace, domain, root
        self.image_env = image_env
        self.secrets = {d["metadata"]["name"]: decode_secret(d) for d in docs if d.get("kind") == "Secret"}
        self.configmaps = {d["metadata"]["name"]: decode_configmap(d) for d in docs if d.get("kind") == "ConfigMap"}
        self.notes = []
        for d in docs:
            if d.get("kind") == "Certificate":
                sn = d["spec"]["secretName"]
                self.secrets[sn] = issue_certificate(d, os.path.join(root, "cert-manager", d["metadata"]["name"]))
                log("cert-manager: Certificate %s -> Secret %s (%d SANs, pin %s)" % (
                    d["metadata"]["name"], sn, len(d["spec"].get("dnsNames") or []), pin_of(self.secrets[sn]["tls.crt"])))
        self.pods = make_pods(docs)
        self.hosts = dns_names(docs, self.pods, namespace, domain, self.notes)

    def add_hosts(self):
        out = []
        for n, a in sorted(self.hosts.items()):
            out += ["--add-host", "%s:%s" % (n, a)]
        return out

    # -- values from the API server
    def secret_key(self, name, key, optional=False):
        if name not in self.secrets or key not in self.secrets[name]:
            if optional:
                return None
            raise E2EError("Secret %s has no key %s (not rendered, not made by the emulated cert-manager)" % (name, key))
        return self.secrets[name][key]

    def configmap_key(self, name, key, optional=False):
        if name not in self.configmaps or key not in self.configmaps[name]:
            if optional:
                return None
            raise E2EError("ConfigMap %s has no key %s" % (name, key))
        return self.configmaps[name][key]

    # -- the kubelet
    def env_of(self, pod, c, subs):
        env = {}
        for ef in c.get("envFrom") or []:
            prefix = ef.get("prefix", "")
            if "configMapRef" in ef:
                src = self.configmaps.get(ef["configMapRef"]["name"])
                if src is None and not ef["configMapRef"].get("optional"):
                    raise E2EError("envFrom: no ConfigMap %s" % ef["configMapRef"]["name"])
            else:
                src = self.secrets.get(ef["secretRef"]["name"])
                if src is None and not ef["secretRef"].get("optional"):
                    raise E2EError("envFrom: no Secret %s" % ef["secretRef"]["name"])
            for k, v in (src or {}).items():
                env[prefix + k] = v.decode()
        for e in c.get("env") or []:
            name = e["name"]
            if "valueFrom" in e:
                vf = e["valueFrom"]
                if "fieldRef" in vf:
                    path = vf["fieldRef"]["fieldPath"]
                    fields = {"metadata.name": pod.name, "metadata.namespace": self.namespace,
                              "status.podIP": pod.addr, "status.podIPs": pod.addr, "status.hostIP": "127.0.0.1",
                              "spec.nodeName": "e2e-node", "spec.serviceAccountName":
                                  pod.spec.get("serviceAccountName", "default")}
                    m = re.fullmatch(r"metadata\.labels\['(.+)'\]", path)
                    if m:
                        fields[path] = pod.labels.get(m.group(1), "")
                    if path not in fields:
                        raise E2EError("pod %s: fieldRef %s is not emulated" % (pod.name, path))
                    value = fields[path]
                elif "secretKeyRef" in vf:
                    r = vf["secretKeyRef"]
                    v = self.secret_key(r["name"], r["key"], r.get("optional", False))
                    if v is None:
                        continue
                    value = v.decode()
                elif "configMapKeyRef" in vf:
                    r = vf["configMapKeyRef"]
                    v = self.configmap_key(r["name"], r["key"], r.get("optional", False))
                    if v is None:
                        continue
                    value = v.decode()
                else:
                    raise E2EError("pod %s: env %s: valueFrom %s is not emulated" % (pod.name, name, list(vf)))
            else:
                value = expand(str(e.get("value", "")), env)
                bound = bind_substitute(value, pod.addr)
                if bound != value:
                    subs.append("env %s=%s -> %s" % (name, value, bound))
                    value = bound
            env[name] = value
        if "SERVER_ADDRESS" not in env and self.image_env.get("SERVER_ADDRESS") == "0.0.0.0":
            env["SERVER_ADDRESS"] = pod.addr
            subs.append("image env SERVER_ADDRESS=0.0.0.0 -> %s" % pod.addr)
        return env

    def volume_dir(self, pod, vol_name, c_name):
        """The host directory of one of the pod's volumes, and whether Kubernetes mounts it read-only."""
        sc = pod.spec.get("securityContext") or {}
        fs_group = sc.get("fsGroup")
        vols = {v["name"]: v for v in pod.spec.get("volumes") or []}
        claims = {t["metadata"]["name"]: t for t in pod.claim_templates}
        base = os.path.join(self.root, "pods", pod.name)
        if vol_name in claims:
            path = os.path.join(self.root, "pv", "%s-%s" % (vol_name, pod.name))  # PVC <template>-<pod>
            if not os.path.isdir(path):
                writable_dir(path, fs_group, 0o777)
            return path, False
        if vol_name not in vols:
            raise E2EError("pod %s: container %s mounts %s, which is no volume nor claim" % (pod.name, c_name,
                                                                                                vol_name))
        v = vols[vol_name]
        path = os.path.join(base, "volumes", vol_name)
        if os.path.isdir(path):
            return path, ("secret" in v or "configMap" in v)
        if "emptyDir" in v:
            writable_dir(path, fs_group, 0o777)
            return path, False
        if "persistentVolumeClaim" in v:
            path = os.path.join(self.root, "pv", v["persistentVolumeClaim"]["claimName"])
            if not os.path.isdir(path):
                writable_dir(path, fs_group, 0o777)
            return path, bool(v["persistentVolumeClaim"].get("readOnly"))
        if "secret" in v or "configMap" in v:
            if "secret" in v:
                src, ref = v["secret"], v["secret"]["secretName"]
                data, default_mode = self.secrets.get(ref), src.get("defaultMode", 0o644)
            else:
                src, ref = v["configMap"], v["configMap"]["name"]
                data, default_mode = self.configmaps.get(ref), src.get("defaultMode", 0o644)
            if data is None:
                if src.get("optional"):
                    data = {}
                else:
                    raise E2EError("pod %s: volume %s: no %s %s" % (pod.name, vol_name,
                                                                   "Secret" if "secret" in v else "ConfigMap", ref))
            items = src.get("items")
            files = [(i["key"], i["path"], i.get("mode", default_mode)) for i in items] if items else \
                [(k, k, default_mode) for k in data]
            os.makedirs(path)
            os.chmod(path, 0o755)
            if fs_group is not None:
                os.chown(path, 0, int(fs_group))
            for key, rel, mode in files:
                if key not in data:
                    if src.get("optional"):
                        continue
                    raise E2EError("pod %s: volume %s: %s has no key %s" % (pod.name, vol_name, ref, key))
                f = os.path.join(path, rel)
                os.makedirs(os.path.dirname(f), exist_ok=True)
                with open(f, "wb") as out:
                    out.write(data[key])
                if fs_group is not None:
                    os.chown(f, 0, int(fs_group))
                    mode |= 0o040  # the kubelet makes secret and configMap files group-readable for fsGroup
                os.chmod(f, mode)
            return path, True
        raise E2EError("pod %s: volume %s: type %s is not emulated" % (pod.name, vol_name,
                                                                      [k for k in v if k != "name"]))

    def docker_run_cmd(self, pod, c, image_user, init=False):
        subs = []
        env = self.env_of(pod, c, subs)
        psc = dict(pod.spec.get("securityContext") or {})
        csc = dict(c.get("securityContext") or {})
        sc = {**{k: psc[k] for k in ("runAsUser", "runAsGroup", "runAsNonRoot") if k in psc}, **csc}
        cname = PREFIX + pod.name + ("-init-" if init else "-") + c["name"]
        cmd = ["docker", "run", "--name", cname, "--label", LABEL + "=1", "--label", LABEL + ".pod=" + pod.name,
               "--network", "host"] + self.add_hosts()
        if not init:
            cmd.insert(2, "-d")
        uid = sc.get("runAsUser")
        gid = sc.get("runAsGroup")
        if uid is None:
            image_uid = (image_user or "0").split(":")[0]
            if sc.get("runAsNonRoot") and image_uid in ("0", "root", ""):
                raise E2EError("pod %s: runAsNonRoot, but the image runs as root" % pod.name)
        else:
            if sc.get("runAsNonRoot") and int(uid) == 0:
                raise E2EError("pod %s: runAsNonRoot with runAsUser 0" % pod.name)
            cmd += ["--user", "%s:%s" % (uid, gid if gid is not None else 0)]
        for g in ([psc["fsGroup"]] if "fsGroup" in psc else []) + list(psc.get("supplementalGroups") or []):
            cmd += ["--group-add", str(g)]
        if sc.get("readOnlyRootFilesystem"):
            cmd.append("--read-only")
        caps = sc.get("capabilities") or {}
        for cap in caps.get("drop") or []:
            cmd += ["--cap-drop", cap]
        for cap in caps.get("add") or []:
            cmd += ["--cap-add", cap]
        if sc.get("allowPrivilegeEscalation") is False:
            cmd += ["--security-opt", "no-new-privileges"]
        if sc.get("privileged"):
            cmd.append("--privileged")
        limits = (c.get("resources") or {}).get("limits") or {}
        if "memory" in limits and memory_bytes(limits["memory"]):
            cmd += ["--memory", str(memory_bytes(limits["memory"])), "--memory-swap",
                    str(memory_bytes(limits["memory"]))]
        if "cpu" in limits:
            cmd += ["--cpus", "%g" % cpus(limits["cpu"])]
        if c.get("workingDir"):
            cmd += ["--workdir", c["workingDir"]]
        for vm in c.get("volumeMounts") or []:
            src, ro = self.volume_dir(pod, vm["name"], c["name"])
            if vm.get("subPath"):
                src = os.path.join(src, vm["subPath"])
                if not os.path.exists(src):
                    os.makedirs(src)
            ro = ro or bool(vm.get("readOnly"))
            cmd += ["--mount", "type=bind,src=%s,dst=%s%s" % (src, vm["mountPath"], ",readonly" if ro else "")]
        for k, v in env.items():
            cmd += ["-e", "%s=%s" % (k, v)]
        command = [expand(x, env) for x in c.get("command") or []]
        args = []
        for a in c.get("args") or []:
            x = expand(a, env)
            b = bind_substitute(x, pod.addr)
            if b != x:
                subs.append("arg %s -> %s" % (x, b))
            args.append(b)
        if command:
            cmd += ["--entrypoint", command[0]]
        cmd.append(c["image"])
        cmd += command[1:] + args
        return cname, cmd, subs


def writable_dir(path, fs_group, mode):
    """A fresh volume: the kubelet gives it the pod's fsGroup (group owner, setgid, group-writable)."""
    os.makedirs(path)
    if fs_group is not None:
        os.chown(path, 0, int(fs_group))
        os.chmod(path, 0o2000 | 0o775)
    else:
        os.chmod(path, mode)


def expand(s, env):
    """Kubernetes' $(VAR) expansion: only variables defined before; $$ is a literal $; unknown stays as is."""
    out, i = [], 0
    while i < len(s):
        if s[i] == "$" and i + 1 < len(s):
            if s[i + 1] == "$":
                out.append("$")
                i += 2
                continue
            if s[i + 1] == "(":
                j = s.find(")", i + 2)
                if j > 0:
                    name = s[i + 2:j]
                    out.append(env[name] if name in env else s[i:j + 1])
                    i = j + 1
                    continue
        out.append(s[i])
        i += 1
    return "".join(out)


BIND = re.compile(r"(^|=)0\.0\.0\.0(:\d+)?$")


def bind_substitute(value, addr):
    return BIND.sub(lambda m: m.group(1) + addr + (m.group(2) or ""), value)


# ---------------------------------------------------------------------------------------------------------------
# HTTP, the kubelet's and the checks'

NO_VERIFY = ssl.create_default_context()
NO_VERIFY.check_hostname = False
NO_VERIFY.verify_mode = ssl.CERT_NONE


def http_get(addr, port, path, scheme="HTTPS", key=None, timeout=3):
    if scheme.upper() == "HTTPS":
        conn = http.client.HTTPSConnection(addr, port, timeout=timeout, context=NO_VERIFY)
    else:
        conn = http.client.HTTPConnection(addr, port, timeout=timeout)
    try:
        headers = {"Authorization": "Bearer " + key} if key else {}
        conn.request("GET", path, headers=headers)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def probe(pod, c, pr):
    g = pr.get("httpGet")
    if not g:
        raise E2EError("pod %s: only httpGet probes are emulated" % pod.name)
    try:
        status, _ = http_get(g.get("host") or pod.addr, pod.container_port(c, g["port"]), g.get("path", "/"),
                             g.get("scheme", "HTTP"), timeout=int(pr.get("timeoutSeconds", 1)))
        return 200 <= status < 400
    except (OSError, http.client.HTTPException):
        return False


def container_running(name):
    p = run(["docker", "inspect", "--format", "{{.State.Running}} {{.State.ExitCode}}", name], check=False)
    return p.stdout.strip()


def docker_logs(name, tail=80):
    p = run(["docker", "logs", "--tail", str(tail), name], check=False, timeout=30)
    return (p.stdout + p.stderr).rstrip()


def wait_ready(pods, deadline):
    """The kubelet's probes of every container of these pods: startup, then readiness; liveness once ready."""
    pending = {(p.name, c["name"]): (p, c) for p in pods for c in p.spec["containers"]}
    started, ready, failed = set(), {}, {}
    while pending and time.monotonic() < deadline:
        for k, (p, c) in list(pending.items()):
            state = container_running(PREFIX + p.name + "-" + c["name"])
            if not state.startswith("true"):
                failed[k] = "container exited (%s)" % state
                del pending[k]
                continue
            if k not in started:
                if "startupProbe" not in c or probe(p, c, c["startupProbe"]):
                    started.add(k)
                else:
                    continue
            if "readinessProbe" not in c or probe(p, c, c["readinessProbe"]):
                live = "livenessProbe" not in c or probe(p, c, c["livenessProbe"])
                ready[k] = time.monotonic() - T0
                del pending[k]
                log("ready: %s/%s at %s (%.1fs)%s" % (p.name, c["name"], p.addr, ready[k],
                                                      "" if live else " BUT its liveness probe failed"))
                if not live:
                    failed[k] = "liveness probe failed once ready"
        if pending:
            time.sleep(1)
    for k in pending:
        failed[k] = "not ready in time (%s)" % ("started, readiness failing" if k in started else
                                                "startup probe failing")
    return failed


# ---------------------------------------------------------------------------------------------------------------
# The run

class Checks:
    def __init__(self):
        self.results = []

    def record(self, name, ok, detail=""):
        self.results.append((name, ok, detail))
        print("%s %s%s" % ("PASS" if ok else "FAIL", name, (": " + detail) if detail else ""), flush=True)
        return ok

    @property
    def ok(self):
        return bool(self.results) and all(r[1] for r in self.results)


def docker_json(*args):
    return json.loads(run(["docker"] + list(args)).stdout)


def remove_labelled():
    for _ in range(30):  # a daemon being restarted (by someone else) answers again within moments
        if run(["docker", "info"], check=False, timeout=30).returncode == 0:
            break
        time.sleep(1)
    ids = run(["docker", "ps", "-aq", "--filter", "label=%s=1" % LABEL], check=False).stdout.split()
    if ids:
        run(["docker", "rm", "-f"] + ids, check=False, timeout=120)
    return len(ids)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("values")
    ap.add_argument("--chart", required=True)
    ap.add_argument("--helm", default=os.environ.get("HELM", "helm"))
    ap.add_argument("--release", default="e2e")
    ap.add_argument("--namespace", default="e2e")
    # Each key is two ledger-cli runs (a container and a JVM each). 4: e2e-key-000..003 fall on both shards of a
    # 2-shard release (shards 1, 1, 0, 1), which the put check requires.
    ap.add_argument("--keys", type=int, default=4, help="keys committed and read back (default 4)")
    ap.add_argument("--ready-timeout", type=int, default=240)
    ap.add_argument("--no-failover", action="store_true", help="skip killing and restarting a leader")
    ap.add_argument("--keep", action="store_true", help="leave the containers and the temporary root")
    a = ap.parse_args()

    checks = Checks()
    root = tempfile.mkdtemp(prefix="glassledger-e2e-")
    os.chmod(root, 0o755)
    cluster = None
    try:
        n = remove_labelled()
        if n:
            log("removed %d container(s) left by an earlier run" % n)
        values = yaml.safe_load(open(a.values)) or {}
        domain = values.get("clusterDomain") or "cluster.local"
        docs = render(a.helm, a.chart, a.values, a.release, a.namespace)
        log("rendered %s with %s: %s" % (os.path.basename(a.chart), os.path.relpath(a.values),
                                        ", ".join("%s %s" % (d["kind"], d["metadata"]["name"]) for d in docs)))
        images = {c["image"] for d in docs if d.get("kind") in ("StatefulSet", "Deployment")
                  for c in d["spec"]["template"]["spec"]["containers"]}
        image_cfg = {}
        for img in images:
            p = run(["docker", "image", "inspect", img], check=False)
            if p.returncode != 0:
                raise E2EError("image %s is not loaded (no registry here: docker load it first)" % img)
            image_cfg[img] = json.loads(p.stdout)[0]["Config"]
        img0 = sorted(images)[0]
        image_env = dict(e.split("=", 1) for e in image_cfg[img0].get("Env") or [])
        cluster = Cluster(docs, a.namespace, domain, root, image_env)
        for note in cluster.notes:
            log("note: " + note)
        log("DNS (--add-host): " + ", ".join("%s=%s" % (h, ad) for h, ad in sorted(cluster.hosts.items())
                                             if h.count(".") >= 4))
        # Start every pod (Parallel pod management: all at once).
        for pod in cluster.pods:
            for ic in pod.spec.get("initContainers") or []:
                name, cmd, subs = cluster.docker_run_cmd(pod, ic, image_cfg.get(ic["image"], {}).get("User"), True)
                p = run(cmd, check=False, timeout=300)
                if p.returncode != 0:
                    raise E2EError("pod %s: init container %s exited %d:\n%s" % (pod.name, ic["name"],
                                                                                p.returncode, docker_logs(name)))
            for c in pod.spec["containers"]:
                name, cmd, subs = cluster.docker_run_cmd(pod, c, image_cfg[c["image"]].get("User"))
                run(cmd, timeout=60)
                pod.containers.append(name)
                pod.run_cmds[name] = cmd
                log("started pod %s (%s) at %s: %s %s; bind substitution: %s" % (
                    pod.name, c["name"], pod.addr, c["image"], " ".join(c.get("args") or []),
                    "; ".join(subs) or "none"))
        failed = wait_ready(cluster.pods, time.monotonic() + a.ready_timeout)
        for pod in cluster.pods:
            for c in pod.spec["containers"]:
                k = (pod.name, c["name"])
                checks.record("pod %s/%s ready" % k, k not in failed, failed.get(k, ""))
        if failed:
            dump_logs(cluster.pods)
            return 1
        servers = [p for p in cluster.pods if p.component == "server"]
        auditors = [p for p in cluster.pods if p.component == "auditor"]
        ctx = Context(cluster, a, root, checks)
        ctx.check_cluster(servers)
        last = ctx.sdk(servers)
        if auditors and last:
            ctx.check_auditor(auditors, last)
        if not a.no_failover and checks.ok:
            ctx.failover(servers, auditors)
        if not checks.ok:
            dump_logs(cluster.pods)
    except E2EError as e:
        checks.record("e2e run", False, str(e))
        if cluster:
            dump_logs(cluster.pods)
    except subprocess.TimeoutExpired as e:
        checks.record("e2e run", False, "timed out: %s" % " ".join(e.cmd[:5]))
        if cluster:
            dump_logs(cluster.pods)
    finally:
        if a.keep:
            log("kept the containers (label %s=1) and %s" % (LABEL, root))
        else:
            remove_labelled()
            shutil.rmtree(root, ignore_errors=True)
    passed = sum(1 for r in checks.results if r[1])
    print("\n== summary: %d/%d checks passed in %.0fs" % (passed, len(checks.results), time.monotonic() - T0))
    for name, ok, detail in checks.results:
        if not ok:
            print("   FAIL %s: %s" % (name, detail))
    print("tools/helm/e2e: %s" % ("all passed" if checks.ok else "FAILED"))
    return 0 if checks.ok else 1


def dump_logs(pods):
    for pod in pods:
        for name in pod.containers:
            print("---- docker logs --tail 80 %s (%s, %s)" % (name, pod.addr, container_running(name)))
            print(docker_logs(name))
    print("----", flush=True)


class Context:
    """The checks that talk to the running release."""

    def __init__(self, cluster, args, root, checks):
        self.cluster, self.args, self.root, self.checks = cluster, args, root, checks
        self.auth = self.find_auth_secret()
        tls = self.find_tls_secret()
        self.pin = pin_of(tls["tls.crt"]) if tls else None
        cm = next((n for n in cluster.configmaps if n.endswith("-cluster") and
                   "cluster.properties" in cluster.configmaps[n]), None)
        if cm is None:
            raise E2EError("no rendered ConfigMap <fullname>-cluster with cluster.properties")
        self.cluster_cm = cm
        self.cli_dir = os.path.join(root, "cli")
        os.makedirs(os.path.join(self.cli_dir, "config"))
        # As NOTES.txt tells a user: the ConfigMap's file (it has no pin= line) with the pin appended. (ledger-cli
        # refuses --pin beside a cluster file that pins none, as a contradiction.)
        with open(os.path.join(self.cli_dir, "config", "cluster.properties"), "wb") as f:
            f.write(cluster.configmaps[cm]["cluster.properties"])
            if self.pin:
                f.write(b"pin=%s\n" % self.pin.encode())
        os.makedirs(os.path.join(self.cli_dir, "state"))
        os.chmod(os.path.join(self.cli_dir, "state"), 0o777)
        self.image = next(c["image"] for p in cluster.pods for c in p.spec["containers"])
        self.runs = 0

    def find_auth_secret(self):
        for name, data in self.cluster.secrets.items():
            if "glassledger.auth.client-key" in data:
                return {k: v.decode() for k, v in data.items()}
        raise E2EError("no rendered Secret with glassledger.auth.client-key")

    def find_tls_secret(self):
        for pod in self.cluster.pods:
            for v in pod.spec.get("volumes") or []:
                if v.get("name") == "tls" and "secret" in v:
                    return self.cluster.secrets.get(v["secret"]["secretName"])
        return None

    def cli(self, *words, timeout=90):
        """ledger-cli from the image, as a client would run it: the rendered cluster file, pin, client key."""
        self.runs += 1
        cmd = ["docker", "run", "--rm", "--name", "%scli-%d" % (PREFIX, self.runs), "--label", LABEL + "=1",
               "--network", "host", "--user", "65532:65532"] + self.cluster.add_hosts() + [
            "--mount", "type=bind,src=%s,dst=/etc/glassledger/cluster,readonly" % os.path.join(self.cli_dir,
                                                                                               "config"),
            "--mount", "type=bind,src=%s,dst=/state" % os.path.join(self.cli_dir, "state"),
            "-e", "JAVA_TOOL_OPTIONS=-Xmx128m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto",
            self.image, "cli", "--cluster", "/etc/glassledger/cluster/cluster.properties",
            "--api-key", self.auth["glassledger.auth.client-key"], "--state", "/state/state.json",
            "--key-file", "/state/client.key", "--json"]
        p = run(cmd + list(words), check=False, timeout=timeout)
        out = p.stdout.strip()
        try:
            js = json.loads(out) if out else None
        except ValueError:
            js = None
        return p.returncode, js, (out + "\n" + p.stderr.strip()).strip()

    def api(self, pod, path, key):
        c = pod.spec["containers"][0]
        status, body = http_get(pod.addr, pod.container_port(c, "https"), path, key=key, timeout=5)
        return status, (json.loads(body) if body else None)

    def shards(self, servers):
        out = {}
        for p in servers:
            out.setdefault(p.labels.get("glassledger.io/shard", p.owner["metadata"]["name"]), []).append(p)
        return out

    def ask_all(self, pods, path, key):
        """GET path of every pod: its JSON answer, or what went wrong, by pod name."""
        views = {}
        for p in pods:
            try:
                status, js = self.api(p, path, key)
                views[p.name] = js if status == 200 else {"status": status, "body": js}
            except (OSError, http.client.HTTPException, ValueError) as e:
                views[p.name] = {"error": str(e)}
        return views

    def leaders(self, pods, deadline, not_pod=None):
        """Each replica's view of its group until they agree on one leader (not not_pod): (leader url, views)."""
        admin = self.auth["glassledger.auth.admin-key"]
        views = {}
        while True:
            views = self.ask_all(pods, "/v1/admin/replicas", admin)
            leaders = {v.get("leader") for v in views.values()}
            roles = [r for v in views.values() for r in (v.get("replicas") or []) if r.get("role") == "LEADER"]
            if len(leaders) == 1 and None not in leaders and len({r["url"] for r in roles}) == 1 and (
                    not_pod is None or not next(iter(leaders)).startswith("https://%s." % not_pod.name)):
                return leaders.pop(), views
            if time.monotonic() > deadline:
                return None, views
            time.sleep(1)

    def check_cluster(self, servers):
        for shard, pods in sorted(self.shards(servers).items()):
            if len(pods) > 1:
                leader, views = self.leaders(pods, time.monotonic() + 30)
                lp = [p.name for p in pods if leader and leader.startswith("https://%s." % p.name)]
                self.checks.record("shard %s: one leader agreed by its %d replicas" % (shard, len(pods)),
                                   leader is not None and len(lp) == 1,
                                   "leader %s (%s)" % (lp[0], leader) if leader and lp else json.dumps(views))
        client = self.auth["glassledger.auth.client-key"]
        for shard, pods in sorted(self.shards(servers).items()):
            if len(pods) > 1:
                keys = {}
                for p in pods:
                    try:
                        status, js = self.api(p, "/v1/info", client)
                        keys[p.name] = js.get("serverKey") if status == 200 else "HTTP %d" % status
                    except (OSError, http.client.HTTPException, ValueError, AttributeError) as e:
                        keys[p.name] = str(e)
                self.checks.record("shard %s: its %d replicas sign with one server key (GET /v1/info)" % (
                    shard, len(pods)), len(set(keys.values())) == 1,
                    next(iter(keys.values())) if len(set(keys.values())) == 1 else json.dumps(keys))
        views = {}
        deadline = time.monotonic() + 30
        while True:
            views = self.ask_all(servers, "/v1/cluster", client)
            maps = {json.dumps([v.get("mapVersion"), v.get("shards"), v.get("replicas")], sort_keys=True)
                    for v in views.values()}
            dirs = [v.get("directory") for v in views.values()]
            dir_leaders = {d.get("leader") for d in dirs if d}
            ok = len(maps) == 1 and all("mapVersion" in v for v in views.values()) and (
                len(servers) == 1 or (all(dirs) and len(dir_leaders) == 1 and None not in dir_leaders
                                      and sum(d.get("role") == "LEADER" for d in dirs) == 1))
            if ok or time.monotonic() > deadline:
                break
            time.sleep(1)
        expect = self.expected_map(servers)
        v0 = next(iter(views.values()))
        same = ok and [sorted(s.get("replicas") or []) for s in sorted(v0.get("replicas") or [],
                                                                       key=lambda s: s["shard"])] == expect
        self.checks.record("every member's /v1/cluster shows the same shard map and directory (as rendered)",
                           ok and (same or not v0.get("replicas")),
                           ("map v%s, %d shard(s), directory leader %s of %s members" % (
                               v0.get("mapVersion"), v0.get("shards"), (v0.get("directory") or {}).get("leader"),
                               (v0.get("directory") or {}).get("members"))) if ok else json.dumps(views))

    def expected_map(self, servers):
        props = dict(line.split("=", 1) for line in
                     self.cluster.configmaps[self.cluster_cm]["cluster.properties"].decode().splitlines()
                     if "=" in line)
        return [sorted(props["url.%d" % i].split(",")) for i in range(int(props["shards"]))]

    def sdk(self, servers):
        n = self.args.keys
        t = time.monotonic()
        puts, last = [], {}
        for i in range(n):
            rc, js, out = self.cli("put", "e2e-key-%03d" % i, "value-%03d-%s" % (i, "x" * i))
            if rc != 0 or not js:
                self.checks.record("ledger-cli put e2e-key-%03d" % i, False, "exit %d: %s" % (rc, out[-1500:]))
                return None
            puts.append(js)
            if (i + 1) % 5 == 0:
                log("ledger-cli: %d/%d puts verified (block %s)" % (i + 1, n, js["block"]))
            sh = js["shard"]
            last[sh] = max(last.get(sh, 0), js["block"])
        self.checks.record("ledger-cli: %d puts committed and their promises verified (exit 0)" % n, True,
                           "last block per shard %s, %.1fs" % (last, time.monotonic() - t))
        shards = len(self.expected_map([]))
        self.checks.record("ledger-cli: the puts reached every one of the %d shard(s)" % shards,
                           sorted(last) == list(range(shards)), "shards written: %s" % sorted(last))
        t = time.monotonic()
        bad = []
        for i in range(n):
            rc, js, out = self.cli("get", "e2e-key-%03d" % i)
            if rc != 0 or not js or js.get("value") != "value-%03d-%s" % (i, "x" * i):
                bad.append("e2e-key-%03d: exit %d %s" % (i, rc, out[-500:]))
        self.checks.record("ledger-cli: %d gets verified, each value as put" % n, not bad,
                           "; ".join(bad[:3]) if bad else "%.1fs" % (time.monotonic() - t))
        rc, js, out = self.cli("digest")
        self.checks.record("ledger-cli digest: the signed head verified (exit 0)", rc == 0, out[-1000:] if rc else "")
        return last

    def check_auditor(self, auditors, last, label="", timeout=90):
        deadline = time.monotonic() + timeout
        for p in auditors:
            st = None
            while True:
                try:
                    status, st = self.api(p, "/v1/status", None)
                except (OSError, http.client.HTTPException, ValueError) as e:
                    status, st = 0, {"error": str(e)}
                shards = (st or {}).get("shards") or []
                violations = [v for s in shards for v in (s.get("violations") or [])]
                if violations or any(s.get("halted") for s in shards):
                    self.checks.record("auditor %s%s: no violation" % (p.name, label), False, json.dumps(shards))
                    return False
                done = status == 200 and len(shards) == len(self.expected_map([])) and all(
                    (s.get("auditedBlock") or 0) >= last.get(s["shard"], 0) for s in shards)
                if done or time.monotonic() > deadline:
                    break
                time.sleep(1)
            summary = ", ".join("shard %s audited to block %s (head %s, %s blocks verified)" % (
                s.get("shard"), s.get("auditedBlock"), s.get("headBlock"), s.get("blocksVerified"))
                for s in (st or {}).get("shards") or [])
            self.checks.record("auditor %s%s: every shard audited up to the last commit, consistent" % (p.name, label),
                               done and (st or {}).get("ok", True), summary or json.dumps(st))
        return True

    def failover(self, servers, auditors):
        groups = [pods for _, pods in sorted(self.shards(servers).items()) if len(pods) >= 3]
        if not groups:
            log("failover: no shard of 3 or more replicas; skipped")
            return
        pods = groups[0]
        leader, _ = self.leaders(pods, time.monotonic() + 20)
        victim = next((p for p in pods if leader and leader.startswith("https://%s." % p.name)), None)
        if victim is None:
            self.checks.record("failover: the leader is known", False, str(leader))
            return
        cname = victim.containers[0]
        run(["docker", "kill", cname])
        log("failover: killed the leader %s (%s)" % (victim.name, cname))
        t = time.monotonic()
        rest = [p for p in pods if p is not victim]
        new, views = self.leaders(rest, time.monotonic() + 60, not_pod=victim)
        ok = new is not None and not new.startswith("https://%s." % victim.name)
        self.checks.record("failover: a new leader among the other %d replicas" % len(rest), ok,
                           "%s after %.1fs" % (new, time.monotonic() - t) if ok else json.dumps(views))
        if not ok:
            return
        rc, js, out = self.cli("put", "e2e-after-failover", "still-verifiable")
        self.checks.record("failover: a put commits and verifies with the old leader down", rc == 0 and js,
                           "block %s" % js.get("block") if rc == 0 and js else "exit %d: %s" % (rc, out[-1500:]))
        # The kubelet restarts the pod's container: the same spec, the same volumes.
        run(["docker", "start", cname])
        log("failover: restarted %s" % cname)
        failed = wait_ready([victim], time.monotonic() + 120)
        self.checks.record("failover: the restarted %s is ready again" % victim.name, not failed,
                           "; ".join(failed.values()))
        if failed:
            return
        back, views = self.leaders(pods, time.monotonic() + 30)
        self.checks.record("failover: all %d replicas agree on one leader again" % len(pods), back is not None,
                           back or json.dumps(views))
        rc, js2, out = self.cli("get", "e2e-after-failover")
        self.checks.record("failover: the key committed during the failover reads back verified",
                           rc == 0 and js2 and js2.get("value") == "still-verifiable", out[-800:] if rc else "")
        if auditors and rc == 0 and js:
            self.check_auditor(auditors, {js["shard"]: js["block"]}, " after the failover")


if __name__ == "__main__":
    sys.exit(main())
