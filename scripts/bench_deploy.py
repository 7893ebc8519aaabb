#!/usr/bin/env python3
"""Deployments of the bundled example through a running `vetro serve`.

Uploads examples/murano/webserver (zipped now), creates ENVS environments and
runs DEPLOYS deployments spread over them: the environments in parallel, one
deployment at a time per environment (the service allows one). Every
deployment replaces the environment's web server with a new one (fresh
object ids), so each run destroys the previous instance and deploys a new
one. Prints the total time and per-deployment percentiles of:

- end to end: the client's deploy request until the deployment is finished;
- API: the three requests a deployment takes (session, services, deploy);
- queue: from the task's creation to a worker starting it (server clock);
- run: from start to finish in the worker (server clock).

Standard library only; bounded by --timeout seconds in all.
"""

import argparse
import datetime
import io
import json
import os
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
import zipfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
EXAMPLE = os.path.join(ROOT, "examples", "murano")


class Api:
    def __init__(self, url, token):
        self.url, self.token = url, token

    def call(self, method, path, body=None, headers=None, raw=None, ctype="application/json"):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        h = {"X-Auth-Token": self.token, "Accept": "application/json"}
        if data is not None:
            h["Content-Type"] = ctype
        h.update(headers or {})
        for attempt in range(20):
            req = urllib.request.Request(self.url + path, data=data, method=method, headers=h)
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    text = r.read()
                return json.loads(text) if text else None
            except urllib.error.HTTPError as e:
                # Past the token's request rate: wait as the server asks, as a client should.
                if e.code != 429 or attempt == 19:
                    raise
                time.sleep(min(float(e.headers.get("Retry-After") or 1), 5))
        raise AssertionError("unreachable")


def package_zip():
    buf = io.BytesIO()
    src = os.path.join(EXAMPLE, "webserver")
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for root, _, files in os.walk(src):
            for name in files:
                path = os.path.join(root, name)
                z.write(path, os.path.relpath(path, src))
    return buf.getvalue()


def upload(api):
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"webserver\"; "
            f"filename=\"webserver.zip\"\r\nContent-Type: application/zip\r\n\r\n").encode()
    body += package_zip() + f"\r\n--{boundary}--\r\n".encode()
    try:
        api.call("POST", "/v1/catalog/packages", raw=body,
                 ctype=f"multipart/form-data; boundary={boundary}")
    except urllib.error.HTTPError as e:
        if e.code != 409:  # already there from an earlier run on this database
            raise


def web_server():
    with open(os.path.join(EXAMPLE, "environment.json")) as f:
        app = json.load(f)["Objects"]["applications"][0]
    app["?"]["id"] = uuid.uuid4().hex
    app["instance"]["?"]["id"] = uuid.uuid4().hex
    app["instance"]["name"] = "web-" + app["?"]["id"][:6]
    return app


def stamp(text):
    return datetime.datetime.fromisoformat(text).timestamp()


def deploy_once(api, env_id, deadline):
    """One deployment; returns (end_to_end, api_time, queue, run, state)."""
    t0 = time.perf_counter()
    sid = api.call("POST", f"/v1/environments/{env_id}/configure")["id"]
    hdr = {"X-Configuration-Session": sid}
    api.call("PUT", f"/v1/environments/{env_id}/services", [web_server()], headers=hdr)
    t1 = time.perf_counter()
    api.call("POST", f"/v1/environments/{env_id}/sessions/{sid}/deploy")
    t2 = time.perf_counter()
    pause = 0.01
    while time.time() < deadline:
        dep = api.call("GET", f"/v1/environments/{env_id}/deployments")["deployments"][0]
        if dep.get("finished"):
            end = time.perf_counter()
            queue = stamp(dep["started"]) - stamp(dep["created"])
            run = stamp(dep["finished"]) - stamp(dep["started"])
            return end - t1, (t1 - t0) + (t2 - t1), queue, run, dep["state"]
        # Polls soon after the deploy, then less often (the token's request rate is bounded).
        time.sleep(pause)
        pause = min(pause * 1.5, 0.1)
    raise TimeoutError(f"deployment in {env_id} not finished in time")


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--deploys", type=int, default=200)
    ap.add_argument("--envs", type=int, default=20)
    ap.add_argument("--label", default="")
    ap.add_argument("--timeout", type=float, default=1800)
    a = ap.parse_args()
    api = Api(a.url, a.token)
    upload(api)
    run_id = uuid.uuid4().hex[:6]
    envs = [api.call("POST", "/v1/environments", {"name": f"bench-{run_id}-{i}"})["id"]
            for i in range(a.envs)]
    per_env = [a.deploys // a.envs + (1 if i < a.deploys % a.envs else 0) for i in range(a.envs)]
    results, errors = [], []
    lock = threading.Lock()
    deadline = time.time() + a.timeout

    def worker(env_id, count):
        for _ in range(count):
            try:
                r = deploy_once(api, env_id, deadline)
            except Exception as e:  # recorded and reported, the others go on
                with lock:
                    errors.append(repr(e))
                return
            with lock:
                results.append(r)

    start = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(e, n)) for e, n in zip(envs, per_env)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = time.perf_counter() - start
    states = {}
    for r in results:
        states[r[4]] = states.get(r[4], 0) + 1
    print(f"{a.label}: {len(results)} deployments over {a.envs} environments in {total:.1f} s "
          f"({len(results) / total:.2f}/s); states {states}; errors {len(errors)}")
    if results:
        for name, i in (("end to end", 0), ("API (3 requests)", 1), ("queue wait", 2), ("run", 3)):
            xs = [r[i] * 1000 for r in results]
            print(f"    {name:18} p50 {pct(xs, 50):8.1f} ms   p99 {pct(xs, 99):8.1f} ms   "
                  f"mean {statistics.fmean(xs):8.1f} ms")
    for e in errors[:5]:
        print("    error: " + e)
    return 1 if errors or states.keys() - {"success"} else 0


if __name__ == "__main__":
    sys.exit(main())
