#!/usr/bin/env python3
"""Time the drop-in against the reference `yaql` package in one run.

    python bench.py --vetro-python VENV1/bin/python --reference-python VENV2/bin/python

Each interpreter must import `yaql` (the drop-in in one venv, `yaql==3.2.0`
in the other). The script runs itself in both (`--measure`), then prints a
Markdown table of times and ratios. Phases: engine creation, context
creation, parsing (distinct texts, and the same text again), parsing and
evaluating distinct texts, and `evaluate` including the conversion of Python
data in and out, over 10k-item data.

The fast phases (everything but the evaluations over generated data) take
the best of N runs, as `timeit` does: a run of a few milliseconds on a
loaded machine is often preempted, and the median then measures the
scheduler. The evaluations take the median, of wall time and of CPU time.

`--rounds N` runs the two packages alternately N times and reports the
median over the rounds with the lowest and highest ratio of one round;
`--only where/select,identity` runs only those evaluations.

Then the drop-in alone: four threads on one engine against one thread
(`--threads N` for another number), with the share of each call's CPU time
spent with the GIL held. `--threads-only` runs only that (a few seconds, no
reference needed: `python bench.py --threads-only` in the drop-in's venv);
`--no-threads` leaves it out.
"""

import argparse
import json
import random
import statistics
import subprocess
import sys
import time

TEMPLATES = [
    "$.a + {i}", "[{i}, {i} + 1, $.b].select($ * 2).sum()",
    "$.s + '-{i}'", "{{k{i} => {i}, b => $.b}}.k{i}",
    "range({m}).where($ mod 3 = {j}).len()",
    "$.items.where($.v > {m}).select($.n)",
    "let(x => {i}) -> $x * $.a - {j}",
    "switch($.a > {i} => 'hi', true => 'lo{j}')",
    "'{i}'.len() + len($.items) + {j}",
    "$.items.orderBy(-$.v).first().v + {i}",
]


def records(n, seed=7):
    r = random.Random(seed)
    return [{"k": "key%06d" % i, "v": r.randint(0, 100),
             "g": "g%02d" % r.randint(0, 99),
             "f": round(r.random() * 1000, 3),
             "name": r.choice(["alpha", "beta", "gamma", "delta"]) + str(i),
             "tags": r.sample(["a", "b", "c", "d", "e"], 2)}
            for i in range(n)]


# (name, expression, share of --items): the reference needs minutes for the
# string and sorting workloads at 10k items, so those run on a tenth of it.
EVAL_WORKLOADS = [
    ("where/select", "$.where($.v > 50 and $.g != 'g07').select($.k)", 1),
    ("identity (conversion in and out)", "$", 1),
    ("strings", "$.select($.name.toUpper() + '-' + str($.v) + '/' + "
                "$.tags.join(',')).where($.startsWith('A')).len()", 0.1),
    ("orderBy/take", "$.orderBy($.v).thenByDescending($.k).take(20)"
                     ".select($.k)", 0.1),
    ("groupBy/sum", "$.groupBy($.g, $.v, [$[0], $[1].sum()]).orderBy($[0])",
     0.1),
]


def timed_cpu(fn, repeat):
    """Median wall time and median CPU time (this process) of `fn`."""
    walls, cpus = [], []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus)


def evaluations(out, engine, items, repeat, only=None):
    """The evaluations over generated records (those whose names start
    with one of `only`, when given): wall time, and CPU time as `cpu ...`."""
    import yaql
    context = yaql.create_context()
    for name, expr, share in EVAL_WORKLOADS:
        if only and not any(name.startswith(o) for o in only):
            continue
        n = int(items * share)
        data = records(n)
        stmt = engine(expr)
        key = f"evaluate {name}, {n} items"
        out[key], out["cpu " + key] = timed_cpu(
            lambda: stmt.evaluate(data=data, context=context), repeat)


def timed(fn, repeat, pick=statistics.median):
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return pick(samples)


