#!/usr/bin/env python3
"""The real Murano client against `vetro serve --auth keystone`, with real
Keystone authentication.

Needs a running Keystone and a clouds.yaml with the clouds `vetro-admin` (an
admin) and `vetro-test` (a user in a project): what
crates/vetro-openstack/tests/support/openstack-services.sh writes. The
scenario creates its own service user (role `service` in the `service`
project) and writes its credentials to a clouds.yaml of its own, starts
`vetro serve --auth keystone --keystone-cloud ...` on a loopback port with a
fresh SQLite database, registers that address in Keystone's catalog as the
`application-catalog` service, and drives python-muranoclient's `murano`
command with `--os-auth-url/--os-username/--os-password/--os-project-name`:
import the example package, create an environment, a session, add the web
server, deploy (simulator backend), list, then restart the service without
workers and delete through a separate `vetro worker --keystone-cloud`
process. Along the way it checks
that each task carries a Keystone trust, deleted once the task ended, that a
bad, missing or revoked token is refused with Murano's 401 body (a revoked one once the cache entry lapses, `--keystone-cache-ttl`), and
that Keystone's admin role maps to the service's admin. Everything it
created in Keystone is removed at the end.

    murano_keystone.py --vetro target/debug/vetro --murano VENV/bin/murano --clouds clouds.yaml

Prints one line per check and closes with `murano-keystone: N passed, N failed`.
"""

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "vetro-openstack", "tests", "support"))
from keystone_fixture import KeystoneFixture  # noqa: E402
from murano_scenario import EXAMPLE, FQN, Failed, props, stop, table, web_server_app, zip_dir  # noqa: E402
from murano_scenario import Scenario as ClientScenario  # noqa: E402

DEPLOY_TIMEOUT = 300
CACHE_TTL = 2  # seconds: --keystone-cache-ttl of this run


