#!/usr/bin/env python3
"""Checks every Kustomize overlay under deploy/ the way a cluster would run it (scripts/deploy-test runs this).

For each directory deploy/*/ with a kustomization.yaml: `kubectl kustomize` renders it; the container's environment is
built as Kubernetes would (the Dockerfile's ENV, then the Deployment's envFrom and env), with the Secrets replaced by
test values (a generated service-account key, dummy secrets, the test store's URL) and every volume mounted in a
temporary directory; then `kakao-bridge check-config` must accept it. Beside that, the probes, the Services, the
ServiceMonitor, the scrape annotation and the NetworkPolicy must name ports the configuration listens on, the trusted
proxies must not span a whole private range, and the PrometheusRule must hold deploy/prometheus/kakao-bridge.rules.yml's
rules.

Usage: deploy_check.py BINARY STATE_URL
"""
import http.server
import ipaddress
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPLOY = os.path.join(ROOT, "deploy")


def fail(problems, message):
    problems.append(message)


# The private and shared ranges a cluster's pod network is carved from, and everything.
WHOLE_RANGES = [ipaddress.ip_network(r) for r in
                ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "0.0.0.0/0", "fc00::/7", "::/0")]


# --- the image ----------------------------------------------------------------------------------------------------------

def dockerfile():
    """The final stage's ENV, ENTRYPOINT and CMD."""
    text = open(os.path.join(DEPLOY, "Dockerfile")).read().replace("\\\n", " ")
    lines = text.split("\n")
    last_from = max(i for i, line in enumerate(lines) if line.startswith("FROM "))
    env, entrypoint, command = {}, [], []
    for line in lines[last_from:]:
        if line.startswith("ENV "):
            for pair in line[4:].split():
                name, _, value = pair.partition("=")
                env[name] = value
        elif line.startswith("ENTRYPOINT "):
            entrypoint = json.loads(line[len("ENTRYPOINT "):])
        elif line.startswith("CMD "):
            command = json.loads(line[len("CMD "):])
    return env, entrypoint, command


# --- test values for the Secrets ------------------------------------------------------------------------------------------

def service_account_json(directory):
    key = os.path.join(directory, "test-key.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pem = open(key).read()
    os.remove(key)
    return json.dumps({
        "type": "service_account", "project_id": "deploy-test-project", "private_key_id": "deploy-test-key",
        "private_key": pem, "client_email": "deploy-test@deploy-test-project.iam.gserviceaccount.com",
    })


def test_values(directory, state_url):
    """Secret key -> a value the service accepts. A key missing here fails the check with its name."""
    return {
        "service-account.json": service_account_json(directory),
        "BRIDGE_FIREBASE_WEB_API_KEY": "deploy-test-web-api-key",
        "BRIDGE_HOOK_SECRET": secrets.token_hex(32),
        "BRIDGE_KAKAO_ADMIN_KEY": secrets.token_hex(16),
        "state-url": state_url,
        "state-password": "deploy-test-password",
    }


def example_secrets():
    """Secret name -> its keys, from the shipped example (deploy/kubernetes/secret.example.yaml)."""
    path = os.path.join(DEPLOY, "kubernetes", "secret.example.yaml")
    return {doc["metadata"]["name"]: list((doc.get("stringData") or {}).keys()) + list((doc.get("data") or {}).keys())
            for doc in yaml.safe_load_all(open(path)) if doc and doc.get("kind") == "Secret"}


def store_port_of_example():
    path = os.path.join(DEPLOY, "kubernetes", "secret.example.yaml")
    match = re.search(r"state-url: \"?postgres://[^@/]*@[^:/]+:(\d+)", open(path).read())
    return int(match.group(1)) if match else 5432


# --- a stand-in for GKE's metadata server (firebase.signer: iam) -------------------------------------------------------------

class Metadata(http.server.BaseHTTPRequestHandler):
    answers = {
        "/computeMetadata/v1/instance/service-accounts/default/email": ("text/plain", "deploy-test@deploy-test-project.iam.gserviceaccount.com"),
        "/computeMetadata/v1/project/project-id": ("text/plain", "deploy-test-project"),
        "/computeMetadata/v1/instance/service-accounts/default/token":
            ("application/json", json.dumps({"access_token": "deploy-test-access-token", "expires_in": 3599, "token_type": "Bearer"})),
    }

    def do_GET(self):
        answer = self.answers.get(self.path.split("?")[0])
        if self.headers.get("Metadata-Flavor") != "Google" or answer is None:
            self.send_response(404 if answer is None else 403)
            self.end_headers()
            return
        body = answer[1].encode()
        self.send_response(200)
        self.send_header("Content-Type", answer[0])
        self.send_header("Metadata-Flavor", "Google")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def start_metadata():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Metadata)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# --- one overlay ----------------------------------------------------------------------------------------------------------

