"""Plays Murano's engine on the wire against `vetro agent`.

Queues are declared and plans published with kombu exactly as Murano's
engine did (durable queues with `x-ha-policy` and `x-expires`, the plan as
JSON text, its id as the AMQP message id, an RSA PKCS#1 v1.5 SHA-256
signature of queue name + body in the `signature` header), and results are
read from the environment's result queue by `SourceID`. Checks formats 1
and 2, a plan whose id only the message carries, signature and stamp
refusals, and a failing script. Exit status 0 when every check passed.

usage: murano_engine_wire.py AMQP_URL VETRO_BINARY WORKDIR
"""
import base64
import json
import os
import subprocess
import sys
import time
import uuid

import kombu
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

AMQP_URL, VETRO, WORK = sys.argv[1:4]
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
ENV = uuid.uuid4().hex
QUEUE = ("e%s-h%s" % (ENV, uuid.uuid4().hex)).lower()
RESULTS = ("-execution-results-%s" % ENV).lower()
failures = []


def check(what, ok, detail=""):
    print("%s: %s%s" % ("ok" if ok else "FAILED", what, (" (%s)" % detail) if not ok else ""))
    if not ok:
        failures.append(what)


def declare(conn, name):
    """Murano's MqClient.declare(queue, enable_ha=True, ttl=86400000)."""
    exchange = kombu.Exchange("", type="direct", durable=True)
    queue = kombu.Queue(name, exchange, name, durable=True,
                        queue_arguments={"x-ha-policy": "all", "x-expires": 86400000})
    queue(conn).declare()


def publish(conn, plan, msg_id, sign=True, key=None):
    """Murano's MqClient.send with Agent._sign as the signing function."""
    data = json.dumps(plan)
    headers = None
    if sign:
        headers = {"signature": (key or KEY).sign(
            (QUEUE + data).encode("utf-8"), padding.PKCS1v15(), hashes.SHA256())}
    kombu.Producer(conn).publish(exchange="", routing_key=QUEUE, body=data,
                                 message_id=str(msg_id), headers=headers)


def stamp():
    stamp.last = max(int(time.time() * 10000), getattr(stamp, "last", 0) + 1)
    return stamp.last


def results(conn, wanted, timeout):
    """The results whose SourceID is in `wanted`, read within `timeout` seconds."""
    got = {}
    queue = kombu.Queue(RESULTS, exchange=None)

    def take(body, message):
        message.ack()
        r = json.loads(body) if isinstance(body, (str, bytes)) else body
        got[r.get("SourceID")] = r

    with kombu.Consumer(conn, queues=[queue], callbacks=[take], auto_declare=False):
        end = time.time() + timeout
        while not wanted <= set(got) and time.time() < end:
            try:
                conn.drain_events(timeout=0.2)
            except Exception:
                pass
    return got


def b64(text):
    return base64.b64encode(text.encode()).decode()


def v2_plan(version, body_script, files_extra=None):
    plan_id = uuid.uuid4().hex
    files = {
        "f1": {"Name": "deploy.sh", "BodyType": "Base64", "Body": b64(body_script)},
        "f2": {"Name": "greeting.txt", "BodyType": "Text", "Body": "hello from murano"},
    }
    files.update(files_extra or {})
    return plan_id, {
        "FormatVersion": version, "Version": "1.0.0", "Name": "wire", "ID": plan_id,
        "Action": "Execute", "Stamp": stamp(), "Parameters": {"who": "engine"},
        "Body": "return deploy(args.who).stdout",
        "Files": files,
        "Scripts": {"deploy": {"Type": "Application", "Version": "1.0.0", "EntryPoint": "f1",
                               "Files": ["f2"],
                               "Options": {"captureStdout": True, "captureStderr": True}}},
    }


