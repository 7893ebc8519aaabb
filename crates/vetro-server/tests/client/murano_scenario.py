#!/usr/bin/env python3
"""The real Murano client against `vetro serve`.

Starts `vetro serve` on a loopback port with a fresh SQLite database in a
temporary folder, creates a token with `vetro token create`, and drives
python-muranoclient's `murano` command through the life of the bundled
example package: catalog, class schemas, categories, environments, sessions, services,
deploy, deployments, the deployed model's actions, environment templates and
deletion. Every step parses the command's output and checks its values.

    murano_scenario.py --vetro target/debug/vetro --murano VENV/bin/murano

Prints one line per check and closes with `murano-client: N passed, N failed`;
exits non-zero when a check fails.
"""

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
import uuid
import zipfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
EXAMPLE = os.path.join(ROOT, "examples", "murano")
FQN = "io.vetro.examples.WebServer"
PROJECT, USER = "demo", "alice"
DEPLOY_TIMEOUT = 300  # seconds for one deployment, deletion or action


class Failed(Exception):
    """A check that did not hold; the scenario stops there."""


class Scenario:
    def __init__(self, vetro, murano, work, verbose):
        self.vetro, self.murano, self.work, self.verbose = vetro, murano, work, verbose
        self.passed = 0
        self.failed = 0
        self.server = None
        self.url = None
        self.token = None

    # -- running things -------------------------------------------------

    def check(self, cond, what, detail=""):
        if cond:
            self.passed += 1
            print(f"ok   {what}")
        else:
            self.failed += 1
            print(f"FAIL {what}" + (f"\n     {detail}" if detail else ""))
            raise Failed(what)

    def murano_cmd(self, *args, expect_ok=True):
        cmd = [self.murano, "--os-no-client-auth", "--os-auth-token", self.token,
               "--murano-url", self.url, *args]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=self.work)
        except subprocess.TimeoutExpired as e:
            self.check(False, "murano " + " ".join(args) + " answers within 120 s",
                       f"server health: {self.probe()}\nstdout: {e.stdout}\nstderr: {e.stderr}")
        if self.verbose:
            print("$ murano " + " ".join(args))
            print(res.stdout)
        if expect_ok and res.returncode != 0:
            self.check(False, "murano " + " ".join(args),
                       f"exit {res.returncode}\nstdout: {res.stdout}\nstderr: {res.stderr[-2000:]}")
        return res

    def start_server(self):
        db = "sqlite://" + os.path.join(self.work, "vetro.db")
        tok = subprocess.run([self.vetro, "token", "create", "--db", db, "--project", PROJECT,
                              "--user", USER, "--admin"], capture_output=True, text=True, check=True)
        self.token = tok.stdout.strip()
        self.check(re.fullmatch(r"\S{16,}", self.token) is not None,
                   "vetro token create prints a token")
        args = [self.vetro, "serve", "--db", db, "--listen", "127.0.0.1:0", "--workers", "1"]
        self.log = open(os.path.join(self.work, "serve.log"), "w")
        self.server = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.server.stdout.readline()
        m = re.search(r"listening on (http://\S+)", line)
        self.check(m is not None, "vetro serve starts on a loopback port", line)
        self.url = m.group(1)

    def probe(self):
        """The server's /healthz answer, for diagnostics."""
        try:
            with urllib.request.urlopen(self.url + "/healthz", timeout=5) as r:
                return r.read().decode()
        except OSError as e:
            return repr(e)

    def stop_server(self):
        stop(self.server)

    def server_log_tail(self):
        self.log.flush()
        with open(os.path.join(self.work, "serve.log")) as f:
            return f.read()[-3000:]

    # -- the steps ------------------------------------------------------

    def categories(self):
        out = self.murano_cmd("category-create", "Web servers").stdout
        rows = table(out)
        self.check(len(rows) == 1 and rows[0]["Name"] == "Web servers",
                   "category-create prints the new category", out)
        self.category_id = rows[0]["ID"]
        rows = table(self.murano_cmd("category-list").stdout)
        self.check({"ID": self.category_id, "Name": "Web servers"} in rows,
                   "category-list lists it")

    def package_import(self):
        archive = os.path.join(self.work, "webserver.zip")
        zip_dir(os.path.join(EXAMPLE, "webserver"), archive)
        self.archive = archive
        out = self.murano_cmd("package-import", "--categories", "Web servers",
                              "--exists-action", "a", archive).stdout
        rows = table(out)
        self.check(len(rows) == 1, "package-import prints one imported package", out)
        p = rows[0]
        self.check(p["FQN"] == FQN and p["Name"] == "Example web server" and p["Author"] == "vetro"
                   and p["Type"] == "Application" and p["Active"] == "True"
                   and p["Is Public"] == "",  # the client prints False as an empty cell
                   "package-import: FQN, name, author, type, active, private as uploaded", p)
        self.package_id = p["ID"]
        res = self.murano_cmd("package-import", "--exists-action", "s", archive)
        self.check("already registered" in res.stdout and "Skipping" in res.stdout,
                   "package-import of the same package again: 409, skipped", res.stdout)

    def package_list_show_download(self):
        rows = table(self.murano_cmd("package-list").stdout)
        self.check([r["ID"] for r in rows] == [self.package_id], "package-list lists the package")
        rows = table(self.murano_cmd("package-list", "--fqn", FQN, "--type", "Application").stdout)
        self.check(len(rows) == 1 and rows[0]["ID"] == self.package_id,
                   "package-list --fqn --type finds it")
        rows = table(self.murano_cmd("package-list", "--search", "no-such-word").stdout)
        self.check(rows == [], "package-list --search with no match is empty")
        d = props(self.murano_cmd("package-show", self.package_id).stdout)
        classes = {c.strip() for c in d.get("class_definitions", "").split(",")}
        self.check(d.get("fully_qualified_name") == FQN and d.get("type") == "Application"
                   and classes == {FQN, "io.vetro.examples.tests.WebServerTests"}
                   and d.get("categories") == "Web servers" and d.get("owner_id") == PROJECT
                   and d.get("enabled") == "True",
                   "package-show: FQN, type, both classes, category, owner", d)
        out = os.path.join(self.work, "downloaded.zip")
        self.murano_cmd("package-download", self.package_id, out)
        self.check(zip_contents(out) == zip_contents(self.archive),
                   "package-download returns the uploaded archive, file by file")
        res = self.murano_cmd("package-show", uuid.uuid4().hex, expect_ok=False)
        self.check(res.returncode != 0 and "not found" in (res.stdout + res.stderr),
                   "package-show of an unknown id fails with 'not found'")
        d = props(self.murano_cmd("category-show", self.category_id).stdout)
        self.check(d.get("packages") == "Example web server",
                   "category-show lists the package in its category", d)

    def package_ui(self):
        # The murano command has no verb for a package's form; the dashboard
        # reads it through the client library, so the check does too (in the
        # client's own interpreter, which also has PyYAML for the comparison).
        python = os.path.join(os.path.dirname(self.murano), "python")
        code = (
            "import json, sys, yaml\n"
            "from muranoclient import client\n"
            "c = client.Client('1', endpoint=sys.argv[1], token=sys.argv[2])\n"
            "print(json.dumps(c.packages.get_ui(sys.argv[3])))\n"
            "print(json.dumps(yaml.safe_load(open(sys.argv[5]))))\n"
            "try:\n"
            "    c.packages.get_ui(sys.argv[4])\n"
            "    print('found')\n"
            "except Exception as e:\n"
            "    print(type(e).__name__)\n"
        )
        res = subprocess.run([python, "-c", code, self.url, self.token, self.package_id,
                              uuid.uuid4().hex, os.path.join(EXAMPLE, "webserver", "UI", "ui.yaml")],
                             capture_output=True, text=True, timeout=60)
        self.check(res.returncode == 0, "packages.get_ui runs", res.stderr[-2000:])
        served, uploaded, unknown = res.stdout.strip().splitlines()
        self.check(json.loads(served) == json.loads(uploaded),
                   "packages.get_ui: the package's UI/ui.yaml as uploaded", served[:500])
        self.check(unknown == "HTTPNotFound", "packages.get_ui of an unknown package: 404", unknown)

    def class_schema(self):
        out = self.murano_cmd("class-schema", FQN).stdout
        schema = json_out(out)
        cls = schema.get("", {})
        props_ = cls.get("properties", {})
        self.check(set(schema) == {""} and cls.get("type") == "object"
                   and cls.get("$schema") == "http://json-schema.org/draft-04/schema#"
                   and cls.get("additionalProperties") is False,
                   "class-schema: the class's JSON Schema under the empty key", out)
        self.check(props_.get("port") == {"type": "integer", "default": 80,
                                          "minimum": 0, "exclusiveMinimum": True,
                                          "maximum": 65536, "exclusiveMaximum": True}
                   and props_.get("siteName") == {"type": "string", "default": "hello"}
                   and props_.get("instance") == {"type": "muranoObject",
                                                  "muranoType": "io.murano.resources.Instance"}
                   and "url" not in props_,
                   "class-schema: inputs from their contracts (bounds, defaults, classes); Out left out",
                   props_)
        out = self.murano_cmd("class-schema", FQN, "--package-name", FQN,
                              "--class-version", ">=0.1").stdout
        self.check(json_out(out) == schema, "class-schema --package-name --class-version: the same")
        res = self.murano_cmd("class-schema", FQN, "--class-version", "1", expect_ok=False)
        self.check(res.returncode != 0 and "not found" in (res.stdout + res.stderr),
                   "class-schema outside the package's version range: not found",
                   res.stdout + res.stderr)

    def environment_basics(self):
        rows = table(self.murano_cmd("environment-create", "demo-env").stdout)
        self.check(len(rows) == 1 and rows[0]["Name"] == "demo-env" and rows[0]["Status"] == "ready",
                   "environment-create prints the new environment, ready", rows)
        self.env_id = rows[0]["ID"]
        rows = table(self.murano_cmd("environment-list").stdout)
        self.check([(r["ID"], r["Name"], r["Status"]) for r in rows]
                   == [(self.env_id, "demo-env", "ready")], "environment-list lists it")
        rows = table(self.murano_cmd("environment-rename", self.env_id, "web-env").stdout)
        self.check(len(rows) == 1 and rows[0]["ID"] == self.env_id and rows[0]["Name"] == "web-env",
                   "environment-rename prints the renamed environment", rows)
        d = props(self.murano_cmd("environment-show", "web-env").stdout)
        self.check(d.get("id") == self.env_id and d.get("name") == "web-env"
                   and d.get("status") == "ready" and d.get("tenant_id") == PROJECT
                   and json.loads(d.get("services", "null")) == [],
                   "environment-show (found by name): id, name, status, project, no services", d)
        res = self.murano_cmd("environment-create", "web-env", expect_ok=False)
        self.check(res.returncode != 0 and "409" in res.stderr + res.stdout,
                   "environment-create with a taken name fails with 409", res.stderr[-500:])

    def session_and_apps(self):
        d = props(self.murano_cmd("environment-session-create", self.env_id).stdout)
        self.check(re.fullmatch(r"[0-9a-f-]{32,36}", d.get("id", "")) is not None,
                   "environment-session-create prints the session id", d)
        self.session_id = d["id"]
        self.app_id = uuid.uuid4().hex
        app = web_server_app(self.app_id)
        patch = os.path.join(self.work, "add-web-server.json")
        with open(patch, "w") as f:
            json.dump([{"op": "add", "path": "/-", "value": app}], f)
        self.murano_cmd("environment-apps-edit", "--session-id", self.session_id, self.env_id, patch)
        apps = json_out(self.murano_cmd("environment-show", self.env_id, "--session-id",
                                          self.session_id, "--only-apps").stdout)
        self.check(len(apps) == 1 and apps[0]["?"]["id"] == self.app_id
                   and apps[0]["?"]["type"] == FQN and apps[0]["port"] == 8080
                   and apps[0]["instance"]["name"] == "web-1",
                   "environment-apps-edit adds the web server to the session's draft", apps)
        apps = json_out(self.murano_cmd("environment-show", self.env_id, "--only-apps").stdout)
        self.check(apps == [], "the environment itself is unchanged until deployed", apps)
        d = props(self.murano_cmd("environment-show", self.env_id).stdout)
        self.check(d.get("status") == "pending", "with an open session the status is pending", d)
        rename = os.path.join(self.work, "rename-site.json")
        with open(rename, "w") as f:
            json.dump([{"op": "replace", "path": "/0/siteName", "value": "hello-vetro"}], f)
        self.murano_cmd("environment-apps-edit", "--session-id", self.session_id, self.env_id, rename)
        apps = json_out(self.murano_cmd("environment-show", self.env_id, "--session-id",
                                          self.session_id, "--only-apps").stdout)
        self.check(apps[0]["siteName"] == "hello-vetro",
                   "environment-apps-edit replaces a property in the draft", apps)

    def deploy(self):
        d = props(self.murano_cmd("environment-deploy", self.env_id,
                                  "--session-id", self.session_id).stdout)
        self.check(d.get("status") in ("deploying", "ready") and d.get("id") == self.env_id,
                   "environment-deploy starts the deployment", d)
        d = self.wait_status(self.env_id, "ready")
        self.check(d.get("status") == "ready", "polling environment-show: the deployment ends ready",
                   d.get("status"))
        apps = json.loads(d["services"])
        self.check(len(apps) == 1 and apps[0]["?"]["id"] == self.app_id,
                   "the deployed environment has the web server", apps)
        rows = table(self.murano_cmd("deployment-list", self.env_id).stdout)
        self.check(len(rows) == 1 and rows[0]["State"] == "success" and rows[0]["Finished"] != "",
                   "deployment-list: one finished deployment, success", rows)
        self.deployment_id = rows[0]["ID"]
        rows = table(self.murano_cmd("deployment-list", "--all-environments").stdout)
        self.check([r["ID"] for r in rows] == [self.deployment_id],
                   "deployment-list --all-environments lists it")

    def model(self):
        # muranoclient 2.8.0's environment-model-show fails before sending
        # anything without --session-id (it logs a None header value), so the
        # deployed model is read through a new session, a copy of it.
        d = props(self.murano_cmd("environment-session-create", self.env_id).stdout)
        self.model_session = d["id"]
        model = json_out(self.murano_cmd("environment-model-show", self.env_id,
                                         "--session-id", self.model_session).stdout)
        # The engine writes types as Murano does: "<class>/<version>@<package>".
        self.check(model.get("?", {}).get("type", "").split("/")[0] == "io.murano.Environment"
                   and model.get("name") == "web-env",
                   "environment-model-show: the environment object", str(model)[:500])
        app = next((s for s in model.get("services", []) if s["?"]["id"] == self.app_id), None)
        self.check(app is not None, "the deployed model has the web server")
        actions = app["?"].get("_actions", {})
        restart = [k for k, v in actions.items() if v.get("name") == "restart"]
        self.check(restart == [f"{self.app_id}_restart"]
                   and actions[restart[0]].get("enabled") is True,
                   "the deployed model lists the web server's restart action in ?._actions", actions)
        self.action_id = restart[0]
        self.check(str(app.get("url", "")).startswith("http://") and app["url"].endswith(":8080/"),
                   "the deployment set the web server's url", app.get("url"))
        sub = json_out(self.murano_cmd("environment-model-show", self.env_id, "--session-id",
                                       self.model_session, "--path", "/services/0/siteName").stdout)
        self.check(sub == "hello-vetro", "environment-model-show --path gives the value there", sub)

    def action(self):
        out = self.murano_cmd("environment-action-call", self.env_id,
                              "--action-id", self.action_id).stdout
        m = re.search(r"Created task, id: (\S+)", out)
        self.check(m is not None, "environment-action-call prints the task id", out)
        task = m.group(1)
        deadline = time.time() + DEPLOY_TIMEOUT
        result = None
        while time.time() < deadline:
            out = self.murano_cmd("environment-action-get-result", self.env_id,
                                  "--task-id", task).stdout
            text = out.split("Task id result: ", 1)[-1].strip()
            result = ast.literal_eval(text)
            if result is not None:
                break
            time.sleep(0.5)
        self.check(isinstance(result, dict) and result.get("isException") is False
                   and "result" in result,
                   "environment-action-get-result: the action's result, no exception", result)
        rows = table(self.murano_cmd("deployment-list", self.env_id).stdout)
        self.check(len(rows) == 2 and all(r["State"] == "success" for r in rows),
                   "deployment-list: the deploy and the action, both success", rows)
        res = self.murano_cmd("environment-action-call", self.env_id,
                              "--action-id", "nosuchobject_restart", expect_ok=False)
        self.check(res.returncode != 0 and "404" in res.stderr + res.stdout,
                   "environment-action-call of an unknown action fails with 404", res.stderr[-500:])

    def templates(self):
        rows = table(self.murano_cmd("env-template-create", "web-template").stdout)
        self.check(len(rows) == 1 and rows[0]["Name"] == "web-template"
                   and rows[0]["Is public"] == "",
                   "env-template-create prints the new template", rows)
        tid = rows[0]["ID"]
        app_file = os.path.join(self.work, "template-app.json")
        self.template_app_id = uuid.uuid4().hex
        with open(app_file, "w") as f:
            json.dump(web_server_app(self.template_app_id), f)
        d = props(self.murano_cmd("env-template-add-app", tid, app_file).stdout)
        services = json.loads(d.get("services", "[]"))
        self.check(d.get("id") == tid and len(services) == 1
                   and services[0]["?"]["id"] == self.template_app_id
                   and services[0]["?"]["type"] == FQN,
                   "env-template-add-app: the template shows the web server", d)
        d = props(self.murano_cmd("env-template-create-env", tid, "from-template").stdout)
        self.check(bool(d.get("environment_id")) and bool(d.get("session_id")),
                   "env-template-create-env prints the environment and its session", d)
        self.template_env = d["environment_id"]
        apps = json_out(self.murano_cmd("environment-show", self.template_env, "--session-id",
                                          d["session_id"], "--only-apps").stdout)
        self.check(len(apps) == 1 and apps[0]["?"]["type"] == FQN,
                   "the new environment's session has the template's web server", apps)
        rows = {r["ID"]: r for r in table(self.murano_cmd("environment-list").stdout)}
        self.check(rows.get(self.template_env, {}).get("Name") == "from-template"
                   and rows[self.template_env]["Status"] == "pending",
                   "environment-list shows it, pending (an open session)", rows)

    def delete_environments(self):
        rows = table(self.murano_cmd("environment-delete", self.template_env).stdout)
        self.check(self.template_env not in [r["ID"] for r in rows],
                   "environment-delete of a never deployed environment removes it at once", rows)
        self.murano_cmd("environment-delete", self.env_id)
        deadline = time.time() + DEPLOY_TIMEOUT
        while time.time() < deadline:
            rows = table(self.murano_cmd("environment-list").stdout)
            if self.env_id not in [r["ID"] for r in rows]:
                break
            self.check(rows[0]["Status"] in ("deleting", "ready"),
                       "environment-list while deleting", rows)
            time.sleep(0.5)
        self.check(self.env_id not in [r["ID"] for r in rows],
                   "environment-delete of the deployed environment: gone after its deletion task",
                   rows)
        res = self.murano_cmd("environment-show", self.env_id, expect_ok=False)
        self.check(res.returncode != 0 and "not found" in res.stderr + res.stdout,
                   "environment-show of the deleted environment: not found")

    def wait_status(self, env, want):
        deadline = time.time() + DEPLOY_TIMEOUT
        d = {}
        while time.time() < deadline:
            d = props(self.murano_cmd("environment-show", env).stdout)
            if d.get("status") == want or d.get("status", "").endswith("failure"):
                break
            time.sleep(0.5)
        if d.get("status") != want:
            rows = self.murano_cmd("deployment-list", env, expect_ok=False).stdout
            print(rows)
            print(self.server_log_tail())
        return d


