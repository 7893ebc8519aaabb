#!/usr/bin/env python3
"""The engine's overhead per Heat push, against a real Heat.

Runs the `heat_push` example (release build) and reads Heat's own record of
each operation from Heat's database: the stack's `<ACTION> IN_PROGRESS` and
`<ACTION> COMPLETE` events, stored with microseconds (the API shows whole
seconds only). For each push it prints:

  wall     the engine's push_stack call, start to return
  heat     Heat's own time: IN_PROGRESS to COMPLETE as Heat recorded them
  overhead wall - heat: the requests before Heat starts (find, create or
           update), the wait between COMPLETE and the engine's look that
           saw it, that look's answer, and the engine's own work
  before   push started -> Heat's IN_PROGRESS: the engine's find and create or
           update requests and Heat's API work on them (template checks, the
           stack stored, a Keystone trust made), before Heat's own time starts
  after    Heat's COMPLETE -> push returned: notice + that look's answer
  notice   COMPLETE recorded -> the look that confirmed it sent
  wake     COMPLETE recorded -> Heat's notification received (notified
           mode; negative: Heat sends it just before it records the event)
  cpu      CPU time of the engine's process during the push (every thread)
  looks    looks at the stack while Heat worked

With Heat's notifications (VETRO_HEAT_NOTIFICATIONS or
VETRO_TEST_HEAT_NOTIFICATIONS: the broker Heat's [oslo_messaging_notifications]
publishes to), every round pushes in both modes side by side, `polling` and
`notified`, and the summary gives each mode's median and 90th percentile.

usage: heat_push.py [ROUNDS] [--heat-db URL] [--input FILE]
(--input: the example's output saved earlier, instead of running it)
The cloud: VETRO_TEST_CLOUDS_YAML (cloud `vetro-test`) or OS_CLOUD / OS_*.
Heat's database: --heat-db, VETRO_BENCH_HEAT_DB, else the `[database]
connection` of $VETRO_OS_DIR/heat/heat.conf (as .ci/setup.d/05-openstack.sh
starts Heat). Skips with a message when Heat or its database is not there.
"""
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
from datetime import datetime, timezone


def heat_db(argv):
    if "--heat-db" in argv:
        return argv[argv.index("--heat-db") + 1]
    if os.environ.get("VETRO_BENCH_HEAT_DB"):
        return os.environ["VETRO_BENCH_HEAT_DB"]
    conf = os.path.join(os.environ.get("VETRO_OS_DIR", "/tmp/vetro-ci-openstack"), "heat", "heat.conf")
    if os.path.exists(conf):
        m = re.search(r"^connection\s*=\s*(\S+)", open(conf).read(), re.M)
        if m:
            return m.group(1).replace("+psycopg2", "")
    return None


def events(db, stack, action):
    """(IN_PROGRESS, COMPLETE) of the stack's last `action`, Unix microseconds."""
    sql = ("SELECT e.resource_status, e.created_at FROM event e JOIN stack s ON s.id = e.stack_id "
           "WHERE s.name = '%s' AND e.resource_name = s.name AND e.resource_action = '%s' "
           "ORDER BY e.id" % (stack, action))
    if db.startswith("sqlite:"):
        rows = sqlite3.connect(db.split("sqlite:///", 1)[1]).execute(sql).fetchall()
    else:
        out = subprocess.run(["psql", db, "-At", "-F", "|", "-c", sql], check=True,
                             capture_output=True, text=True).stdout
        rows = [line.split("|") for line in out.splitlines() if line]
    times = {}
    for status, at in rows:
        t = datetime.fromisoformat(str(at)).replace(tzinfo=timezone.utc).timestamp()
        times[status] = int(round(t * 1e6))
    return times.get("IN_PROGRESS"), times.get("COMPLETE")


def main():
    argv = sys.argv[1:]
    rounds = next((a for a in argv if a.isdigit()), "5")
    db = heat_db(argv)
    if not (os.environ.get("VETRO_TEST_CLOUDS_YAML") or os.environ.get("OS_CLOUD") or os.environ.get("OS_AUTH_URL")):
        print("skipped: no cloud (VETRO_TEST_CLOUDS_YAML, OS_CLOUD or OS_AUTH_URL)")
        return
    if not db:
        print("skipped: Heat's database is unknown (--heat-db or VETRO_BENCH_HEAT_DB)")
        return
    if "--input" in argv:
        output = open(argv[argv.index("--input") + 1]).read()
    else:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        run = subprocess.run(["cargo", "run", "-q", "--release", "-p", "vetro-openstack",
                              "--example", "heat_push", "--", rounds],
                             cwd=root, capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stderr[-2000:])
            sys.exit(run.returncode)
        output = run.stdout
    rows = []
    print("%-9s %-7s %8s %8s %8s %8s %8s %8s %8s %7s %5s" % (
        "mode", "push", "wall", "heat", "overhead", "before", "after", "notice", "wake",
        "cpu", "looks"))
    for line in output.splitlines():
        p = json.loads(line)
        if p.get("mode") == "warmup":
            continue
        begun, done = events(db, p["stack"], p["action"])
        if begun is None or done is None:
            print("no events of %s %s in Heat's database" % (p["stack"], p["action"]))
            continue
        woken = p.get("woken_us", 0)
        r = {"mode": p.get("mode", "polling"), "wall": (p["end_us"] - p["start_us"]) / 1e3,
             "heat": (done - begun) / 1e3, "notice": (p["last_look_us"] - done) / 1e3,
             "wake": (woken - done) / 1e3 if woken else None,
             "cpu": p["cpu_us"] / 1e3, "looks": p["looks"]}
        r["overhead"] = r["wall"] - r["heat"]
        r["before"] = (begun - p["start_us"]) / 1e3
        r["after"] = (p["end_us"] - done) / 1e3
        rows.append(r)
        print("%-9s %-7s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8s %7.2f %5d" % (
            r["mode"], p["action"].lower(), r["wall"], r["heat"], r["overhead"], r["before"],
            r["after"], r["notice"], "-" if r["wake"] is None else "%.1f" % r["wake"],
            r["cpu"], r["looks"]))
    for mode in sorted({r["mode"] for r in rows}):
        of_mode = [r for r in rows if r["mode"] == mode]
        print("%s (%d pushes), ms:" % (mode, len(of_mode)))
        for key in ("wall", "heat", "overhead", "before", "after", "notice", "wake", "cpu", "looks"):
            values = sorted(r[key] for r in of_mode if r[key] is not None)
            if values:
                p90 = statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]
                print("  %-8s median %8.1f  p90 %8.1f  min %8.1f  max %8.1f" % (
                    key, statistics.median(values), p90, values[0], values[-1]))

main()