class Scenario(ClientScenario):
    """The client scenario's checks, logs and server handling, on Keystone."""

    def __init__(self, a, work):
        super().__init__(a.vetro, None, work, a.verbose)
        self.murano_bin = a.murano
        self.ks = KeystoneFixture(a.clouds)
        self.admin_auth, self.user_auth = self.ks.admin_auth, self.ks.user_auth

    # -- the service ----------------------------------------------------

    def start_server(self, workers=1, listen="127.0.0.1:0"):
        self.db = os.path.join(self.work, "vetro.db")
        args = [self.vetro, "serve", "--db", "sqlite://" + self.db, "--listen", listen,
                "--workers", str(workers), "--auth", "keystone", "--keystone-cloud", "vetro-service",
                "--keystone-cache-ttl", str(CACHE_TTL)]
        if not hasattr(self, "service_clouds"):
            self.service_clouds = self.ks.make_service_user(self.work)
        self.log = open(os.path.join(self.work, "serve.log"), "a")
        self.server = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, text=True,
                                       env=self.service_env())
        line = self.server.stdout.readline()
        m = re.search(r"listening on (http://\S+) .*Keystone at", line)
        self.check(m is not None, "vetro serve --auth keystone starts", line + self.server_log_tail())
        self.url = m.group(1)

    def service_env(self):
        return dict(os.environ, OS_CLIENT_CONFIG_FILE=self.service_clouds)

    def separate_worker(self):
        """Restarts the service on the same address without workers and runs its
        tasks in a `vetro worker` process, which deletes each task's trust itself."""
        self.stop_server()
        self.start_server(workers=0, listen=self.url.removeprefix("http://").rstrip("/"))
        self.worker_log = open(os.path.join(self.work, "worker.log"), "w")
        self.worker = subprocess.Popen(
            [self.vetro, "worker", "--db", "sqlite://" + self.db, "--concurrency", "1",
             "--keystone-cloud", "vetro-service"],
            stdout=subprocess.PIPE, stderr=self.worker_log, text=True, env=self.service_env())
        line = self.worker.stdout.readline()
        self.check(line.startswith("vetro worker:"), "vetro worker --keystone-cloud starts", line)

    def api(self, method, path, token):
        req = urllib.request.Request(self.url + path, method=method)
        req.add_header("Accept", "application/json")  # errors as Murano's JSON body
        if token is not None:
            req.add_header("X-Auth-Token", token)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, lower(r.headers), json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, lower(e.headers), json.loads(e.read() or b"null")

    # -- the client -----------------------------------------------------

    def client(self, *args, auth=None, expect_ok=True):
        auth = auth or self.user_auth
        cmd = [self.murano_bin, "--os-auth-url", self.ks.url, "--os-username", auth["username"],
               "--os-password", auth["password"], "--os-project-name", auth["project_name"],
               "--os-user-domain-id", "default", "--os-project-domain-id", "default", *args]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=self.work)
        if self.verbose:
            print("$ murano " + " ".join(args) + "\n" + res.stdout)
        if expect_ok and res.returncode != 0:
            self.check(False, "murano " + " ".join(args),
                       f"exit {res.returncode}\nstdout: {res.stdout}\nstderr: {res.stderr[-2000:]}")
        return res

    def refusals(self):
        status, headers, body = self.api("GET", "/v1/environments", None)
        self.check(status == 401 and body.get("code") == 401 and body.get("error", {}).get("type")
                   == "HTTPUnauthorized", "no token: 401 with Murano's error body", body)
        status, headers, body = self.api("GET", "/v1/environments", "not-a-keystone-token")
        self.check(status == 401 and "not valid" in body.get("explanation", "")
                   and headers.get("www-authenticate", "").startswith("Keystone uri="),
                   "a bad token: 401, WWW-Authenticate names Keystone", (body, headers))

    def catalog_and_environment(self):
        archive = os.path.join(self.work, "webserver.zip")
        zip_dir(os.path.join(EXAMPLE, "webserver"), archive)
        rows = table(self.client("package-import", "--exists-action", "s", archive).stdout)
        _, token_body = self.ks.user_token()
        self.project_id = token_body["project"]["id"]
        self.user_id = token_body["user"]["id"]
        self.check(len(rows) == 1 and rows[0]["FQN"] == FQN,
                   "package-import through the catalog's application-catalog endpoint", rows)
        d = props(self.client("package-show", rows[0]["ID"]).stdout)
        self.check(d.get("owner_id") == self.project_id,
                   "the package belongs to the user's Keystone project", d)
        rows = table(self.client("environment-create", "ks-env").stdout)
        self.check(len(rows) == 1 and rows[0]["Status"] == "ready", "environment-create", rows)
        self.env_id = rows[0]["ID"]
        d = props(self.client("environment-show", self.env_id).stdout)
        self.check(d.get("tenant_id") == self.project_id,
                   "environment-show: the environment is in the user's project", d)

    def deploy(self):
        d = props(self.client("environment-session-create", self.env_id).stdout)
        sid = d["id"]
        patch = os.path.join(self.work, "add.json")
        self.app_id = uuid.uuid4().hex
        with open(patch, "w") as f:
            json.dump([{"op": "add", "path": "/-", "value": web_server_app(self.app_id)}], f)
        self.client("environment-apps-edit", "--session-id", sid, self.env_id, patch)
        self.client("environment-deploy", self.env_id, "--session-id", sid)
        d = self.wait_status("ready")
        self.check(d.get("status") == "ready", "the deployment ends ready", d.get("status"))
        rows = table(self.client("deployment-list", self.env_id).stdout)
        self.check(len(rows) == 1 and rows[0]["State"] == "success", "deployment-list", rows)
        rows = table(self.client("environment-list").stdout)
        self.check([(r["ID"], r["Status"]) for r in rows] == [(self.env_id, "ready")],
                   "environment-list", rows)

    def trust(self):
        with sqlite3.connect(self.db) as c:
            trusts = [r[0] for r in c.execute("SELECT trust_id FROM tasks")]
        self.check(len(trusts) == 1 and trusts[0], "the deployment task carries a trust id", trusts)
        # The task has finished: its trust is deleted (by its worker, just
        # after the commit the client saw).
        deadline = time.time() + 10
        while time.time() < deadline and self.ks.trust(trusts[0]) is not None:
            time.sleep(0.2)
        self.check(self.ks.trust(trusts[0]) is None,
                   "the deployment's trust is gone from Keystone once the deployment ended",
                   self.ks.trust(trusts[0]))

    def admin_role(self):
        rows = table(self.client("environment-list", auth=self.admin_auth).stdout)
        self.check(self.env_id not in [r["ID"] for r in rows],
                   "another project's admin does not see the environment in its own listing")
        rows = table(self.client("environment-list", "--all-tenants", auth=self.admin_auth).stdout)
        self.check(self.env_id in [r["ID"] for r in rows],
                   "Keystone's admin role: --all-tenants lists every project's environments")
        res = self.client("environment-list", "--all-tenants", expect_ok=False)
        self.check(res.returncode != 0 and "403" in res.stdout + res.stderr,
                   "a member's --all-tenants: 403", res.stderr[-300:])

    def revocation(self):
        tok, _ = self.ks.user_token()
        status, _, _ = self.api("GET", "/v1/environments", tok)
        self.check(status == 200, "a fresh token is accepted (and cached)")
        status, _, _ = self.ks.call("DELETE", "/auth/tokens", token=tok,
                                    headers={"X-Subject-Token": tok})
        self.check(status == 204, "the token is revoked in Keystone", status)
        revoked = time.time()
        deadline = revoked + CACHE_TTL + 5
        while time.time() < deadline:
            status, _, _ = self.api("GET", "/v1/environments", tok)
            if status == 401:
                break
            time.sleep(0.2)
        took = time.time() - revoked
        self.check(status == 401 and took <= CACHE_TTL + 1,
                   f"the revoked token is refused within the cache bound ({took:.1f}s, bound {CACHE_TTL}s)",
                   status)

    def delete(self):
        self.client("environment-delete", self.env_id)
        deadline = time.time() + DEPLOY_TIMEOUT
        rows = []
        while time.time() < deadline:
            rows = table(self.client("environment-list").stdout)
            if self.env_id not in [r["ID"] for r in rows]:
                break
            time.sleep(0.5)
        self.check(self.env_id not in [r["ID"] for r in rows],
                   "environment-delete: gone after its deletion task", rows)
        # The deletion ran in the separate worker process: its trust went with
        # its task too.
        deadline = time.time() + 10
        while time.time() < deadline and self.ks.trusts_to_service():
            time.sleep(0.2)
        trusts = self.ks.trusts_to_service()
        self.check(trusts == [], "no trust to the service is left in Keystone", trusts)

    def wait_status(self, want):
        deadline = time.time() + DEPLOY_TIMEOUT
        d = {}
        while time.time() < deadline:
            d = props(self.client("environment-show", self.env_id).stdout)
            if d.get("status") == want or d.get("status", "").endswith("failure"):
                break
            time.sleep(0.5)
        if d.get("status") != want:
            print(self.server_log_tail())
        return d


def lower(headers):
    return {k.lower(): v for k, v in headers.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vetro", required=True)
    ap.add_argument("--murano", required=True)
    ap.add_argument("--clouds", required=True, help="clouds.yaml with vetro-admin and vetro-test")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    a.vetro = os.path.abspath(a.vetro)
    work = tempfile.mkdtemp(prefix="vetro-murano-ks-")
    s = Scenario(a, work)
    try:
        s.start_server()
        s.ks.register("application-catalog", s.url)
        s.refusals()
        s.catalog_and_environment()
        s.deploy()
        s.trust()
        s.admin_role()
        s.revocation()
        s.separate_worker()
        s.delete()
    except Failed:
        if s.server:
            print("server log (end):\n" + s.server_log_tail())
    except Exception:
        traceback.print_exc()
        s.failed += 1
    finally:
        s.stop_server()
        stop(getattr(s, "worker", None))
        s.ks.clean_up()
        shutil.rmtree(work, ignore_errors=True)
    print(f"murano-keystone: {s.passed} passed, {s.failed} failed")
    return 1 if s.failed else 0


if __name__ == "__main__":
    sys.exit(main())
