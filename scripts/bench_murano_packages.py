#!/usr/bin/env python3
"""Time `vetro murano model` and the cost of `--packages` on real packages.

For every murano-apps package with a UI/ui.yaml whose model builds (answers
made as scripts/murano_models.py makes them): the median CPU time (user and
system, process start included; on a shared machine wall time mostly
measures the other work) of `vetro murano model`, and of `vetro run --packages
ROOT` (the catalog indexed from the whole folder) against `vetro run` given
by hand the folders that the catalog chose, the runs interleaved. Prints one
line per package and the largest figures.

usage: bench_murano_packages.py VETRO PACKAGES_ROOT [--rounds N]
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import murano_models as mm  # noqa: E402


def timed(cmd):
    """(CPU seconds, user and system, of the process; its output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def taken_from_catalog(run_output):
    """The folders `vetro run --packages` says it took from the catalog."""
    return re.findall(r"^vetro run: from the catalog: \S+ \S+ \((.*)\)$", run_output, re.M)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vetro")
    ap.add_argument("root")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    here, overrides, apps, catalog = mm.setup(a.root)
    packages = sorted(set(os.path.dirname(os.path.dirname(os.path.join(d, f)))
                          for d, _, fs in os.walk(apps) for f in fs if f == "ui.yaml"))
    worst_model = (0.0, "")
    worst_extra = (-1.0, "")
    with tempfile.TemporaryDirectory() as tmp:
        for pkg in packages:
            label = os.path.relpath(pkg, apps)
            name = next((n for n, vs in catalog.items() if any(v[1] == pkg for v in vs)), label)
            try:
                answers = mm.answers_for(a.vetro, catalog, pkg, name, overrides)
            except (RuntimeError, subprocess.TimeoutExpired):
                continue
            ans = os.path.join(tmp, "answers.json")
            with open(ans, "w") as f:
                json.dump(answers, f)
            model_cmd = [a.vetro, "murano", "model", pkg, "--packages", apps, "--answers", ans]
            _, out = timed(model_cmd)
            if out.returncode != 0:
                continue
            model = os.path.join(tmp, "model.json")
            with open(model, "w") as f:
                f.write(out.stdout)
            results = os.path.join(here, "murano_models", "agent_results", name + ".yaml")
            extra = ["--agent-results", results] if os.path.exists(results) else []
            with_catalog = [a.vetro, "run", pkg, "--packages", a.root, "--model", model, *extra]
            _, first = timed(with_catalog)
            by_hand = [a.vetro, "run", pkg, *taken_from_catalog(first.stdout), "--model", model, *extra]
            if first.returncode != 0 or timed(by_hand)[1].returncode != 0:
                print(f"{label}: does not deploy, run times skipped")
                continue
            models, hands, cats = [], [], []
            for _ in range(a.rounds):
                models.append(timed(model_cmd)[0])
                hands.append(timed(by_hand)[0])
                cats.append(timed(with_catalog)[0])
            m, h, c = (statistics.median(x) * 1000 for x in (models, hands, cats))
            print(f"{label}: model {m:.1f} ms; run by hand {h:.1f} ms, with --packages {c:.1f} ms ({c - h:+.1f} ms)")
            worst_model = max(worst_model, (m, label))
            worst_extra = max(worst_extra, (c - h, label))
    print(f"slowest model: {worst_model[0]:.1f} ms ({worst_model[1]}); "
          f"largest cost of --packages: {worst_extra[0]:+.1f} ms ({worst_extra[1]}); "
          f"medians of {a.rounds}, CPU time, process start included")
    return 0


if __name__ == "__main__":
    sys.exit(main())
