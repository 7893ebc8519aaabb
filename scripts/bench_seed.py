#!/usr/bin/env python3
"""Fills a project of a running `vetro serve` for the list benchmarks.

Creates ENVS environments; every second one gets an open configuration
session (status `pending`) and every fourth one a deployment queued with the
bundled example (status `deploying` while no worker runs it; start the server
with `--workers 0` to keep them queued). Then TEMPLATES environment templates
and PACKAGES packages (copies of the bundled example's package under distinct
names). Prints the ids of one environment and of one package, for the
per-environment and per-package listings. With --remove, it removes every
environment of the project instead (abandoned: their queued deployments go
with them), so that workers started later on the same database find none.

Standard library only; one keep-alive connection.
"""

import argparse
import http.client
import io
import json
import os
import sys
import urllib.parse
import uuid
import zipfile

from bench_deploy import web_server

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
EXAMPLE = os.path.join(ROOT, "examples", "murano")


class Api:
    def __init__(self, url, token):
        u = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        self.token = token

    def call(self, method, path, body=None, headers=None, raw=None, ctype="application/json"):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        h = {"X-Auth-Token": self.token, "Accept": "application/json"}
        if data is not None:
            h["Content-Type"] = ctype
        h.update(headers or {})
        self.conn.request(method, path, body=data, headers=h)
        r = self.conn.getresponse()
        text = r.read()
        if r.status != 200:
            raise RuntimeError(f"{method} {path}: {r.status} {text[:300]!r}")
        return json.loads(text) if text else None


def package_zip(n):
    """The example's package, renamed so that each copy is a package of its own."""
    src = os.path.join(EXAMPLE, "webserver")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for root, _, files in os.walk(src):
            for name in files:
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                # Class and package names get a suffix, so no two copies conflict.
                text = text.replace("io.vetro.examples", f"io.vetro.examples{n}")
                z.writestr(os.path.relpath(path, src), text)
    return buf.getvalue()


def upload(api, n):
    boundary = uuid.uuid4().hex
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"p\"; "
            f"filename=\"p{n}.zip\"\r\nContent-Type: application/zip\r\n\r\n").encode()
    body = head + package_zip(n) + f"\r\n--{boundary}--\r\n".encode()
    return api.call("POST", "/v1/catalog/packages", raw=body,
                    ctype=f"multipart/form-data; boundary={boundary}")["id"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--envs", type=int, default=1000)
    ap.add_argument("--templates", type=int, default=200)
    ap.add_argument("--packages", type=int, default=200)
    ap.add_argument("--remove", action="store_true")
    a = ap.parse_args()
    api = Api(a.url, a.token)
    if a.remove:
        while True:
            envs = api.call("GET", "/v1/environments?limit=1000")["environments"]
            if not envs:
                return 0
            for e in envs:
                api.call("DELETE", f"/v1/environments/{e['id']}?abandon=true")
    run = uuid.uuid4().hex[:6]
    package_ids = [upload(api, f"{run}x{i}") for i in range(a.packages)]
    env_ids = []
    for i in range(a.envs):
        env = api.call("POST", "/v1/environments", {"name": f"list-{run}-{i}"})["id"]
        env_ids.append(env)
        if i % 2 == 1:
            api.call("POST", f"/v1/environments/{env}/configure")
        elif i % 4 == 0 and package_ids:
            sid = api.call("POST", f"/v1/environments/{env}/configure")["id"]
            hdr = {"X-Configuration-Session": sid}
            app = web_server()
            app["?"]["type"] = app["?"]["type"].replace("io.vetro.examples", f"io.vetro.examples{run}x0")
            api.call("POST", f"/v1/environments/{env}/services", app, headers=hdr)
            api.call("POST", f"/v1/environments/{env}/sessions/{sid}/deploy")
    for i in range(a.templates):
        api.call("POST", "/v1/templates", {"name": f"tpl-{run}-{i}"})
    print(json.dumps({"environment": env_ids[0] if env_ids else None,
                      "package": package_ids[0] if package_ids else None}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