def stop(proc):
    """Ends `proc` (if it runs): SIGTERM, then SIGKILL after 10 s."""
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def web_server_app(app_id):
    """The example's web server application with fresh object ids."""
    with open(os.path.join(EXAMPLE, "environment.json")) as f:
        app = json.load(f)["Objects"]["applications"][0]
    app["?"]["id"] = app_id
    app["instance"]["?"]["id"] = uuid.uuid4().hex
    return app


def zip_dir(src, dest):
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
        for root, _, files in os.walk(src):
            for name in sorted(files):
                path = os.path.join(root, name)
                z.write(path, os.path.relpath(path, src))


def zip_contents(path):
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist() if not n.endswith("/")}


def json_out(text):
    """The JSON document a command printed, after any log lines before it."""
    lines = text.splitlines()
    for i in range(len(lines)):
        try:
            return json.loads("\n".join(lines[i:]))
        except ValueError:
            continue
    raise ValueError("no JSON in the output: " + text[:500])


def table(text):
    """Rows of a prettytable as dicts keyed by the header."""
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    if not lines:
        return []
    cells = lambda ln: [c.strip() for c in ln.strip()[1:-1].split("|")]
    header = cells(lines[0])
    return [dict(zip(header, cells(ln))) for ln in lines[1:]]


