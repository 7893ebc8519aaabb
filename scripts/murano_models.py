#!/usr/bin/env python3
"""Model and deploy every murano-apps package that has a UI/ui.yaml.

For each package: list its forms (`vetro murano model --show-forms`), answer
every required field that has no initial value (the first image offered, a
password and a name that pass the field's regular expressions, a new
application of the field's class for application fields, recursively), merge
the answers of scripts/murano_models/answers.yaml for that package's FullName
(what a person would choose where any valid value is not enough), build the
model with `vetro murano model`, then deploy it with `vetro run` on the
simulator, whose agents answer from scripts/murano_models/agent_results/
FULLNAME.yaml where the package reads what its scripts print
(`--agent-results`). Prints one line per package and the counts.

usage: murano_models.py VETRO PACKAGES_ROOT [--min-deployed N] [--timeout S]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import yaml

PASSWORDS = ["Vetro-pass1", "VetroPass123", "vetro_pass_1", "Vetro1"]
NAMES = ["vetro", "vetro1", "vetro-app", "admin", "example.org"]


def manifests(root):
    """FullName -> (version, folder, classes) for every package folder under root."""
    found = {}
    for folder, dirs, files in os.walk(root):
        if "manifest.yaml" not in files:
            continue
        dirs[:] = []
        try:
            with open(os.path.join(folder, "manifest.yaml")) as f:
                m = yaml.safe_load(f) or {}
        except (OSError, yaml.YAMLError):
            continue
        name = m.get("FullName")
        if name:
            found.setdefault(name, []).append(
                (str(m.get("Version", "0.0.0")), folder, list((m.get("Classes") or {}).keys()), m.get("Require") or {}))
    return found


def version_key(v):
    return tuple(int(x) if x.isdigit() else 0 for x in str(v).split("."))


def package_of(catalog, cls):
    """The highest version of a package named cls or listing it."""
    found = [(version_key(v[0]), v[1]) for name, vs in catalog.items() for v in vs
             if name == cls or cls in v[2]]
    return max(found)[1] if found else None


def pick(field):
    regexps = [r["pattern"] for r in field.get("regexps", [])]
    ok = lambda v: all(re.search(p, v) for p in regexps)
    kind = field["kind"]
    choices = [c["value"] for c in field.get("choices") or [] if c["enabled"] and c["value"] not in ("", None)]
    if kind == "password":
        return next((p for p in PASSWORDS if ok(p)), PASSWORDS[0])
    if kind in ("string", "text"):
        return next((n for n in NAMES if ok(n) and len(n) >= (field.get("min_length") or 0)), NAMES[0])
    if kind == "integer":
        return field.get("min_value") or 1
    if kind == "clusterip":
        return "10.0.0.10"
    if kind == "databaselist":
        return "vetro"
    if choices:
        return choices[0]
    return None


def forms(vetro, pkg):
    out = subprocess.run([vetro, "murano", "model", "--show-forms", pkg], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)


def merge(base, extra):
    for k, v in (extra or {}).items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            merge(base[k], v)
        else:
            base[k] = v
    return base


def answers_for(vetro, catalog, pkg, fullname, overrides, depth=0):
    answers = {}
    for form in forms(vetro, pkg):
        for f in form["fields"]:
            empty = f["initial"] in (None, "", [])
            if not (f["required"] and empty):
                continue
            if f["kind"] == "app" and depth < 3:
                cls = f["app_types"][0]
                sub = package_of(catalog, cls)
                if sub is None:
                    continue
                sub_name = next(n for n, vs in catalog.items() if any(v[1] == sub for v in vs))
                value = {"new": cls, "answers": answers_for(vetro, catalog, sub, sub_name, overrides, depth + 1)}
            else:
                value = pick(f)
            if value is not None:
                answers.setdefault(form["name"], {})[f["name"]] = value
    return merge(answers, overrides.get(fullname))


def closure(catalog, pkg_folder):
    """The package folders a deployment of pkg_folder needs (Require, by FullName)."""
    by_folder = {v[1]: (n, v) for n, vs in catalog.items() for v in vs}
    todo, seen = [pkg_folder], []
    while todo:
        folder = todo.pop()
        if folder in seen or folder not in by_folder:
            continue
        seen.append(folder)
        for req in by_folder[folder][1][3]:
            if req == "io.murano":
                continue  # the core library is bundled with vetro
            versions = sorted(catalog.get(req, []), key=lambda v: version_key(v[0]))
            if versions:
                todo.append(versions[-1][1])
    return seen


def setup(root):
    """This folder, the answers of answers.yaml, murano-apps and the catalog."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "murano_models", "answers.yaml")) as f:
        overrides = yaml.safe_load(f) or {}
    return here, overrides, os.path.join(root, "murano-apps"), manifests(root)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vetro")
    ap.add_argument("root")
    ap.add_argument("--min-deployed", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=120)
    a = ap.parse_args()
    here, overrides, apps, catalog = setup(a.root)
    run_help = subprocess.run([a.vetro, "run", "--help"], capture_output=True, text=True).stdout
    catalog_run = "--packages" in run_help
    modeled = deployed = 0
    slowest = 0.0
    failures = []
    packages = sorted(set(os.path.dirname(os.path.dirname(p)) for p in
                          (os.path.join(d, f) for d, _, fs in os.walk(apps) for f in fs if f == "ui.yaml")))
    with tempfile.TemporaryDirectory() as tmp:
        for pkg in packages:
            label = os.path.relpath(pkg, apps)
            name = next((n for n, vs in catalog.items() if any(v[1] == pkg for v in vs)), label)
            try:
                answers = answers_for(a.vetro, catalog, pkg, name, overrides)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                failures.append(f"{label}: forms: {str(e).splitlines()[0] if str(e) else e}")
                print(f"FORMS   {label}: {e}")
                continue
            ans = os.path.join(tmp, "answers.json")
            model = os.path.join(tmp, "model.json")
            with open(ans, "w") as f:
                json.dump(answers, f)
            t = time.monotonic()
            out = subprocess.run([a.vetro, "murano", "model", pkg, "--packages", apps, "--answers", ans],
                                 capture_output=True, text=True, timeout=60)
            slowest = max(slowest, time.monotonic() - t)
            if out.returncode != 0:
                msg = [l for l in out.stderr.splitlines() if not l.startswith(("warning", " ", "  "))]
                failures.append(f"{label}: model: {' / '.join(msg)[:300]}")
                print(f"MODEL   {label}: {' / '.join(msg)[:300]}")
                continue
            modeled += 1
            with open(model, "w") as f:
                f.write(out.stdout)
            if catalog_run:
                cmd = [a.vetro, "run", pkg, "--packages", a.root, "--model", model]
                results = os.path.join(here, "murano_models", "agent_results", name + ".yaml")
                if os.path.exists(results) and "--agent-results" in run_help:
                    cmd += ["--agent-results", results]
            else:
                folders = closure(catalog, pkg)
                for obj_type in set(re.findall(r'"type": "([^"]+)"', out.stdout)):
                    found = package_of(catalog, obj_type)
                    if found and not any(v[1] == found for v in catalog.get("io.murano", [])):
                        folders += [f for f in closure(catalog, found) if f not in folders]
                cmd = [a.vetro, "run", *folders, "--model", model]
            try:
                run = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
            except subprocess.TimeoutExpired:
                failures.append(f"{label}: deploy: over {a.timeout}s")
                print(f"DEPLOY  {label}: over {a.timeout}s")
                continue
            if run.returncode == 0:
                deployed += 1
                print(f"ok      {label}")
            else:
                err = [l for l in run.stderr.splitlines() if l.startswith(("error", "vetro run"))]
                failures.append(f"{label}: deploy: {' / '.join(err)[:300]}")
                print(f"DEPLOY  {label}: {' / '.join(err)[:300]}")
    print(f"{len(packages)} packages with ui.yaml: {modeled} modeled, {deployed} deployed "
          f"(slowest model {slowest * 1000:.0f} ms, including process start)")
    if deployed < a.min_deployed:
        print(f"fewer than {a.min_deployed} deployed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
