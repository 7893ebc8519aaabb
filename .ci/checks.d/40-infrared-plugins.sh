#!/usr/bin/env bash
# The thirteen published InfraRed plugins (version 3.0.0 wheels, downloaded from
# PyPI now into a temporary folder, nothing kept) run through `vetro ir`:
#   1. `vetro plugin add` loads each plugin.spec;
#   2. `--help` lists every option with its help text, default and choices
#      (compared with the spec as PyYAML reads it);
#   3. `--dry-run` without arguments prints the vars tree with every defaulted
#      option at its InfraRed path, or names exactly the missing required options;
#   4. `--generate-answers-file` then `--from-file` gives the same vars tree as
#      the same values on the command line (for the plugins that include the
#      "Answers file" group; the two that do not must refuse the options).
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh

PLUGINS="virsh openstack tripleo-undercloud tripleo-overcloud tempest rally packstack beaker
foreman collect-logs ospdui pytest-runner list-builds"

vetro_build --release
"$PY" -c 'import yaml' 2>/dev/null || "$PY" -m pip install --quiet PyYAML

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/wheels" "$work/plugins"
# The wheels are tagged py2 only: ask pip for that tag explicitly.
for p in $PLUGINS; do
    "$PY" -m pip download --quiet --disable-pip-version-check --no-deps \
        --python-version 2.7 --only-binary=:all: -d "$work/wheels" "infrared-$p==3.0.0"