def render(overlay):
    out = subprocess.run(["kubectl", "kustomize", overlay], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("kubectl kustomize failed: " + out.stderr.strip())
    return [doc for doc in yaml.safe_load_all(out.stdout) if doc]


def the(docs, kind, problems):
    found = [doc for doc in docs if doc.get("kind") == kind]
    if len(found) != 1:
        fail(problems, f"expected one {kind}, found {len(found)}")
        return None
    return found[0]


def effective(config, env, section, key, default):
    """A key as the service reads it: BRIDGE_SECTION_KEY over bridge.yaml over the default."""
    name = f"BRIDGE_{section}_{key}".upper()
    if name in env:
        return env[name]
    value = ((config or {}).get(section) or {}).get(key)
    return default if value is None else value


def check_overlay(overlay, binary, state_url, metadata_host):
    problems = []
    docs = render(overlay)
    deployment = the(docs, "Deployment", problems)
    if deployment is None:
        return problems
    pod = deployment["spec"]["template"]["spec"]
    pod_labels = deployment["spec"]["template"]["metadata"].get("labels", {})
    containers = [c for c in pod["containers"] if c["name"] == "kakao-bridge"]
    if len(containers) != 1:
        return problems + ["no container named kakao-bridge"]
    container = containers[0]
    image_env, entrypoint, image_command = dockerfile()
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    configmaps = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "ConfigMap"}
    known_secrets = example_secrets()
    fs_group = (pod.get("securityContext") or {}).get("fsGroup")

    work = tempfile.mkdtemp(prefix="deploy-test-")
    try:
        values = test_values(work, state_url)

        def secret_value(secret, key):
            if key not in values:
                fail(problems, f"Secret {secret} key {key}: no test value (add one to scripts/deploy_check.py)")
                return ""
            return values[key]

        # Every mount in a directory of its own; container paths are rewritten to those directories.
        mounts = {}
        for mount in container.get("volumeMounts", []):
            volume = volumes.get(mount["name"])
            if volume is None:
                fail(problems, f"volumeMount {mount['name']}: no such volume")
                continue
            directory = os.path.join(work, "mount-" + mount["name"])
            os.makedirs(directory)
            if "configMap" in volume:
                name = volume["configMap"]["name"]
                if name not in configmaps:
                    fail(problems, f"volume {mount['name']}: ConfigMap {name} is not in the overlay")
                    continue
                mode = volume["configMap"].get("defaultMode", 0o644)
                files = configmaps[name].get("data", {})
            elif "secret" in volume:
                name = volume["secret"]["secretName"]
                if name not in known_secrets:
                    fail(problems, f"volume {mount['name']}: Secret {name} is not in secret.example.yaml")
                    continue
                items = volume["secret"].get("items") or [{"key": k, "path": k} for k in known_secrets[name]]
                files = {item["path"]: secret_value(name, item["key"]) for item in items}
                # The kubelet gives secret files the pod's group (fsGroup) read access.
                mode = volume["secret"].get("defaultMode", 0o644) | (0o040 if fs_group is not None else 0)
            else:
                fail(problems, f"volume {mount['name']}: only ConfigMap and Secret volumes are checked")
                continue
            for path, text in files.items():
                file = os.path.join(directory, path)
                with open(file, "w") as handle:
                    handle.write(text)
                os.chmod(file, mode)
            mounts[mount["mountPath"].rstrip("/")] = directory

        def local(text):
            for path in sorted(mounts, key=len, reverse=True):
                text = re.sub(re.escape(path) + r"(?=/|$|\s)", mounts[path], text)
            return text

        # The environment, in Kubernetes' order: the image's, then envFrom, then env.
        env = dict(image_env)
        for source in container.get("envFrom", []):
            if "secretRef" in source:
                name = source["secretRef"]["name"]
                if name not in known_secrets:
                    fail(problems, f"envFrom: Secret {name} is not in secret.example.yaml")
                    continue
                for key in known_secrets[name]:
                    env[key] = secret_value(name, key)
            else:
                fail(problems, "envFrom: only secretRef is checked")
        for variable in container.get("env", []):
            if "value" in variable:
                env[variable["name"]] = str(variable["value"])
            elif "secretKeyRef" in (variable.get("valueFrom") or {}):
                ref = variable["valueFrom"]["secretKeyRef"]
                env[variable["name"]] = secret_value(ref["name"], ref["key"])
            else:
                env[variable["name"]] = ""
        env = {name: local(value) for name, value in env.items()}

        # The configuration the pod reads: `serve --config PATH`.
        command = container.get("command") or entrypoint
        args = container.get("args") if "args" in container else image_command
        if command != ["/usr/local/bin/kakao-bridge"] or not args or args[0] != "serve" or "--config" not in args:
            return problems + [f"the container does not run `kakao-bridge serve --config PATH`: {command} {args}"]
        config_path = local(args[args.index("--config") + 1])
        if not os.path.exists(config_path):
            return problems + [f"--config {args[args.index('--config') + 1]}: no mounted file there"]
        with open(config_path) as handle:
            config_text = handle.read()
        with open(config_path, "w") as handle:
            handle.write(local(config_text))
        config = yaml.safe_load(config_text) or {}

        # check-config, with the container's environment (and the metadata stand-in where GKE's would be).
        run_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": work, "GCE_METADATA_HOST": metadata_host}
        run_env.update(env)
        checked = subprocess.run([binary, "check-config"] + [local(arg) for arg in args[1:]],
                                 env=run_env, capture_output=True, text=True, timeout=120)
        output = (checked.stdout + checked.stderr).strip()
        for value in values.values():
            output = output.replace(value, "<test value>") if len(value) > 8 else output
        print(f"  check-config: exit {checked.returncode}: {output}")
        if checked.returncode != 0:
            fail(problems, f"check-config refused the configuration the pod would run (exit {checked.returncode})")

        # The ports the configuration listens on, and the one that serves the probes and /metrics.
        port = int(effective(config, env, "server", "port", 8080))
        admin_port = effective(config, env, "server", "admin_port", None)
        admin_port = int(admin_port) if admin_port not in (None, "") else None
        ops_port = admin_port or port
        ops_host = effective(config, env, "server", "admin_host" if admin_port else "host", "127.0.0.1")
        listening = {port} | ({admin_port} if admin_port else set())
        if str(ops_host) in ("127.0.0.1", "localhost", "::1"):
            fail(problems, f"the probes' and the scrape's port listens on {ops_host}: the kubelet connects to the pod's IP")

        # Whom the service believes about a client's address (X-Forwarded-For): only the ingress controller's pods. A
        # whole private range holds the cluster's pod network, so any pod could pick its address and dodge the
        # per-client limit.
        proxies = effective(config, env, "server", "trusted_proxies", [])
        if isinstance(proxies, str):
            proxies = [entry for entry in proxies.split(",") if entry.strip()]
        for entry in proxies or []:
            try:
                network = ipaddress.ip_network(str(entry).strip(), strict=False)
            except ValueError:
                continue  # check-config has refused it already
            wide = [r for r in WHOLE_RANGES if r.version == network.version and r.subnet_of(network)]
            if wide:
                fail(problems, f"server.trusted_proxies {entry} spans all of {wide[0]}: trust only the ingress controller's pods")

        container_ports = {p.get("name"): p["containerPort"] for p in container.get("ports", [])}
        for name, number in container_ports.items():
            if number not in listening:
                fail(problems, f"containerPort {name} ({number}): the configuration listens on {sorted(listening)}")

        def container_port(reference, what):
            if isinstance(reference, int):
                return reference
            if reference not in container_ports:
                fail(problems, f"{what}: no container port named {reference}")
                return None
            return container_ports[reference]

        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            spec = container.get(probe)
            if spec is None:
                fail(problems, f"{probe}: missing")
                continue
            get = spec.get("httpGet") or {}
            number = container_port(get.get("port"), probe)
            if number is not None and number != ops_port:
                fail(problems, f"{probe}: port {get.get('port')} ({number}), but {get.get('path')} is served on {ops_port} "
                               f"(server.{'admin_port' if admin_port else 'port'})")
        if (container.get("readinessProbe") or {}).get("failureThreshold", 3) < 3:
            fail(problems, "readinessProbe: failureThreshold under 3 (one missed probe would drain the pod)")
        annotations = deployment["spec"]["template"]["metadata"].get("annotations", {})
        if "prometheus.io/port" in annotations and int(annotations["prometheus.io/port"]) != ops_port:
            fail(problems, f"prometheus.io/port {annotations['prometheus.io/port']}: /metrics is served on {ops_port}")

        # Services: each targets a port the pod listens on; the ServiceMonitor's port is on a Service it selects.
        services = [d for d in docs if d.get("kind") == "Service"]
        for service in services:
            for service_port in service["spec"].get("ports", []):
                container_port(service_port.get("targetPort", service_port["port"]), f"Service {service['metadata']['name']}")
        monitor = the(docs, "ServiceMonitor", problems)
        if monitor is not None:
            wanted = monitor["spec"]["selector"].get("matchLabels", {})
            selected = [s for s in services if wanted.items() <= s["metadata"].get("labels", {}).items()]
            if not selected:
                fail(problems, f"ServiceMonitor: no Service has the labels {wanted}")
            for endpoint in monitor["spec"].get("endpoints", []):
                ports = [p for s in selected for p in s["spec"].get("ports", []) if p.get("name") == endpoint.get("port")]
                if not ports:
                    fail(problems, f"ServiceMonitor: port {endpoint.get('port')} is on no Service it selects")
                for service_port in ports:
                    number = container_port(service_port.get("targetPort", service_port["port"]), "ServiceMonitor")
                    if number is not None and number != ops_port:
                        fail(problems, f"ServiceMonitor: port {endpoint.get('port')} reaches {number}, /metrics is on {ops_port}")
            # Only the ServiceMonitor's Service reaches the admin port: the apps' Service (the ingress') must not.
            if admin_port:
                for service in services:
                    if service in selected:
                        continue
                    for service_port in service["spec"].get("ports", []):
                        if container_port(service_port.get("targetPort", service_port["port"]), "Service") == admin_port:
                            fail(problems, f"Service {service['metadata']['name']} exposes the admin port {admin_port}")
            # The job label the alert rules select on: the Service's jobLabel label, else its name.
            jobs = {s["metadata"].get("labels", {}).get(monitor["spec"].get("jobLabel"), s["metadata"]["name"]) for s in selected}
            rules_text = open(os.path.join(DEPLOY, "prometheus", "kakao-bridge.rules.yml")).read()
            for job in set(re.findall(r'job="([^"]*)"', rules_text)) - jobs:
                fail(problems, f"the alert rules select job=\"{job}\", the ServiceMonitor's job is {sorted(jobs)}")

        rule = the(docs, "PrometheusRule", problems)
        if rule is not None:
            rules = yaml.safe_load(open(os.path.join(DEPLOY, "prometheus", "kakao-bridge.rules.yml")))
            if rule["spec"].get("groups") != rules.get("groups"):
                fail(problems, "PrometheusRule: its groups are not deploy/prometheus/kakao-bridge.rules.yml's (scripts/prometheus-rule)")

        # The NetworkPolicy: the pods' own; in to the ports the service listens on; out to DNS, the store and 443.
        policy = the(docs, "NetworkPolicy", problems)
        if policy is not None:
            if not policy["spec"]["podSelector"].get("matchLabels", {}).items() <= pod_labels.items():
                fail(problems, "NetworkPolicy: its podSelector does not select the Deployment's pods")
            if set(policy["spec"].get("policyTypes", [])) != {"Ingress", "Egress"}:
                fail(problems, "NetworkPolicy: policyTypes should be Ingress and Egress")

            def allowed(rules):
                pairs = set()
                for rule_ in rules or []:
                    for p in rule_.get("ports", []):
                        number = p.get("port")
                        pairs.add((p.get("protocol", "TCP"), container_port(number, "NetworkPolicy") if isinstance(number, str) else number))
                return pairs
            ingress, egress = allowed(policy["spec"].get("ingress")), allowed(policy["spec"].get("egress"))
            for number in sorted(listening):
                if ("TCP", number) not in ingress:
                    fail(problems, f"NetworkPolicy: no ingress to port {number}, which the service listens on")
            needed = {("UDP", 53), ("TCP", 53), ("TCP", 443), ("TCP", store_port_of_example())}
            if config.get("firebase", {}).get("signer") == "iam":
                needed.add(("TCP", 80))  # GKE's metadata server
            for protocol, number in sorted(needed - egress):
                fail(problems, f"NetworkPolicy: no egress to {protocol} {number}")

        # Keyless: a Kubernetes service account bound to a Google one, and no key volume left that would keep the pod
        # from starting without the key Secret.
        if config.get("firebase", {}).get("signer") == "iam":
            account = pod.get("serviceAccountName")
            accounts = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "ServiceAccount"}
            if account not in accounts:
                fail(problems, f"signer iam: serviceAccountName {account} is not in the overlay")
            elif "iam.gke.io/gcp-service-account" not in accounts[account]["metadata"].get("annotations", {}):
                fail(problems, f"signer iam: ServiceAccount {account} is not bound to a Google service account")
            for volume in volumes.values():
                if "secret" in volume and "service-account.json" in known_secrets.get(volume["secret"]["secretName"], []):
                    fail(problems, f"signer iam: volume {volume['name']} still mounts the key Secret")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return problems


def main():
    binary, state_url = sys.argv[1], sys.argv[2]
    overlays = sorted(os.path.join(DEPLOY, d) for d in os.listdir(DEPLOY)
                      if os.path.isfile(os.path.join(DEPLOY, d, "kustomization.yaml")))
    metadata = start_metadata()
    metadata_host = f"127.0.0.1:{metadata.server_address[1]}"
    passed = failed = 0
    for overlay in overlays:
        name = os.path.relpath(overlay, ROOT)
        print(f"deploy-test: {name}")
        try:
            problems = check_overlay(overlay, binary, state_url, metadata_host)
        except Exception as error:  # a render or a run that failed outright
            problems = [f"{type(error).__name__}: {error}"]
        for problem in problems:
            print(f"  FAIL {problem}")
        print(f"  {'ok' if not problems else 'FAILED'}")
        passed, failed = (passed + 1, failed) if not problems else (passed, failed + 1)
    metadata.shutdown()
    print(f"deploy-test: {passed} passed, {failed} failed")
    sys.exit(1 if failed or not overlays else 0)


if __name__ == "__main__":
    main()
