#!/usr/bin/env python3
"""vetro's YAQL against jaq (a fast jq in Rust) on equivalent queries over
the same data, side by side in one run.

    cargo build --release -p vetro-cli
    cargo install jaq --locked --root /tmp/jaq        # or any jaq 3.x on PATH
    crates/vetro-yaql/bench/vs_jaq.py --jaq /tmp/jaq/bin/jaq [--records 200000] [--repeat 3]
        [--before OTHER_VETRO_BINARY]

Each query runs as a whole process (start-up, reading and parsing the
JSON file, evaluation, writing the result) for both tools, alternating,
`--repeat` times; the answers are compared. Times are medians of the runs
with their spread (fastest-slowest) beside; the ratio is of the medians.
CPU time is user + system time; peak memory is the largest maximum
resident set of the runs in MB (10^6 bytes), next to the JSON file's size
printed first. The data is
generated into a temporary folder, deleted after. `--before` runs another
vetro binary (an earlier build) in the same rotation and adds its columns.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

# name, YAQL expression, jq program, whether it reads the records file
QUERIES = [
    ("range where/select len (1M)",
     "range(1000000).where($ mod 7 = 0).select($ * 2).len()",
     "[range(1000000) | select(. % 7 == 0) | . * 2] | length", False),
    ("load only: len",
     "$.len()",
     "length", True),
    ("where/select",
     "$.where($.age > 30 and $.city = 'c7').select($.name)",
     "map(select(.age > 30 and .city == \"c7\") | .name)", True),
    ("orderBy.thenBy (first 10 ids)",
     "$.orderBy($.age).thenBy($.name).select($.id).take(10)",
     "sort_by(.age, .name) | map(.id) | .[:10]", True),
    ("groupBy with sum",
     "$.groupBy($.city, $.score, [$[0], $[1].sum()]).len()",
     "group_by(.city) | map([.[0].city, (map(.score) | add)]) | length", True),
    ("select tags.len sum",
     "$.select($.tags.len()).sum()",
     "map(.tags | length) | add", True),
    ("startsWith filter count",
     "$.where($.name.startsWith('n1')).len()",
     "map(select(.name | startswith(\"n1\"))) | length", True),
    ("max of computed",
     "$.select($.score * 2).max()",
     "map(.score * 2) | max", True),
    ("distinct cities",
     "$.select($.city).distinct().len()",
     "map(.city) | unique | length", True),
    ("sum of nested field",
     "$.select($.address.zip).sum()",
     "map(.address.zip) | add", True),
]


def make_records(n, path):
    rnd = random.Random(7)
    recs = [
        {
            "id": i,
            "name": f"n{i}",
            "age": rnd.randrange(90),
            "city": f"c{rnd.randrange(50)}",
            "score": rnd.randrange(100000) / 100,
            "tags": [f"t{j}" for j in range(rnd.randrange(5))],
            "address": {"street": f"s{i % 977}", "zip": rnd.randrange(10000, 99999)},
        }
        for i in range(n)
    ]
    with open(path, "w") as f:
        json.dump(recs, f)


def run(argv):
    """Wall time, CPU time, peak RSS (KiB) and stdout of one process. The
    peak is measured by `/usr/bin/time`, a small process of its own: a
    child forked from this one would count this one's memory as its own."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile() as rss:
        t = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name] + argv,
                             stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"failed: {argv}\n{err.read().decode()[:2000]}")
        peak = int(open(rss.name).read().split()[-1])
        return wall, usage.ru_utime + usage.ru_stime, peak, out.read()


def summary(runs):
    """Median wall and CPU time with their spreads, and the largest peak."""
    walls = sorted(r[0] for r in runs)
    cpus = sorted(r[1] for r in runs)
    spread = lambda xs: f"{xs[0]:.3f}-{xs[-1]:.3f}"
    return (statistics.median(walls), spread(walls), statistics.median(cpus), spread(cpus),
            max(r[2] for r in runs))


def same(a, b):
    try:
        return json.loads(a) == json.loads(b)
    except ValueError:
        return a.strip() == b.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vetro", default=os.path.join(ROOT, "target/release/vetro"))
    ap.add_argument("--jaq", default=shutil.which("jaq") or "jaq")
    ap.add_argument("--before", help="an earlier vetro binary to run beside it")
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--filter", default="", help="only the queries whose name contains this")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="vetro-vs-jaq-")
    try:
        data = os.path.join(tmp, "records.json")
        make_records(args.records, data)
        size = os.path.getsize(data)
        print(f"data: {args.records} records, {size / 1e6:.1f} MB of JSON; median of {args.repeat}, alternating")
        print(f"load average at start: {os.getloadavg()[0]:.1f}")
        print()
        cols = ["vetro s", "jaq s", "jaq/vetro", "vetro CPU s", "jaq CPU s", "jaq/vetro CPU", "vetro MB", "jaq MB"]
        if args.before:
            cols = ["before s"] + cols[:3] + ["before CPU s"] + cols[3:6] + ["before MB"] + cols[6:]
        print("| query | " + " | ".join(cols) + " |")
        print("|---|" + "---:|" * len(cols))
        tools = [("v", args.vetro), ("j", None)] + ([("b", args.before)] if args.before else [])
        for name, yaql, jq, reads in QUERIES:
            if args.filter not in name:
                continue
            cmds = {}
            for key, binary in tools:
                if key == "j":
                    cmd = [args.jaq, "-c", jq] + ([data] if reads else [])
                    if not reads:
                        cmd.insert(1, "-n")
                else:
                    cmd = [binary, "yaql", "--timeout", "0", "--max-memory", "0", yaql]
                    cmd += ["--data", data] if reads else []
                cmds[key] = cmd
            runs = {key: [] for key in cmds}
            outs = {}
            for _ in range(args.repeat):
                for key, cmd in cmds.items():
                    r = run(cmd)
                    outs[key] = r[3]
                    runs[key].append(r)
            ok = "" if all(same(outs["v"], o) for o in outs.values()) else " (answers differ!)"
            med = {key: summary(rs) for key, rs in runs.items()}
            (vw, vws, vc, vcs, vm), (jw, jws, jc, jcs, jm) = med["v"], med["j"]
            mb = lambda kib: f"{kib * 1024 / 1e6:.0f}"
            cells = [f"{vw:.3f} ({vws})", f"{jw:.3f} ({jws})", f"{jw / vw:.2f}x",
                     f"{vc:.3f} ({vcs})", f"{jc:.3f} ({jcs})", f"{jc / vc:.2f}x", mb(vm), mb(jm)]
            if args.before:
                bw, bws, bc, bcs, bm = med["b"]
                cells = [f"{bw:.3f} ({bws})"] + cells[:3] + [f"{bc:.3f} ({bcs})"] + cells[3:6] + [mb(bm)] + cells[6:]
            print(f"| {name}{ok} | " + " | ".join(cells) + " |")
        print()
        print(f"load average at end: {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
