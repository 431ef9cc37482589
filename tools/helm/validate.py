"""Strict schema validation of rendered manifests (run by tools/helm/check in its venv).

  python validate.py [--kube-version 1.30 ...] FILE...

Every document of every FILE must pass:
  - built-in kinds: kubernetes-validate's bundled schemas in strict mode (an unknown field is an error), once per
    --kube-version;
  - custom resources: the JSON schemas in tools/helm/crd-schemas/ (cert-manager Certificate and Issuer, Prometheus
    operator ServiceMonitor), written for the fields the chart uses, with additionalProperties false everywhere.
A kind with neither is an error, not a warning. Before anything, a self-test checks that a misspelt field is caught.
"""
import argparse
import json
import pathlib
import sys

import jsonschema
import kubernetes_validate
import yaml

HERE = pathlib.Path(__file__).resolve().parent
CRDS = {
    ("cert-manager.io/v1", "Certificate"): "certificate.json",
    ("cert-manager.io/v1", "Issuer"): "issuer.json",
    ("monitoring.coreos.com/v1", "ServiceMonitor"): "servicemonitor.json",
}


def crd_validator(api_version, kind):
    name = CRDS.get((api_version, kind))
    if name is None:
        return None
    schema = json.loads((HERE / "crd-schemas" / name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors_of(doc, versions):
    """The validation errors of one document (empty: valid)."""
    api, kind = doc.get("apiVersion"), doc.get("kind")
    if not api or not kind:
        return ["no apiVersion or kind"]
    validator = crd_validator(api, kind)
    if validator is not None:
        return ["%s: %s" % ("/".join(map(str, e.absolute_path)) or "(root)", e.message)
                for e in validator.iter_errors(doc)]
    out = []
    for v in versions:
        try:
            kubernetes_validate.validate(doc, v, strict=True)
        except kubernetes_validate.SchemaNotFoundError as e:
            out.append("no schema (neither bundled nor in crd-schemas/): " + e.message)
        except kubernetes_validate.ValidationError as e:
            out.append("k8s %s: %s: %s" % (v, "/".join(map(str, e.absolute_path)) or "(root)", e.message))
    return out


def self_test(versions):
    bad_builtin = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x"},
                   "spec": {"ports": [{"port": 1}], "publishNotReadyAdresses": True}}
    bad_crd = {"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": {"name": "x"},
               "spec": {"secretName": "x", "issuerRef": {"name": "i"}, "dnsName": ["a"]}}
    unknown = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "x"}}
    for doc in (bad_builtin, bad_crd, unknown):
        if not errors_of(doc, versions):
            sys.exit("validate.py self-test: %s %s with a wrong field passed; strict validation is not working"
                     % (doc["apiVersion"], doc["kind"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kube-version", action="append", dest="versions")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    versions = args.versions or ["1.30.0", "1.37.0"]
    self_test(versions)
    failed = 0
    total = 0
    for f in args.files:
        kinds = {}
        for doc in yaml.safe_load_all(pathlib.Path(f).read_text()):
            if doc is None:
                continue
            total += 1
            kinds[doc.get("kind")] = kinds.get(doc.get("kind"), 0) + 1
            name = "%s/%s" % (doc.get("kind"), (doc.get("metadata") or {}).get("name"))
            for e in errors_of(doc, versions):
                failed += 1
                print("FAIL %s %s: %s" % (f, name, e))
        print("validated %s: %s" % (pathlib.Path(f).name,
                                    ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items()))))
    print("%d documents, kubernetes %s (strict) and crd-schemas/: %d error(s)"
          % (total, " and ".join(versions), failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