def measure(repeat, items):
    import yaql
    from yaql.language import factory

    out = {"version": getattr(yaql, "__version__", "?")}
    eval_repeat = repeat
    repeat = max(repeat, 5)  # the fast phases are cheap to repeat
    out["engine creation"] = timed(lambda: factory.YaqlFactory().create(),
                                   repeat, min)
    out["engine creation + first parse"] = timed(
        lambda: factory.YaqlFactory().create()("$.a"), repeat, min)
    # The drop-in builds its Rust engine on the first evaluation (one engine
    # for every thread).
    out["engine creation + first evaluate"] = timed(
        lambda: factory.YaqlFactory().create()("$.a").evaluate(
            data={"a": 1}, context=yaql.create_context()), repeat, min)
    out["create_context()"] = timed(yaql.create_context, repeat, min)

    texts = [TEMPLATES[i % len(TEMPLATES)].format(i=i, j=i % 3, m=i % 10)
             for i in range(2000)]

    def parse_distinct():
        engine = factory.YaqlFactory().create()
        engine("$")  # the engine's first use is not a parse
        t0 = time.perf_counter()
        for t in texts:
            engine(t)
        return (time.perf_counter() - t0) / len(texts)
    out["parse (distinct texts), per expression"] = min(
        parse_distinct() for _ in range(repeat))

    small = {"a": 3, "b": 4, "s": "x",
             "items": [{"v": v, "n": "n%d" % v} for v in range(5)]}

    def parse_and_evaluate_distinct():
        engine = factory.YaqlFactory().create()
        context = yaql.create_context()
        engine("$").evaluate(data=small, context=context)
        t0 = time.perf_counter()
        for t in texts:
            engine(t).evaluate(data=small, context=context)
        return (time.perf_counter() - t0) / len(texts)
    out["parse + evaluate (distinct texts), per expression"] = min(
        parse_and_evaluate_distinct() for _ in range(repeat))

    engine = factory.YaqlFactory().create()
    hot = "$.items.where($.v > 3).select($.n).first()"
    # Embedders parse the text before each evaluation: it has been
    # evaluated before.
    engine(hot).evaluate(data={"items": [{"v": 4, "n": 1}]},
                         context=yaql.create_context())

    def parse_again():
        for _ in range(1000):
            engine(hot)
    out["parse (same text again), per expression"] = timed(
        parse_again, repeat, min) / 1000

    evaluations(out, engine, items, eval_repeat)
    return out


def threads(out, engine, items, repeat, n_threads=4, streams=(1, 8)):
    """Two workloads on one engine and statement: where/select over the
    records, and a computation on no data (`items` * 10 numbers). For each
    length `k` of `streams`: `n_threads` * `k` calls one after the other in
    one thread, then `k` calls in a row by each of a pool of `n_threads`
    threads at once (k = 1: a burst of calls that start together, k > 1: a
    stream per thread, as a server's threads serve requests). The one-thread
    and the many-thread runs alternate, `repeat` of each; per workload and
    length: the wall time of each pair, the process's CPU time over the wall
    time of the many-thread runs (above 1 only when threads ran at once),
    and, for the drop-in, the share of a call's CPU time spent with the GIL
    held."""
    from concurrent.futures import ThreadPoolExecutor
    import yaql
    name, expr, _ = EVAL_WORKLOADS[0]
    context = yaql.create_context()
    workloads = [
        (f"{name}, {items} items", engine(expr), records(items)),
        (f"range({items * 10}) where/select len, no data",
         engine(f"range({items * 10}).where($ mod 7 = 0).select($ * 2).len()"),
         None),
    ]
    # The threads are kept from run to run, as a server's are: a thread's
    # first calls also pay for the memory its allocator takes.
    pool = ThreadPoolExecutor(max_workers=n_threads)
    for label, stmt, data in workloads:
        def calls(k, stmt=stmt, data=data):
            for _ in range(k):
                stmt.evaluate(data=data, context=context)

        def parallel(k):
            for f in [pool.submit(calls, k) for _ in range(n_threads)]:
                f.result()
        calls(1)  # the engine and the statement's tree built
        parallel(1)  # the pool's threads started, their memory taken
        out[f"held {label}"] = held_share(lambda: calls(1), repeat)
        for k in streams:
            walls = {"one": [], "many": []}
            cpu = {"one": 0.0, "many": 0.0}
            for _ in range(repeat):
                for kind, fn in (("one", lambda: calls(n_threads * k)),
                                 ("many", lambda: parallel(k))):
                    c0, t0 = time.process_time(), time.perf_counter()
                    fn()
                    walls[kind].append(time.perf_counter() - t0)
                    cpu[kind] += time.process_time() - c0
            per = "1 call per thread" if k == 1 else f"{k} calls per thread"
            out[f"threads {label}; {per}"] = dict(
                walls, label=label,
                **{f"cpu/wall {x}": cpu[x] / sum(walls[x]) for x in cpu},
                **{f"cpu/call {x}": cpu[x] / (repeat * n_threads * k)
                   for x in cpu})
    pool.shutdown()


