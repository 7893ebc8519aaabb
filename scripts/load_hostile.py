#!/usr/bin/env python3
"""Honest deployments next to hostile tenants, through a running `vetro serve`.

One project keeps deploying an endless `While: 1 = 1` loop, another a memory
bomb (a string doubled until the session's memory limit), each again as soon
as the previous one ended, while scripts/bench_deploy.py runs DEPLOYS
deployments of the bundled example over ENVS environments in a third
project. Passes when every honest deployment succeeds (none failed from a
database lock) and every hostile one failed with its limit's message.

    scripts/load_hostile.py --url URL --db DB --vetro VETRO [--deploys 200 --envs 20]

Standard library only; bounded by --timeout seconds in all.
"""

import argparse
import io
import os
import subprocess
import sys
import threading
import time
import urllib.error
import uuid
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_deploy import Api  # noqa: E402

HOSTILE = {
    "t.Spin": ("- While: 1 = 1\n        Do:\n          - $x: 1", "ran longer than"),
    "t.Hog": ("- $s: x\n      - While: 1 = 1\n        Do:\n          - $s: $s + $s",
              "allocate"),
}


def token(vetro, db, project):
    out = subprocess.run([vetro, "token", "create", "--db", db, "--project", project,
                          "--user", "u", "--admin"], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def upload(api, fqn, body):
    name = fqn.split(".")[-1]
    manifest = (f"Format: MuranoPL/1.4\nType: Application\nFullName: {fqn}\nName: {name}\n"
                f"Author: vetro\nClasses:\n  {fqn}: {name}.yaml\n")
    cls = (f"Namespaces:\n  =: t\n  std: io.murano\nName: {name}\nExtends: std:Application\n"
           f"Methods:\n  deploy:\n    Body:\n      {body}\n")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("manifest.yaml", manifest)
        z.writestr(f"Classes/{name}.yaml", cls)
    boundary = uuid.uuid4().hex
    raw = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{fqn}\"; "
           f"filename=\"p.zip\"\r\nContent-Type: application/zip\r\n\r\n").encode()
    raw += buf.getvalue() + f"\r\n--{boundary}--\r\n".encode()
    try:
        api.call("POST", "/v1/catalog/packages", raw=raw,
                 ctype=f"multipart/form-data; boundary={boundary}")
    except urllib.error.HTTPError as e:
        if e.code != 409:  # already there from an earlier run on this database
            raise


def hostile(api, fqn, expect, stop, outcomes, deadline):
    """Deploys `fqn` again and again until `stop`; records each outcome."""
    env = api.call("POST", "/v1/environments", {"name": f"hostile-{fqn}-{uuid.uuid4().hex[:6]}"})["id"]
    while not stop.is_set() and time.time() < deadline:
        sid = api.call("POST", f"/v1/environments/{env}/configure")["id"]
        app = {"?": {"id": uuid.uuid4().hex, "type": fqn}, "name": "x"}
        api.call("POST", f"/v1/environments/{env}/services", app,
                 headers={"X-Configuration-Session": sid})
        api.call("POST", f"/v1/environments/{env}/sessions/{sid}/deploy")
        dep = None
        while time.time() < deadline:
            dep = api.call("GET", f"/v1/environments/{env}/deployments")["deployments"][0]
            if dep.get("finished"):
                break
            time.sleep(0.2)
        detail = api.call("GET", f"/v1/environments/{env}/deployments/{dep['id']}")
        texts = " | ".join(r["text"] for r in detail.get("reports", []))
        outcomes.append((fqn, dep["state"], expect in texts, texts[-300:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--vetro", required=True)
    ap.add_argument("--deploys", type=int, default=200)
    ap.add_argument("--envs", type=int, default=20)
    ap.add_argument("--label", default="")
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    deadline = time.time() + a.timeout
    stop = threading.Event()
    outcomes = []
    threads = []
    for i, (fqn, (body, expect)) in enumerate(HOSTILE.items()):
        api = Api(a.url, token(a.vetro, a.db, f"hostile{i}"))
        upload(api, fqn, body)
        t = threading.Thread(target=hostile, args=(api, fqn, expect, stop, outcomes, deadline))
        t.start()
        threads.append(t)
    time.sleep(1)  # the hostile tasks are running before the honest ones queue
    honest = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "bench_deploy.py"),
                             "--url", a.url, "--token", token(a.vetro, a.db, "honest"),
                             "--deploys", str(a.deploys), "--envs", str(a.envs),
                             "--label", a.label + " honest", "--timeout", str(a.timeout)])
    stop.set()
    for t in threads:
        t.join()
    bad = [o for o in outcomes if o[1] != "completed_w_errors" or not o[2]]
    for fqn in HOSTILE:
        runs = [o for o in outcomes if o[0] == fqn]
        print(f"{a.label} hostile {fqn}: {len(runs)} deployment(s), "
              f"{sum(1 for o in runs if o[1] == 'completed_w_errors' and o[2])} failed with the limit")
    for o in bad:
        print(f"    unexpected: {o}")
    if not all(any(o[0] == fqn for o in outcomes) for fqn in HOSTILE):
        print("    a hostile deployment never finished")
        return 1
    return 1 if honest.returncode or bad else 0


if __name__ == "__main__":
    sys.exit(main())