def props(text):
    """A Property/Value prettytable as a dict; wrapped values are joined back."""
    out, key = {}, None
    for row in table(text):
        if row.get("Property"):
            key = row["Property"]
            out[key] = row.get("Value", "")
        elif key is not None:
            sep = "\n" if out[key].lstrip().startswith(("[", "{")) else " "
            out[key] += sep + row.get("Value", "")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vetro", required=True)
    ap.add_argument("--murano", required=True)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="vetro-murano-")
    s = Scenario(os.path.abspath(a.vetro), a.murano, work, a.verbose)
    try:
        s.start_server()
        s.categories()
        s.package_import()
        s.package_list_show_download()
        s.class_schema()
        s.package_ui()
        s.environment_basics()
        s.session_and_apps()
        s.deploy()
        s.model()
        s.action()
        s.templates()
        s.delete_environments()
    except Failed:
        print("server log (end):\n" + s.server_log_tail())
    except Exception:  # a crash of the scenario itself counts as a failure
        traceback.print_exc()
        s.failed += 1
    finally:
        s.stop_server()
        shutil.rmtree(work, ignore_errors=True)
    print(f"murano-client: {s.passed} passed, {s.failed} failed")
    return 1 if s.failed else 0


if __name__ == "__main__":
    sys.exit(main())
