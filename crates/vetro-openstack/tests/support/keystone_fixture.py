"""Keystone for the end-to-end tests of `vetro serve --auth keystone`.

Reads the clouds.yaml openstack-services.sh writes (clouds `vetro-admin` and
`vetro-test`), makes a service user of its own (role `service` in the
`service` project) with a clouds.yaml naming it (cloud `vetro-service`),
registers a service in the catalog when asked, and deletes all it made.
Python's standard library and PyYAML only.
"""

import json
import os
import urllib.error
import urllib.request
import uuid

import yaml

PREFIX = "vetro-e2e-"  # names of what the fixture creates in Keystone


def project_scope(name):
    return {"project": {"name": name, "domain": {"id": "default"}}}


class KeystoneFixture:
    def __init__(self, clouds_yaml):
        with open(clouds_yaml) as f:
            clouds = yaml.safe_load(f)["clouds"]
        self.admin_auth = clouds["vetro-admin"]["auth"]
        self.user_auth = clouds["vetro-test"]["auth"]
        self.url = self.user_auth["auth_url"].rstrip("/")
        self.created = []

    def call(self, method, path, body=None, token=None, headers=None):
        req = urllib.request.Request(self.url + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
        req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("X-Auth-Token", token)
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                text = r.read()
                return r.status, dict(r.headers), json.loads(text) if text else None
        except urllib.error.HTTPError as e:
            text = e.read()
            try:
                return e.code, dict(e.headers), json.loads(text)
            except ValueError:
                return e.code, dict(e.headers), text.decode(errors="replace")

    def token(self, auth, scope):
        """(token, token body) for password `auth` with `scope`; raises when refused."""
        body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
            "name": auth["username"], "domain": {"id": "default"}, "password": auth["password"]}}},
            "scope": scope}}
        status, headers, body = self.call("POST", "/auth/tokens", body)
        if status != 201:
            raise RuntimeError(f"Keystone refused {auth['username']}: {status} {body}")
        return headers["X-Subject-Token"], body["token"]

    def user_token(self):
        return self.token(self.user_auth, project_scope(self.user_auth["project_name"]))

    def admin(self):
        return self.token(self.admin_auth, project_scope(self.admin_auth["project_name"]))[0]

    def find(self, tok, kind, name):
        _, _, body = self.call("GET", f"/{kind}s?name={name}", token=tok)
        items = body.get(f"{kind}s", [])
        return items[0]["id"] if items else None

    def remove_leftovers(self, tok):
        """What an interrupted earlier run left (a stale catalog entry misleads clients)."""
        _, _, body = self.call("GET", "/services", token=tok)
        for s in body.get("services", []):
            if s.get("name", "").startswith(PREFIX):
                self.call("DELETE", f"/services/{s['id']}", token=tok)
        _, _, body = self.call("GET", "/users", token=tok)
        for u in body.get("users", []):
            if u["name"].startswith(PREFIX):
                self.call("DELETE", f"/users/{u['id']}", token=tok)

    def make_service_user(self, work):
        """A service user; returns the clouds.yaml (cloud `vetro-service`) naming it."""
        tok = self.admin()
        self.remove_leftovers(tok)
        project = self.find(tok, "project", "service")
        role = self.find(tok, "role", "service")
        if project is None or role is None:
            raise RuntimeError("Keystone has no `service` project or no `service` role")
        self.svc_name, self.svc_password = PREFIX + uuid.uuid4().hex[:8], uuid.uuid4().hex
        status, _, body = self.call("POST", "/users", {"user": {
            "name": self.svc_name, "domain_id": "default", "password": self.svc_password}}, tok)
        if status != 201:
            raise RuntimeError(f"cannot create the service user: {status} {body}")
        self.svc_id = body["user"]["id"]
        self.created.append(f"/users/{self.svc_id}")
        self.call("PUT", f"/projects/{project}/users/{self.svc_id}/roles/{role}", token=tok)
        path = os.path.join(work, "clouds.yaml")
        with open(path, "w") as f:
            yaml.safe_dump({"clouds": {"vetro-service": {"auth": {
                "auth_url": self.url, "username": self.svc_name, "password": self.svc_password,
                "project_name": "service", "user_domain_name": "Default",
                "project_domain_name": "Default"}}}}, f)
        return path

    def service_auth(self):
        return {"username": self.svc_name, "password": self.svc_password}

    def register(self, kind, url):
        """Registers `url` in the catalog as a service of type `kind` (all interfaces)."""
        tok = self.admin()
        status, _, body = self.call("POST", "/services", {"service": {
            "type": kind, "name": PREFIX + kind}}, tok)
        if status != 201:
            raise RuntimeError(f"cannot register {kind}: {status} {body}")
        sid = body["service"]["id"]
        self.created.append(f"/services/{sid}")
        for iface in ("public", "internal", "admin"):
            self.call("POST", "/endpoints", {"endpoint": {
                "service_id": sid, "interface": iface, "region_id": "RegionOne", "url": url}}, tok)

    def trust(self, trust_id):
        status, _, body = self.call("GET", f"/OS-TRUST/trusts/{trust_id}", token=self.admin())
        return body.get("trust") if status == 200 and isinstance(body, dict) else None

    def trusts_to_service(self):
        """The trusts whose trustee is the fixture's service user."""
        _, _, body = self.call("GET", f"/OS-TRUST/trusts?trustee_user_id={self.svc_id}",
                               token=self.admin())
        return body.get("trusts", []) if isinstance(body, dict) else []

    def clean_up(self):
        try:
            tok = self.admin()
        except Exception as e:  # Keystone gone: nothing more to do
            print(f"Keystone clean-up skipped: {e}")
            return
        if hasattr(self, "svc_id"):
            for t in self.trusts_to_service():
                self.call("DELETE", f"/OS-TRUST/trusts/{t['id']}", token=tok)
        for path in reversed(self.created):
            self.call("DELETE", path, token=tok)
        self.created = []
