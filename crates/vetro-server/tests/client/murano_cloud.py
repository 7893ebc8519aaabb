#!/usr/bin/env python3
"""End to end on the real OpenStack services: the real Murano client, with
real Keystone authentication, against `vetro serve --auth keystone
--backend openstack`.

Needs what crates/vetro-openstack/tests/support/openstack-services.sh starts
(Keystone, Heat, the Neutron stand-in; its clouds.yaml) and a RabbitMQ
broker. The scenario makes its own service user (the trustee of every task's
trust, and the identity the workers act with), starts the service with it,
registers the service in Keystone's catalog, and drives `murano` as the demo
user: it imports the bundled example package and, when
../shared/murano-packages is there (or VETRO_MURANO_PACKAGES names it),
murano-apps' WordPress with the packages it needs; creates an environment
with the example's web server and WordPress on Apache and MySQL, and
deploys it. The workers push the environment's Heat stack through the
user's trust (Nova and Neutron resources are `OS::Heat::None` by the
service's --heat-environment); the scenario reads each server's user data
from the stack and starts `vetro agent` with it as that instance would, in
mount namespaces of their own with stand-in package tools. The deployment
must end ready with the agents' results in its reports; then an action runs
through an agent, the environment is deleted and so is its stack, and every
trust the service created is gone from Keystone once its task finished.

    murano_cloud.py --vetro target/debug/vetro --murano VENV/bin/murano \
        --clouds clouds.yaml --amqp amqp://guest:guest@127.0.0.1:5672/%2f

Prints one line per check and closes with `murano-cloud: N passed, N failed`.
Needs root (`unshare --mount`, to give each played instance its own /etc
and /var).
"""

import argparse
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
import uuid

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from murano_keystone import Scenario as KeystoneScenario  # noqa: E402
from murano_scenario import (EXAMPLE, FQN, ROOT, Failed, props, stop, table,  # noqa: E402
                             web_server_app, zip_dir)

NEUTRON_STANDIN = os.path.join(ROOT, "crates", "vetro-openstack", "tests", "support",
                               "neutron_standin.py")

DEPLOY_TIMEOUT = 150  # seconds for the deployment, the action or the deletion
NONE_TYPES = [  # resources of services that cannot run here
    "OS::Nova::Server", "OS::Neutron::Net", "OS::Neutron::Subnet",
    "OS::Neutron::Router", "OS::Neutron::RouterInterface", "OS::Neutron::SecurityGroup",
    "OS::Neutron::SecurityGroupRule", "OS::Neutron::FloatingIP",
    "OS::Neutron::FloatingIPAssociation", "OS::Cinder::Volume", "OS::Cinder::VolumeAttachment",
]
# Ports stand in for Neutron's with an address each: WordPress reads its
# database server's address (a provider template, sent with every push).
PORT_TEMPLATE = {
    "heat_template_version": "2015-10-15",
    "parameters": {p: {"type": t, "default": d} for p, t, d in [
        ("network", "string", ""), ("fixed_ips", "comma_delimited_list", []),
        ("security_groups", "comma_delimited_list", []), ("port_security_enabled", "boolean", True),
        ("allowed_address_pairs", "comma_delimited_list", [])]},
    "resources": {"host": {"type": "OS::Heat::RandomString",
                           "properties": {"length": 2, "character_classes": [{"class": "digits"}]}}},
    # Every attribute of a port, as Heat requires of a stand-in for one.
    "outputs": dict({a: {"value": None} for a in [
        "admin_state_up", "allowed_address_pairs", "device_id", "device_owner", "dns_assignment",
        "mac_address", "name", "network", "network_id", "port_security_enabled",
        "propagate_uplink_status", "qos_policy_id", "security_groups", "status", "subnets",
        "tenant_id"]}, fixed_ips={"value": [{"ip_address": {"list_join": [
            "", ["10.0.0.1", {"get_attr": ["host", "value"]}]]}}]}),
}
# murano-apps folders of the WordPress stack, dependencies first.
WORDPRESS_STACK = ["SQLDatabaseLibrary/package", "MySQL/package", "ApacheHTTPServer/package/v0",
                   "ZabbixServer/package", "ZabbixAgent/package", "WordPress/package"]