def held_share(one, repeat):
    """The share of a call's CPU time with the GIL held, from the drop-in's
    own accounting (`_vetro_yaql.phase_times`) over `repeat` calls in this
    thread; None for the reference, which never releases it."""
    try:
        from yaql._vetro_yaql import phase_times
    except ImportError:
        return None
    phase_times(True)
    c0 = time.thread_time()
    for _ in range(repeat):
        one()
    total = time.thread_time() - c0
    calls, held_in, released, held_out = phase_times(False)
    return {"call": total / repeat, "in": held_in / calls / 1e9,
            "released": released / calls / 1e9,
            "out": held_out / calls / 1e9,
            "held": 1 - released / 1e9 / total}


def threads_only(repeat, items, n_threads, streams):
    import yaql
    from yaql.language import factory
    out = {"version": getattr(yaql, "__version__", "?")}
    threads(out, factory.YaqlFactory().create(), items, repeat, n_threads,
            streams)
    return out


def threads_report(res, n_threads):
    """The drop-in's threads against its one thread (the reference is not
    needed: the ratio compares the drop-in with itself)."""
    import os
    cores = len(os.sched_getaffinity(0))
    print(f"{n_threads} threads against one on one engine (drop-in "
          f"{res['version']}), {cores} cores, load average "
          f"{'/'.join(f'{x:.1f}' for x in os.getloadavg())} at the end\n")
    print(f"| workload; calls per thread | one thread, all calls | {n_threads} threads "
          "| speed-up | pairs | CPU/wall, one / many | CPU per call, one / "
          "many | GIL held | ceiling |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key, t in res.items():
        if not key.startswith("threads "):
            continue
        label = key.removeprefix("threads ")
        ratios = [a / b for a, b in zip(t["one"], t["many"])]
        h = res[f"held {t['label']}"]
        ceiling = min(cores, n_threads, 1 / max(h["held"], 1e-9))
        print(f"| {label} | {fmt(statistics.median(t['one']))} | "
              f"{fmt(statistics.median(t['many']))} | "
              f"{statistics.median(ratios):.2f}x | {min(ratios):.2f}x to "
              f"{max(ratios):.2f}x | {t['cpu/wall one']:.2f} / "
              f"{t['cpu/wall many']:.2f} | {fmt(t['cpu/call one'])} / "
              f"{fmt(t['cpu/call many'])} | "
              f"{h['held']:.0%} | {ceiling:.2f}x |")
    print("\nPer call, CPU time of the calling thread: GIL held converting "
          "in / released / held converting out, and the whole call")
    for key, h in res.items():
        if key.startswith("held "):
            print(f"* {key.removeprefix('held ')}: {fmt(h['in'])} / "
                  f"{fmt(h['released'])} / {fmt(h['out'])}, "
                  f"{fmt(h['call'])}")


def evaluations_only(repeat, items, only):
    import yaql
    from yaql.language import factory
    out = {"version": getattr(yaql, "__version__", "?")}
    evaluations(out, factory.YaqlFactory().create(), items, repeat, only)
    return out


def report(vs, rs, rounds, repeat):
    """The table: per phase the median over the rounds of each side's time,
    the ratio of those, the lowest and highest ratio of one round, and the
    ratio of CPU times where measured."""
    v0, r0 = vs[0], rs[0]
    print(f"drop-in yaql {v0['version']} vs reference yaql "
          f"{r0['version']}; {rounds} round(s), the two alternating; in each, "
          f"best of {max(repeat, 5)} runs (evaluate over generated data: "
          f"median of {repeat})\n")
    print("| phase | reference | drop-in | speed-up | rounds | speed-up, CPU time |")
    print("|---|---:|---:|---:|---:|---:|")

    def med(results, key):
        return statistics.median(x[key] for x in results)
    for key in v0:
        if key == "version" or key.startswith(("cpu/wall ", "cpu ")):
            continue
        v, r = med(vs, key), med(rs, key)
        per_round = [b[key] / a[key] for a, b in zip(vs, rs)]
        spread = (f"{min(per_round):,.0f}x to {max(per_round):,.0f}x"
                  if rounds > 1 else "")
        cpu = ""
        if "cpu " + key in v0:
            cpu = f"{med(rs, 'cpu ' + key) / med(vs, 'cpu ' + key):,.0f}x"
        print(f"| {key} | {fmt(r)} | {fmt(v)} | {r / v:,.0f}x | {spread} | {cpu} |")


def fmt(seconds):
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e9:.0f} ns"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--vetro-python", default=sys.executable)
    ap.add_argument("--reference-python")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--measure", action="store_true",
                    help="time the `yaql` this interpreter imports; print JSON")
    ap.add_argument("--threads-only", action="store_true",
                    help="only the drop-in's threads against its one thread "
                         "(no reference needed)")
    ap.add_argument("--no-threads", action="store_true",
                    help="skip the threads against one thread")
    ap.add_argument("--threads", type=int, default=4,
                    help="threads to compare with one (default 4)")
    ap.add_argument("--streams", metavar="K,...", default="1,8",
                    type=lambda v: [int(x) for x in v.split(",")],
                    help="calls each thread makes in a row, one measure per "
                         "length (default 1,8: a burst of calls that start "
                         "together, and streams of 8)")
    ap.add_argument("--only", metavar="NAME,...",
                    help="only the evaluations over generated records whose "
                         "names start so (e.g. where/select,identity)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run the two packages alternately this many times")
    a = ap.parse_args()
    only = a.only.split(",") if a.only else None
    if a.measure:
        if a.threads_only:
            out = threads_only(a.repeat, a.items, a.threads, a.streams)
        elif only:
            out = evaluations_only(a.repeat, a.items, only)
        else:
            out = measure(a.repeat, a.items)
        print(json.dumps(out))
        return
    if not a.threads_only:
        if not a.reference_python:
            ap.error("--reference-python is required (or --threads-only)")
        compare(a)
    if not a.no_threads:
        # Three calls at least per measure, to have a median.
        args = ["--measure", "--threads-only", "--repeat",
                str(max(a.repeat, 3)), "--items", str(a.items),
                "--threads", str(a.threads),
                "--streams", ",".join(map(str, a.streams))]
        print()
        threads_report(run(a.vetro_python, args), a.threads)


def run(python, args):
    proc = subprocess.run([python, __file__] + args, check=True,
                          capture_output=True, text=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compare(a):
    """The drop-in against the reference, `a.rounds` rounds alternating."""
    args = ["--measure", "--repeat", str(a.repeat), "--items", str(a.items)]
    args += ["--only", a.only] if a.only else []
    results = {"vetro": [], "reference": []}
    for _ in range(a.rounds):
        for label, py in (("vetro", a.vetro_python),
                          ("reference", a.reference_python)):
            results[label].append(run(py, args))
    report(results["vetro"], results["reference"], a.rounds, a.repeat)


if __name__ == "__main__":
    sys.exit(main())