done
for w in "$work"/wheels/*.whl; do
    "$PY" -m zipfile -e "$w" "$work/plugins"
done

"$PY" - "$VETRO" "$work" <<'PYEOF'
import configparser
import json
import os
import re
import subprocess
import sys

import yaml

VETRO, WORK = sys.argv[1], sys.argv[2]
ROOT = os.path.join(WORK, "plugins")
WS = os.path.join(WORK, "registry")
SHARED = {
    "Ansible options": ["verbose", "ansible-args"],
    "Inventory": ["inventory"],
    "Common options": ["dry-run", "extra-vars", "output"],
    "Answers file": ["from-file", "generate-answers-file"],
}
SHARED_NAMES = {n for names in SHARED.values() for n in names}


def vetro(*args, cwd=None):
    return subprocess.run([VETRO, *args], cwd=cwd, capture_output=True, text=True)


def ir(name, *args, cwd):
    return vetro("ir", "--workspace", WS, name, *args, cwd=cwd)


def options(spec):
    (name, body), = spec["subparsers"].items()
    out = []
    for group in body.get("groups") or []:
        out += list((group.get("options") or {}).items())
    out += list((body.get("options") or {}).items())
    return name, body, out


def plugin_type(spec):
    return (spec.get("config") or {}).get("plugin_type") or spec.get("plugin_type")


def help_entries(text):
    """--name -> the text of its entry (option line and help lines)."""
    entries, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^  (?:-\w(?: \S+)?, )?--([\w-]+)", line)
        if m:
            current = m.group(1)
            entries[current] = line[m.end():]
        elif line and not line.startswith(" "):
            current = None
        elif current:
            entries[current] += "\n" + line
    return {k: " ".join(v.split()) for k, v in entries.items()}


def norm(text):
    return " ".join(str(text).split())


def py_str(value):
    return str(value)


def check_help(name, opts, shared_titles, cwd):
    res = ir(name, "--help", cwd=cwd)
    if res.returncode != 0:
        return ["--help failed: " + res.stderr.strip()]
    entries = help_entries(res.stdout)
    problems = []
    for opt, spec in opts:
        spec = spec or {}
        entry = entries.get(opt)
        if entry is None:
            problems.append(f"--{opt} missing from --help")
            continue
        for line in str(spec.get("help") or "").splitlines():
            line = norm(line)
            if line == "__LISTYAMLS__":
                line = "Available values:"
            if line and line.replace("__LISTYAMLS__", "Available values:") not in entry:
                problems.append(f"--{opt}: help line {line!r} not shown")
        if spec.get("default") is not None:
            want = f"Default value: '{norm(py_str(spec['default']))}'."
            if want not in entry:
                problems.append(f"--{opt}: {want!r} not shown")
        for choice in spec.get("choices") or []:
            allowed = entry.split("Allowed values:", 1)
            if len(allowed) < 2 or f"'{choice}'" not in allowed[1]:
                problems.append(f"--{opt}: choice {choice!r} not shown")
    for title in shared_titles:
        for opt in SHARED.get(title, []):
            if opt not in entries:
                problems.append(f"--{opt} ({title}) missing from --help")
    return problems


def yaml_text(value):
    return str(yaml.safe_load(str(value)))


def expected_missing(opts):
    values = {n: s.get("default") for n, s in opts if (s or {}).get("default") is not None}
    silenced = {x for n, s in opts if n in values for x in (s or {}).get("silent") or []}
    missing = []
    for n, s in opts:
        s = s or {}
        if n in silenced:
            continue
        required = bool(s.get("required")) and n not in values
        conds = s.get("required_when")
        if conds and n not in values:
            conds = conds if isinstance(conds, list) else [conds]
            def holds(cond):
                left, op, right = cond.split()
                if left not in values:
                    return False
                return (yaml_text(values[left]) == yaml_text(right)) == (op == "==")
            required = required or all(holds(c) for c in conds)
        if required:
            missing.append(n)
    return missing


def lookup(tree, ptype, opt, spec):
    if (spec or {}).get("ansible_variable"):
        return spec["ansible_variable"] in tree
    node = tree.get(ptype, {})
    for key in opt.split("-"):
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def check_dry_run(name, ptype, opts, cwd):
    res = ir(name, "--dry-run", cwd=cwd)
    want = expected_missing(opts)
    if res.returncode == 0:
        if want:
            return None, [f"dry-run succeeded, expected missing {want}"]
        tree = yaml.safe_load(res.stdout)
        absent = [o for o, s in opts if (s or {}).get("default") is not None
                  and not lookup(tree, ptype, o, s)]
        return "vars tree", [f"defaulted --{o} not in the vars tree" for o in absent]
    m = re.search(r"error\[missing_required\]: Required options are not set:\n \* \[[^\]]+\]: (.*)", res.stderr)
    if not m:
        return None, ["dry-run failed: " + res.stderr.strip()]
    got = re.findall(r"'([^']+)'", m.group(1))
    if sorted(got) != sorted(want):
        return None, [f"missing required {got}, expected {want}"]
    return f"missing {', '.join(got)}", []


def available(plugin_dir, opt):
    names = set()
    for base in ("vars", "defaults"):
        d = os.path.join(plugin_dir, base, *opt.split("-"))
        if os.path.isdir(d):
            for f in os.listdir(d):
                names.add(f[:-4] if f.endswith(".yml") else f)
    return sorted(names)


def required_values(plugin_dir, opts, cwd):
    """Command-line values for every required option, valid for its type."""
    args = []
    for n, s in opts:
        s = s or {}
        if not s.get("required") or s.get("default") is not None:
            continue
        kind = s.get("type")
        if s.get("choices"):
            value = str(s["choices"][0])
        elif kind in ("VarFile", "ListOfVarFiles", "VarDir"):
            value = available(plugin_dir, n)[0]
        elif kind == "ListOfTopologyFiles":
            value = available(plugin_dir, n)[0] + ":1"
        elif kind == "FileValue":
            value = os.path.join(cwd, n + ".txt")
            open(value, "w").write("x\n")
        else:
            value = "x-" + n
        args += [f"--{n}", value]
    return args


def scalars_as_text(value):
    if isinstance(value, dict):
        return {k: scalars_as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scalars_as_text(v) for v in value]
    return str(value)


def check_answers(name, plugin_dir, opts, cwd):
    args = required_values(plugin_dir, opts, cwd)
    direct = ir(name, *args, "--dry-run", cwd=cwd)
    if direct.returncode != 0:
        return ["dry-run with the required values failed: " + direct.stderr.strip()]
    gen = ir(name, *args, "--generate-answers-file", "answers.ini", cwd=cwd)
    if gen.returncode != 0:
        return ["--generate-answers-file failed: " + gen.stderr.strip()]
    ini = configparser.ConfigParser(interpolation=None, allow_no_value=True)
    ini.read(os.path.join(cwd, "answers.ini"))
    if not ini.has_section(name):
        return [f"answers file has no [{name}] section"]
    # Deprecated options are left out (their default would clash with the new option).
    replaced = {(s or {}).get("deprecates") for _, s in opts}
    problems = [f"answers file lacks --{o}" for o, s in opts
                if (s or {}).get("default") is not None and o not in replaced
                and not ini.has_option(name, o)]
    back = ir(name, "--from-file", "answers.ini", "--dry-run", cwd=cwd)
    if back.returncode != 0:
        return problems + ["--from-file failed: " + back.stderr.strip()]
    a = scalars_as_text(yaml.safe_load(direct.stdout))
    b = scalars_as_text(yaml.safe_load(back.stdout))
    if a != b:
        problems.append("--from-file vars differ from the command line's:\n"
                        + json.dumps(a, sort_keys=True) + "\n" + json.dumps(b, sort_keys=True))
    return problems


def check_no_answers(name, cwd):
    res = ir(name, "--generate-answers-file", "answers.ini", cwd=cwd)
    if res.returncode == 2 and "error[unknown_option]" in res.stderr:
        return []
    return ["--generate-answers-file without the 'Answers file' group: " + res.stderr.strip()]


def main():
    dirs = sorted(os.path.dirname(os.path.join(d, "plugin.spec"))
                  for d, _, files in os.walk(ROOT) if "plugin.spec" in files)
    passed = failed = 0
    for plugin_dir in dirs:
        spec = yaml.safe_load(open(os.path.join(plugin_dir, "plugin.spec")))
        name, body, opts = options(spec)
        ptype = plugin_type(spec)
        cwd = os.path.join(WORK, "run-" + name)
        os.makedirs(cwd)
        problems, summary = [], []
        add = vetro("plugin", "add", "--workspace", WS, plugin_dir)
        if add.returncode != 0:
            problems.append("plugin add failed: " + add.stderr.strip())
        else:
            summary.append("spec ok")
            shared_titles = body.get("include_groups") or []
            p = check_help(name, opts, shared_titles, cwd)
            problems += p
            if not p:
                summary.append(f"help ok ({len(opts)} options)")
            outcome, p = check_dry_run(name, ptype, opts, cwd)
            problems += p
            if outcome and not p:
                summary.append("dry-run: " + outcome)
            if "Answers file" in shared_titles:
                p = check_answers(name, plugin_dir, opts, cwd)
                problems += p
                if not p:
                    summary.append("answers file round trip ok")
            else:
                p = check_no_answers(name, cwd)
                problems += p
                if not p:
                    summary.append("no answers file options (group not included), refused as expected")
        if problems:
            failed += 1
            print(f"FAIL {name}: " + "; ".join(summary))
            for p in problems:
                print("    " + p)
        else:
            passed += 1
            print(f"ok   {name}: " + "; ".join(summary))
    if len(dirs) != 13:
        print(f"expected 13 plugins, found {len(dirs)}")
        failed += 1
    print(f"infrared-plugins: {passed} passed, {failed} failed")
    return 1 if failed else 0


sys.exit(main())
PYEOF