# Stand-ins for what the played instances' scripts call: the package manager
# makes the files the real packages would, the archive tools the WordPress
# download; services, firewall and database clients only answer.
STAND_INS = {
    "sudo": 'exec "$@"',
    "apt-get": 'case "$*" in\n'
               '  *nginx*) mkdir -p /etc/nginx/sites-enabled ;;\n'
               '  *mysql-server*) mkdir -p /etc/mysql && touch /etc/mysql/my.cnf ;;\n'
               'esac',
    "wget": 'for a in "$@"; do f=$a; done; touch "$(basename "$f")"',
    "unzip": 'while [ $# -gt 0 ]; do [ "$1" = -d ] && d=$2; shift; done\n'
             'mkdir -p "$d/wordpress" && touch "$d/wordpress/wp-config-sample.php"',
    "systemctl": "echo active",
    "service": "echo \"$1: $2\"",
    "debconf-set-selections": "cat >/dev/null",
    "iptables": "true",
    "mysql": "true",
}


class Scenario(KeystoneScenario):
    def __init__(self, a, work):
        super().__init__(a, work)
        self.amqp = a.amqp
        self.packages = a.packages
        self.agents = {}  # server resource name -> agent process
        self.stop_watch = threading.Event()
        self.watch_errors = []

    # -- the service ----------------------------------------------------

    def start_server(self):
        self.db = os.path.join(self.work, "vetro.db")
        self.service_clouds = self.ks.make_service_user(self.work)
        heat_env = os.path.join(self.work, "heat-env.json")
        with open(os.path.join(self.work, "port.yaml"), "w") as f:
            json.dump(PORT_TEMPLATE, f)
        registry = {t: "OS::Heat::None" for t in NONE_TYPES}
        registry["OS::Neutron::Port"] = "port.yaml"
        with open(heat_env, "w") as f:
            json.dump({"resource_registry": registry}, f)
        self.start_neutron()
        args = [self.vetro, "serve", "--db", "sqlite://" + self.db, "--listen", "127.0.0.1:0",
                "--workers", "1", "--packages-dir", os.path.join(self.work, "packages"),
                "--auth", "keystone", "--keystone-cloud", "vetro-service",
                "--backend", "openstack", "--os-cloud", "vetro-service",
                "--amqp-url", self.amqp, "--heat-environment", heat_env,
                "--agent-timeout", "60", "--stack-timeout", "120"]
        env = dict(os.environ, OS_CLIENT_CONFIG_FILE=self.service_clouds, VETRO_LOG="info")
        # The backend must act as the trusts' trustee: another user is refused at start.
        other = [a if a != "vetro-service" or args[i - 1] != "--os-cloud" else "vetro-test"
                 for i, a in enumerate(args)]
        res = subprocess.run(other, env=env, capture_output=True, text=True, timeout=60)
        self.check(res.returncode != 0 and "the service user" in res.stderr,
                   "serve refuses a backend that is not the trusts' trustee", res.stderr[-500:])
        self.log = open(os.path.join(self.work, "serve.log"), "w")
        self.server = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, text=True,
                                       env=env)
        line = self.server.stdout.readline()
        m = re.search(r"listening on (http://\S+) .*Keystone at.*backend openstack", line)
        self.check(m is not None, "vetro serve --auth keystone --backend openstack starts",
                   line + self.server_log_tail())
        self.url = m.group(1)

    def start_neutron(self):
        """A Neutron stand-in of the scenario's own (fresh state), named to the
        service by its clouds.yaml's network_endpoint_override."""
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        self.neutron = subprocess.Popen(
            [sys.executable, NEUTRON_STANDIN, "serve", "--keystone", self.ks.url, "--password",
             self.ks.admin_auth["password"], "--bind", f"127.0.0.1:{port}"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.neutron.stdout.readline()  # listening
        with open(self.service_clouds) as f:
            clouds = yaml.safe_load(f)
        clouds["clouds"]["vetro-service"]["network_endpoint_override"] = f"http://127.0.0.1:{port}"
        clouds["clouds"]["vetro-test"] = {"auth": self.user_auth}  # not the trustee
        with open(self.service_clouds, "w") as f:
            yaml.safe_dump(clouds, f)

    def client(self, *args, **kw):
        # Requirements are looked up beside the imported archive, never on
        # the network: the repository URL points at a closed port.
        if args and args[0] == "package-import":
            args = ("--murano-repo-url", "http://127.0.0.1:9/", *args)
        return super().client(*args, **kw)

    # -- Heat, as the user sees it --------------------------------------

    def heat(self, method, path):
        tok, body = self.ks.user_token()
        if not hasattr(self, "heat_url"):
            self.heat_url = endpoint(body["catalog"], "orchestration")
        req = urllib.request.Request(self.heat_url + path, method=method)
        req.add_header("X-Auth-Token", tok)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                text = r.read()
                return r.status, json.loads(text) if text else None
        except urllib.error.HTTPError as e:
            return e.code, None

    def stack_servers(self):
        """The stack's servers with agent user data: {resource name: agent.conf}."""
        status, t = self.heat("GET", f"/stacks/{self.stack}/template")
        if status != 200:
            return {}
        out = {}
        for name, r in (t.get("resources") or {}).items():
            if r.get("type") == "OS::Nova::Server":
                conf = agent_config(str(r.get("properties", {}).get("user_data", "")))
                if conf:
                    out[name] = conf
        return out

    def delete_leftover_stack(self):
        """Deletes the stack a failed run left in Heat (by its id: Heat
        deletes no stack by name alone)."""
        status, s = self.heat("GET", f"/stacks/{self.stack}")
        if status == 200 and s["stack"]["stack_status"] != "DELETE_COMPLETE":
            self.heat("DELETE", f"/stacks/{self.stack}/{s['stack']['id']}")

    def stack_status(self):
        status, s = self.heat("GET", f"/stacks/{self.stack}")
        if status == 404:
            return None
        return (s or {}).get("stack", {}).get("stack_status", f"HTTP {status}")

    # -- the instances --------------------------------------------------

    def watch_servers(self):
        """Starts an agent for each server as it appears in the stack."""
        while not self.stop_watch.wait(0.3):
            try:
                for name, conf in self.stack_servers().items():
                    if name not in self.agents:
                        self.agents[name] = start_agent(self.vetro, self.work, name, conf)
            except Exception as e:  # reported after the deployment
                self.watch_errors.append(repr(e))

    def agent_logs(self):
        out = []
        for name in self.agents:
            with open(os.path.join(self.work, "instances", name, "agent.log")) as f:
                out.append(f"--- agent of {name}:\n{f.read()[-1500:]}")
        return "\n".join(out)

    # -- the steps ------------------------------------------------------

    def import_packages(self):
        archives = [("example", os.path.join(EXAMPLE, "webserver"))]
        if self.packages:
            apps = os.path.join(self.packages, "murano-apps")
            archives += [(p.split("/")[0], os.path.join(apps, p)) for p in WORDPRESS_STACK]
        paths = []
        for name, src in archives:
            paths.append(os.path.join(self.work, name + ".zip"))
            zip_dir(src, paths[-1])
        rows = table(self.client("package-import", "--exists-action", "s", *paths).stdout)
        fqns = {r["FQN"] for r in rows}
        want = {FQN} | ({"com.example.WordPress", "com.example.databases.MySql",
                         "com.example.apache.ApacheHttpServer"} if self.packages else set())
        self.check(want <= fqns, f"package-import: {len(paths)} packages through Keystone", rows)

    def environment(self):
        rows = table(self.client("environment-create", "cloud-env").stdout)
        self.env_id = rows[0]["ID"]
        self.stack = f"murano-{self.env_id}"
        d = props(self.client("environment-session-create", self.env_id).stdout)
        sid = d["id"]
        self.app_id = uuid.uuid4().hex
        apps = [web_server_app(self.app_id)]
        if self.packages:
            apps.append(wordpress())
        patch = os.path.join(self.work, "apps.json")
        with open(patch, "w") as f:
            json.dump([{"op": "add", "path": "/-", "value": a} for a in apps], f)
        self.client("environment-apps-edit", "--session-id", sid, self.env_id, patch)
        self.session_id = sid
        self.expected_servers = 1 + (2 if self.packages else 0)

    def deploy(self):
        watcher = threading.Thread(target=self.watch_servers, daemon=True)
        watcher.start()
        started = time.time()
        self.client("environment-deploy", self.env_id, "--session-id", self.session_id)
        d = self.wait_status("ready")
        took = time.time() - started
        rows = table(self.client("deployment-list", self.env_id).stdout)
        detail = (json.dumps(self.reports(rows), indent=1) + "\n" + self.agent_logs()
                  + "\n" + "\n".join(self.watch_errors) + "\n" + self.server_log_tail())
        self.check(d.get("status") == "ready",
                   f"the deployment ends ready ({took:.1f}s)", detail)
        self.check(len(self.agents) == self.expected_servers,
                   f"{self.expected_servers} servers in the stack, each played by vetro agent",
                   sorted(self.agents))
        self.check(self.stack_status() in ("CREATE_COMPLETE", "UPDATE_COMPLETE"),
                   f"the stack {self.stack} is complete", self.stack_status())
        texts = [r["text"] for r in self.reports(rows)]
        # Each report names its object ("<class> <id>: text").
        self.check(any(re.search(r": hello is available at http://10\.0\.0\.\d+:8080/$", t)
                       for t in texts),
                   "the reports carry the web server agent's result, at its port's address", texts)
        if self.packages:
            self.check(any(t.endswith(": Application is installed") for t in texts)
                       and any(": MySQL is available at 10.0.0." in t for t in texts),
                       "the reports carry WordPress's steps on Apache and MySQL", texts)

    def reports(self, rows):
        """Every report of the environment's deployments, oldest first."""
        out = []
        for r in reversed(rows):
            status, _, body = self.api(
                "GET", f"/v1/environments/{self.env_id}/deployments/{r['ID']}",
                self.ks.user_token()[0])
            out += body.get("reports", []) if status == 200 else []
        return out

    def action(self):
        action_id = f"{self.app_id}_restart"
        out = self.client("environment-action-call", self.env_id, "--action-id", action_id).stdout
        m = re.search(r"Created task, id: (\S+)", out)
        self.check(m is not None, "environment-action-call prints the task id", out)
        deadline = time.time() + DEPLOY_TIMEOUT
        result = None
        while time.time() < deadline:
            out = self.client("environment-action-get-result", self.env_id,
                              "--task-id", m.group(1)).stdout
            text = out.split("Task id result: ", 1)[-1].strip()
            if text not in ("", "None"):
                result = text
                break
            time.sleep(0.5)
        self.check(result is not None and "'isException': False" in result,
                   "the restart action runs through the instance's agent", result)

    def delete(self):
        self.client("environment-delete", self.env_id)
        deadline = time.time() + DEPLOY_TIMEOUT
        while time.time() < deadline and self.stack_status() not in (None, "DELETE_COMPLETE"):
            time.sleep(0.5)
        self.check(self.stack_status() in (None, "DELETE_COMPLETE"),
                   f"environment-delete deletes the stack {self.stack}", self.stack_status())
        while time.time() < deadline:
            rows = table(self.client("environment-list").stdout)
            if self.env_id not in [r["ID"] for r in rows]:
                break
            time.sleep(0.5)
        self.check(self.env_id not in [r["ID"] for r in rows], "the environment is gone", rows)

    def trusts_removed(self):
        # Each task's trust is deleted once the task finished: the deploy's,
        # the action's and the deletion's.
        deadline = time.time() + 10
        while time.time() < deadline and self.ks.trusts_to_service():
            time.sleep(0.2)
        self.check(self.ks.trusts_to_service() == [],
                   "no trust to the service is left in Keystone", self.ks.trusts_to_service())

    def stop_agents(self):
        self.stop_watch.set()
        for p in self.agents.values():
            stop(p)
        stop(getattr(self, "neutron", None))


def endpoint(catalog, kind):
    for s in catalog:
        if s.get("type") == kind:
            for e in s.get("endpoints", []):
                if e.get("interface") == "public":
                    return e["url"].rstrip("/")
    raise RuntimeError(f"no public {kind} endpoint in the catalog")


def agent_config(user_data):
    """The agent configuration a server's user data writes."""
    m = re.search(r'<<"VETRO_AGENT_CONF"\n(.*?)VETRO_AGENT_CONF\n', user_data, re.S)
    return m.group(1) if m else None


def start_agent(vetro, work, name, conf):
    """`vetro agent` as instance `name`: its own /etc and /var (overlays),
    its storage, the stand-in tools first on its PATH."""
    home = os.path.join(work, "instances", name)
    for d in ("bin", "storage", "etc-up", "etc-work", "var-up", "var-work"):
        os.makedirs(os.path.join(home, d), exist_ok=True)
    conf = re.sub(r"(?m)^storage =.*$", "storage = " + os.path.join(home, "storage"), conf)
    with open(os.path.join(home, "agent.conf"), "w") as f:
        f.write(conf)
    for tool, body in STAND_INS.items():
        path = os.path.join(home, "bin", tool)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    script = (f"mount -t overlay o -o lowerdir=/etc,upperdir={home}/etc-up,workdir={home}/etc-work /etc"
              f" && mount -t overlay o -o lowerdir=/var,upperdir={home}/var-up,workdir={home}/var-work /var"
              f" && exec {vetro} agent --config-file {home}/agent.conf")
    env = dict(os.environ, PATH=os.path.join(home, "bin") + ":" + os.environ.get("PATH", ""))
    log = open(os.path.join(home, "agent.log"), "w")
    return subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                            env=env, stdout=subprocess.DEVNULL, stderr=log)


def obj(kind, **props):
    return {"?": {"id": uuid.uuid4().hex, "type": kind}, **props}


def instance(name):
    return obj("io.murano.resources.LinuxMuranoInstance", name=name, image="ubuntu-22.04",
               flavor="m1.small", assignFloatingIp=False, keyname="")


def wordpress():
    """WordPress on its own Apache (with PHP) and MySQL servers, no monitoring."""
    apache = obj("com.example.apache.ApacheHttpServer", name="apache", enablePHP=True,
                 instance=instance("apache-1"))
    mysql = obj("com.example.databases.MySql", name="mysql", instance=instance("mysql-1"),
                database="", username="", password="")
    return obj("com.example.WordPress", name="wordpress", server=apache, database=mysql,
               dbName="wordpress", dbUser="wp", dbPassword="Wp-secret-1", monitoring=None)


def packages_dir():
    d = os.environ.get("VETRO_MURANO_PACKAGES") or os.path.join(ROOT, "..", "shared",
                                                                "murano-packages")
    return d if os.path.isdir(os.path.join(d, "murano-apps", "WordPress")) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vetro", required=True)
    ap.add_argument("--murano", required=True)
    ap.add_argument("--clouds", required=True, help="clouds.yaml with vetro-admin and vetro-test")
    ap.add_argument("--amqp", required=True, help="the RabbitMQ broker's amqp:// URL")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    a.vetro = os.path.abspath(a.vetro)
    a.packages = packages_dir()
    if a.packages is None:
        print("murano-cloud: murano-apps not found (set VETRO_MURANO_PACKAGES): "
              "WordPress is skipped, the example package alone is deployed")
    work = tempfile.mkdtemp(prefix="vetro-murano-cloud-")
    s = Scenario(a, work)
    try:
        s.start_server()
        s.ks.register("application-catalog", s.url)
        s.import_packages()
        s.environment()
        s.deploy()
        s.action()
        s.delete()
        s.trusts_removed()
    except Failed:
        pass
    except Exception:
        traceback.print_exc()
        s.failed += 1
    finally:
        s.stop_agents()
        if getattr(s, "stack", None):
            s.delete_leftover_stack()
        s.stop_server()
        s.ks.clean_up()
        if s.failed == 0:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work folder kept: {work}")
    print(f"murano-cloud: {s.passed} passed, {s.failed} failed")
    return 1 if s.failed else 0


if __name__ == "__main__":
    sys.exit(main())