def main():
    os.makedirs(WORK, exist_ok=True)
    public = KEY.public_key().public_bytes(serialization.Encoding.PEM,
                                          serialization.PublicFormat.PKCS1).decode()
    url = kombu.Connection(AMQP_URL)
    conf = os.path.join(WORK, "agent.conf")
    with open(conf, "w") as f:
        f.write("[DEFAULT]\nstorage = %s\nengine_key = %s\n" % (
            os.path.join(WORK, "storage"), "\n    ".join(public.strip().splitlines())))
        f.write("[rabbitmq]\nhost = %s\nport = %s\nlogin = %s\npassword = %s\n"
                "virtual_host = %s\ninput_queue = %s\nresult_routing_key = %s\n" % (
                    url.hostname, url.port or 5672, url.userid, url.password,
                    url.virtual_host or "/", QUEUE, RESULTS))
    started = time.time()
    with kombu.Connection(AMQP_URL) as conn:
        # Murano's engine declares both queues before the agent starts.
        declare(conn, QUEUE)
        declare(conn, RESULTS)
        log = open(os.path.join(WORK, "agent.log"), "w")
        agent = subprocess.Popen([VETRO, "agent", "--config-file", conf],
                                 stdout=log, stderr=subprocess.STDOUT)
        try:
            run_checks(conn)
        finally:
            agent.terminate()
            agent.wait(10)
    print("murano wire checks: %.1f s" % (time.time() - started))
    if failures:
        print("agent log:\n" + open(os.path.join(WORK, "agent.log")).read()[-3000:])
        sys.exit(1)


def run_checks(conn):
    script = "#!/bin/sh\necho \"$(cat greeting.txt) to $1\"\n"
    # Format 2.0.0 and 2.1.0, signed as Murano signed them.
    id20, p20 = v2_plan("2.0.0", script)
    id21, p21 = v2_plan("2.1.0", script)
    # Format 1: no ID in the plan; the agent takes the message id.
    id1 = uuid.uuid4().hex
    p1 = {"FormatVersion": "1.0.0", "Name": "v1", "Stamp": stamp(),
          "Body": "return deploy().stdout",
          "Files": {"s": {"Name": "v1.sh", "BodyType": "Text", "Body": "#!/bin/sh\necho format one\n"}},
          "Scripts": {"deploy": {"Type": "Application", "EntryPoint": "s", "Files": [],
                                 "Options": {"captureStdout": True}}}}
    # Signed with another key: dropped without an answer.
    idbad, pbad = v2_plan("2.0.0", script)
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    # An old stamp: dropped too.
    idold, pold = v2_plan("2.0.0", script)
    pold["Stamp"] = 1
    # A failing script: error code 100 with its stderr.
    idfail, pfail = v2_plan("2.0.0", "#!/bin/sh\necho 'no space' >&2\nexit 3\n")
    t0 = time.time()
    publish(conn, p20, id20)
    publish(conn, p21, id21)
    publish(conn, p1, id1)
    publish(conn, pbad, idbad, key=other)
    publish(conn, pold, idold)
    publish(conn, pfail, idfail)
    got = results(conn, {id20, id21, id1, idfail}, 60)
    print("results of 4 plans in %.2f s" % (time.time() - t0))
    for pid, name in ((id20, "format 2.0.0"), (id21, "format 2.1.0")):
        r = got.get(pid, {})
        check(name + " plan answered", r.get("ErrorCode") == 0 and r.get("Body") == "hello from murano to engine", r)
        check(name + " result format", r.get("FormatVersion") == "2.0.0" and r.get("Action") == "Execution:Result" and "Time" in r and r.get("ID") not in (None, pid), r)
    r = got.get(id1, {})
    check("format 1.0.0 plan answered under the message id", r.get("ErrorCode") == 0 and r.get("Body") == "format one", r)
    r = got.get(idfail, {})
    info = (r.get("Body") or {}).get("AdditionalInfo") or {}
    check("failing script reported", r.get("ErrorCode") == 100 and info.get("exitCode") == 3 and "no space" in (info.get("stderr") or ""), r)
    check("plan signed with another key dropped", idbad not in got, got.get(idbad))
    check("plan with an old stamp dropped", idold not in got, got.get(idold))


main()
