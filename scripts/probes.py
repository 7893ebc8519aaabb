#!/usr/bin/env python3
"""Hostile-input probe campaign against every `vetro` subcommand.

Each probe runs the release binary once with bad input (broken files, huge
inputs, limit-evading programs, hostile packages, policies and spec trees,
closed pipes, bad option values) and checks the outcome class the README
promises: the allowed exit codes, a time budget, a peak memory (RSS) cap, a
bounded stderr, JSON output with `--format json`. Whatever a probe expects, it
always fails on a death by signal (stack overflow, abort), a Rust panic (exit
101 or "panicked at"), a run over its time budget (the process is killed) or
over its memory cap.

    scripts/probes.py                      # every probe, target/release/vetro
    scripts/probes.py --filter 'policy'    # probes whose name matches a regex
    scripts/probes.py --list               # names only
    scripts/probes.py --binary PATH -j 2   # another binary, worker count

Probes are built by the `probes_*` functions below, grouped by defect class
(limits, crashes, data, resources, readme); their inputs are generated at run
time in a temporary folder. Python 3 standard library only.
"""

import argparse
import concurrent.futures
import hashlib
import json
import multiprocessing
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
WEBSERVER = os.path.join(EXAMPLES, "murano", "webserver")
ENVIRONMENT = os.path.join(EXAMPLES, "murano", "environment.json")
POLICY_MODEL = os.path.join(EXAMPLES, "policy", "model.json")
POLICY_RULES = os.path.join(EXAMPLES, "policy", "rules.dl")
TOSCA = os.path.join(EXAMPLES, "tosca", "service.yaml")
HELLO_PLUGIN = os.path.join(EXAMPLES, "infrared", "hello")
ITEMS = os.path.join(EXAMPLES, "yaql", "items.json")

MIB = 1024 * 1024
# Peak RSS caps. A memory limit of N MiB counts allocated bytes: the process
# may pass it by one allocation and keeps its allocator's free pages, so a
# probe with --max-memory N gets 3 N + RSS_SMALL.
# Baseline of a vetro process that reads small inputs, with room to spare.
RSS_SMALL = 500
# A process that reads up to the 256 MiB input limit before refusing (it
# peaks at about five times that).
RSS_INPUT_LIMIT = 1400
STDERR_CAP = 64 * 1024
POSITION = re.compile(r":\d+:\d+|offset \d+")
CLAP_USAGE = "For more information, try '--help'"


@dataclass
class Probe:
    """One run of the binary and the outcome class it must fall in.

    `argv` items may name `{D}` (the fixtures folder) and `{W}` (this probe's
    own empty working folder, also its cwd and HOME). `stdin` is bytes, a
    path, or None (empty input). `head` reads that many bytes of stdout and
    then closes the pipe. `check(result)` returns an error text or None.
    """

    name: str
    kind: str
    argv: list
    codes: tuple = (0,)
    stdin: object = None
    budget: float = 10.0
    rss_mb: int = RSS_SMALL
    stderr_max: int = STDERR_CAP
    json: bool = False
    # With `json`, whether stdout is JSON too (`policy rules` prints rows) and
    # stderr (`vetro run --format json` prints its progress there).
    json_stdout: bool = True
    json_stderr: bool = True
    head: Optional[int] = None
    setup: Optional[Callable] = None
    check: Optional[Callable] = None
    position: bool = False


@dataclass
class Result:
    code: Optional[int] = None
    signal: Optional[int] = None
    seconds: float = 0.0
    rss_mb: float = 0.0
    stdout: bytes = b""
    stderr: bytes = b""
    stderr_size: int = 0
    killed: Optional[str] = None
    work: str = ""
    extra: dict = field(default_factory=dict)


# ---------------------------------------------------------------- fixtures


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as f:
        f.write(data)
    return path


def package(root, name, classes, fullname="demo.pkg", manifest=None, model_type="demo.Main"):
    """A MuranoPL package folder: `classes` maps a class name to (file, text).
    A text of None writes no file (for paths outside the package)."""
    d = os.path.join(root, name)
    lines = ["Format: MuranoPL/1.4", "Type: Application", f"FullName: {fullname}",
             "Version: 1.0.0", "Classes:"]
    for cls, (file, text) in classes.items():
        lines.append(f"  {cls}: {file}")
        if text is not None:
            write(os.path.join(d, "Classes", file), text)
    os.makedirs(os.path.join(d, "Classes"), exist_ok=True)
    write(os.path.join(d, "manifest.yaml"),
          manifest if manifest is not None else "\n".join(lines) + "\n")
    write(os.path.join(d, "model.json"),
          json.dumps({"?": {"id": "m1", "type": model_type}}))
    return d


def main_class(body, extra_methods="", name="demo.Main", extends=None):
    head = f"Name: {name}\n" + (f"Extends: {extends}\n" if extends else "")
    return f"{head}Methods:\n  deploy:\n    Body:\n{body}{extra_methods}"


# Workflow bodies of hostile MuranoPL programs (8-space indented steps).
PROGRAMS = {
    # A string that doubles each step: 2^n bytes after n steps.
    "double-string": "        - $s: 'x'\n        - While: 1 = 1\n          Do:\n            - $s: $s + $s\n",
    # A list that grows a little each step.
    "gradual-growth": "        - $l: []\n        - While: 1 = 1\n          Do:\n"
                      "            - $l: $l + [range(0, 5000).toList()]\n",
    # Shared structure: a DAG of n nodes that is a tree of 2^n nodes.
    "shared-while": "        - $l: []\n        - While: 1 = 1\n          Do:\n            - $l: [$l, $l]\n",
    "shared-dict-while": "        - $d: {}\n        - While: 1 = 1\n          Do:\n"
                         "            - $d: dict(a => $d, b => $d)\n",
    "shared-result-60": "        - $l: []\n        - For: i\n          In: range(60)\n          Do:\n"
                        "            - $l: [$l, $l]\n        - Return: $l\n",
    "shared-property-60": "        - $l: []\n        - For: i\n          In: range(60)\n          Do:\n"
                          "            - $l: [$l, $l]\n        - $.data: $l\n",
    "shared-len-60": "        - $l: [1]\n        - For: i\n          In: range(60)\n          Do:\n"
                     "            - $l: [$l, $l]\n        - Return: str($l).len()\n",
    "shared-flatten-60": "        - $l: [1]\n        - For: i\n          In: range(60)\n          Do:\n"
                         "            - $l: [$l, $l]\n        - Return: $l.flatten().len()\n",
    "shared-dump-60": "        - $l: [1]\n        - For: i\n          In: range(60)\n          Do:\n"
                      "            - $l: [$l, $l]\n        - Return: $l = $l\n",
    # The executor writing a shared value's text (not YAQL's str()).
    "shared-throw-60": "        - $l: [1]\n        - For: i\n          In: range(60)\n          Do:\n"
                       "            - $l: [$l, $l]\n        - Throw: e\n          Message: $l\n",
    "shared-throw-names-60": "        - $l: [1]\n        - For: i\n          In: range(60)\n          Do:\n"
                             "            - $l: [$l, $l]\n        - Throw: $l\n",
    "shared-log-60": "        - $l: [1]\n        - For: i\n          In: range(60)\n          Do:\n"
                     "            - $l: [$l, $l]\n        - $log: logger(demo)\n        - $log.info($l)\n",
    "shared-flatten-empty-60": "        - $l: []\n        - For: i\n          In: range(60)\n          Do:\n"
                               "            - $l: [$l, $l]\n        - Return: $l.flatten().len()\n",
    "infinite-loop": "        - While: 1 = 1\n          Do:\n            - $x: 1\n",
    "yaql-huge-list": "        - $l: range(1000000000000).toList()\n",
    "yaql-huge-dict": "        - $l: dict(range(1000000000000).select([$, $]))\n",
    "yaql-long-sum": "        - Return: range(1000000000000).sum()\n",
    "recursion": "        - Return: $.deploy()\n",
    "deep-nest-result": "        - $l: []\n        - For: i\n          In: range(100000)\n          Do:\n"
                        "            - $l: [$l]\n        - Return: $l\n",
    "throw-catch-loop": "        - While: 1 = 1\n          Do:\n            - Try:\n                - Throw: e\n"
                        "                  Message: m\n              Catch:\n                - With: e\n"
                        "                  Do:\n                    - $x: 1\n",
    "new-objects": "        - While: 1 = 1\n          Do:\n            - $o: new('demo.Main')\n",
}

TEST_FIXTURE = """Namespaces:
  =: demo
  test: io.murano.test
Name: demo.BombTests
Extends: test:TestFixture
Methods:
  testAFirst:
    Body:
      - $.assertEqual(2, 1 + 1)
  testBBomb:
    Body:
{bomb}
  testCLast:
    Body:
      - $.assertEqual(3, 1 + 2)
"""


def build_fixtures(d):
    rng = random.Random(20261202)
    f = {}
    # Files of every bad kind, used by every command that reads a file.
    f["bad-utf8"] = write(f"{d}/in/bad-utf8.yaml", b"a: 1\nb: [1, 2]\nc: 'ok \xff\xfe here'\n")
    f["binary"] = write(f"{d}/in/binary.bin", rng.randbytes(2 * MIB))
    f["long-line"] = write(f"{d}/in/long-line.yaml", b"a: [" + b"x, " * (10 * MIB // 3) + b"\n")
    f["deep"] = write(f"{d}/in/deep.json", b"[" * 200000 + b"]" * 200000)
    f["deep-map"] = write(f"{d}/in/deep-map.json", b'{"a":' * 200000 + b"1" + b"}" * 200000)
    f["dup-keys"] = write(f"{d}/in/dup-keys.json", b'{"a": 1, "b": 2, "a": 3}\n')
    f["bigint"] = write(f"{d}/in/bigint.json",
                        b'{"a": 123456789012345678901234567890, "b": -1e400, "c": 1e400, '
                        b'"d": 18446744073709551616, "e": -9223372036854775809}\n')
    # An integer one digit over the limit, and a hexadecimal one just under it
    # (converting it to decimal digit by digit took minutes).
    f["int-huge"] = write(f"{d}/in/int-huge.json", b'{"a": ' + b"7" * 1_000_001 + b"}\n")
    f["hex-long"] = write(f"{d}/in/hex-long.yaml", b"a: 0x" + b"f" * 800_000 + b"\n")
    f["nan-json"] = write(f"{d}/in/nan.json", b'{"a": NaN, "b": Infinity}\n')
    f["nan-yaml"] = write(f"{d}/in/nan.yaml", b"a: .nan\nb: .inf\nc: -.inf\n")
    f["truncated"] = write(f"{d}/in/truncated.json", b'{"a": [1, 2, {"b": "c"')
    f["empty"] = write(f"{d}/in/empty.yaml", b"")
    f["nul"] = write(f"{d}/in/nul.yaml", b"a: 1\x00\nb: 2\n")
    f["bom-utf16"] = write(f"{d}/in/utf16.yaml", "a: 1\n".encode("utf-16"))
    f["anchors"] = write(f"{d}/in/laughs.yaml", laughs())
    f["many-docs"] = write(f"{d}/in/many-docs.yaml", b"---\na: 1\n" * 200000)
    f["missing"] = f"{d}/in/does-not-exist.yaml"
    f["directory"] = f"{d}/in"
    f["zero"] = "/dev/zero"
    f["fifo-null"] = "/dev/null"

    # Large valid inputs.
    f["big-json"] = write(f"{d}/in/big.json",
                          b"[" + b",".join([b'"' + b"y" * MIB + b'"'] * 50) + b"]")
    f["many-objects"] = write(
        f"{d}/in/many-objects.json",
        b"[" + b",".join(b'{"k": %d, "s": "v%d"}' % (i, i) for i in range(300000)) + b"]")

    # MuranoPL packages.
    p = f"{d}/pkg"
    for prog, body in PROGRAMS.items():
        f[f"pkg-{prog}"] = package(p, prog, {"demo.Main": ("Main.yaml", main_class(body))})
    f["pkg-cyclic"] = package(p, "cyclic", {
        "demo.Main": ("Main.yaml", main_class("        - Return: 1\n", extends="demo.B")),
        "demo.B": ("B.yaml", "Name: demo.B\nExtends: demo.Main\n")})
    f["pkg-self-extends"] = package(p, "self-extends", {
        "demo.Main": ("Main.yaml", main_class("        - Return: 1\n", extends="demo.Main"))})
    f["pkg-cyclic-3"] = package(p, "cyclic-3", {
        "demo.Main": ("Main.yaml", main_class("        - Return: 1\n", extends="demo.B")),
        "demo.B": ("B.yaml", "Name: demo.B\nExtends: demo.C\n"),
        "demo.C": ("C.yaml", "Name: demo.C\nExtends: [demo.Main, demo.B]\n")})
    f["pkg-extends-missing"] = package(p, "extends-missing", {
        "demo.Main": ("Main.yaml", main_class("        - Return: 1\n", extends="demo.Nope"))})
    f["pkg-name-mismatch"] = package(p, "name-mismatch", {
        "demo.Main": ("Main.yaml", main_class("        - Return: 1\n", name="demo.Other"))})
    f["pkg-empty-class"] = package(p, "empty-class", {"demo.Main": ("Main.yaml", "")})
    f["pkg-null-class"] = package(p, "null-class", {"demo.Main": ("Main.yaml", "~\n")})
    f["pkg-list-class"] = package(p, "list-class", {"demo.Main": ("Main.yaml", "- 1\n- 2\n")})
    f["pkg-outside"] = package(p, "outside", {"demo.Main": ("../../outside.yaml", None)})
    write(f"{p}/outside.yaml", main_class("        - Return: 1\n"))
    f["pkg-absolute"] = package(p, "absolute", {"demo.Main": (f"{p}/outside.yaml", None)})
    f["pkg-missing-class-file"] = package(p, "missing-class-file", {"demo.Main": ("Nope.yaml", None)})
    f["pkg-class-dir"] = package(p, "class-dir", {"demo.Main": ("Sub", None)})
    os.makedirs(f"{p}/class-dir/Classes/Sub", exist_ok=True)
    f["pkg-bad-utf8"] = package(p, "bad-utf8", {"demo.Main": ("Main.yaml", None)})
    with open(f"{p}/bad-utf8/Classes/Main.yaml", "wb") as fh:
        fh.write(main_class("        - Return: 'caf\xff'\n").encode("latin-1"))
    f["pkg-bad-utf8-manifest"] = package(p, "bad-utf8-manifest", {
        "demo.Main": ("Main.yaml", main_class("        - Return: 1\n"))})
    with open(f"{p}/bad-utf8-manifest/manifest.yaml", "ab") as fh:
        fh.write(b"Description: \xc3\x28\n")
    f["pkg-zero-class"] = package(p, "zero-class", {"demo.Main": ("Main.yaml", None)})
    os.symlink("/dev/zero", f"{p}/zero-class/Classes/Main.yaml")
    f["pkg-zero-manifest"] = package(p, "zero-manifest", {
        "demo.Main": ("Main.yaml", main_class("        - Return: 1\n"))})
    os.remove(f"{p}/zero-manifest/manifest.yaml")
    os.symlink("/dev/zero", f"{p}/zero-manifest/manifest.yaml")
    f["pkg-binary-class"] = package(p, "binary-class", {"demo.Main": ("Main.yaml", None)})
    shutil.copy(f["binary"], f"{p}/binary-class/Classes/Main.yaml")
    f["pkg-long-line-class"] = package(p, "long-line-class", {"demo.Main": ("Main.yaml", None)})
    shutil.copy(f["long-line"], f"{p}/long-line-class/Classes/Main.yaml")
    f["pkg-deep-class"] = package(p, "deep-class", {"demo.Main": ("Main.yaml", None)})
    shutil.copy(f["deep"], f"{p}/deep-class/Classes/Main.yaml")
    f["pkg-deep-expr"] = package(p, "deep-expr", {"demo.Main": (
        "Main.yaml", main_class("        - Return: " + "(" * 100000 + "1" + ")" * 100000 + "\n"))})
    f["pkg-dup-keys"] = package(p, "dup-keys", {"demo.Main": (
        "Main.yaml", main_class("        - Return: 1\n") + "  deploy:\n    Body: []\n")})
    f["pkg-no-manifest"] = f"{p}/no-manifest"
    os.makedirs(f["pkg-no-manifest"], exist_ok=True)
    f["pkg-manifest-list"] = package(p, "manifest-list", {}, manifest="- a\n- b\n")
    f["pkg-bad-yaql"] = package(p, "bad-yaql", {"demo.Main": (
        "Main.yaml", main_class("        - Return: $.foo(((\n        - $x: 1 +\n"))})
    f["pkg-huge-method-count"] = package(p, "huge-method-count", {"demo.Main": (
        "Main.yaml", main_class("        - Return: 1\n", "".join(
            f"  m{i}:\n    Body:\n      - Return: {i}\n" for i in range(20000))))})
    f["pkg-tests-bomb"] = package(p, "tests-bomb", {
        "demo.Main": ("Main.yaml", main_class("        - Return: 1\n")),
        "demo.BombTests": ("BombTests.yaml", TEST_FIXTURE.format(bomb=PROGRAMS["double-string"]))})
    f["pkg-tests-shared"] = package(p, "tests-shared", {
        "demo.Main": ("Main.yaml", main_class("        - Return: 1\n")),
        "demo.BombTests": ("BombTests.yaml", TEST_FIXTURE.format(bomb=PROGRAMS["shared-while"]))})
    f["pkg-tests-loop"] = package(p, "tests-loop", {
        "demo.Main": ("Main.yaml", main_class("        - Return: 1\n")),
        "demo.BombTests": ("BombTests.yaml", TEST_FIXTURE.format(bomb=PROGRAMS["infinite-loop"]))})
    f["pkg-tests-recursion"] = package(p, "tests-recursion", {
        "demo.Main": ("Main.yaml", main_class("        - Return: 1\n")),
        "demo.BombTests": ("BombTests.yaml", TEST_FIXTURE.format(
            bomb="        - Return: $.testBBomb()\n"))})
    f["pkg-tests-cyclic"] = package(p, "tests-cyclic", {
        "demo.Main": ("Main.yaml", main_class("        - Return: 1\n", extends="demo.BombTests")),
        "demo.BombTests": ("BombTests.yaml", TEST_FIXTURE.format(
            bomb="        - Return: 1\n").replace("Extends: test:TestFixture",
                                                   "Extends: [test:TestFixture, demo.Main]"))})

    # Object models.
    m = f"{d}/models"
    f["model-list"] = write(f"{m}/list.json", "[1, 2]")
    f["model-string"] = write(f"{m}/string.json", '"x"')
    f["model-null"] = write(f"{m}/null.json", "null")
    f["model-objects-null"] = write(f"{m}/objects-null.json", '{"Objects": null}')
    f["model-unknown-class"] = write(f"{m}/unknown.json", '{"?": {"id": "x", "type": "no.Such"}}')
    f["model-no-id"] = write(f"{m}/no-id.json", '{"?": {"type": "demo.Main"}}')
    f["model-self-ref"] = write(f"{m}/self-ref.json",
                                '{"?": {"id": "m1", "type": "demo.Main"}, "me": "m1", "data": {"x": "m1"}}')
    f["model-deep-objects"] = write(f"{m}/deep-objects.json", deep_objects(20000))
    f["state-foreign"] = write(f"{m}/foreign-state.json", '{"users": ["alice"], "keep": true}\n')
    f["state-truncated"] = write(f"{m}/truncated-state.json", '{"servers": {')

    # Policies.
    q = f"{d}/policy"
    f["rules-40k"] = write(f"{q}/rules-40k.dl", "".join(
        f"p{i}(x) :- q{i % 100}(x), r(x)\n" for i in range(40000)) + 'q1("a")\nr("a")\n')
    f["facts-40k"] = write(f"{q}/facts-40k.dl", "".join(f'f("{i}", {i})\n' for i in range(40000)))
    f["chain-6k"] = write(f"{q}/chain-6k.dl", chain(6000))
    f["chain-20k"] = write(f"{q}/chain-20k.dl", chain(20000))
    f["cross"] = write(f"{q}/cross.dl", "".join(f"n({i})\n" for i in range(400)) +
                       "c(a, b, x) :- n(a), n(b), n(x)\n")
    f["recursive"] = write(f"{q}/recursive.dl", "p(x) :- p(x)\np(1)\n")
    f["neg-cycle"] = write(f"{q}/neg-cycle.dl", "p(x) :- n(x), not q(x)\nq(x) :- n(x), not p(x)\nn(1)\n")
    f["unsafe"] = write(f"{q}/unsafe.dl", "p(x) :- not q(x)\n")
    f["policy-predeploy-chain"] = write(f"{q}/predeploy-chain.dl", chain(6000) +
                                        'predeploy_errors("e", "o", "m") :- p6000(1)\n')
    f["classes-cyclic"] = write(f"{q}/classes-cyclic.txt", "A->B\nB->A\nC->C\n")
    f["classes-bad"] = write(f"{q}/classes-bad.txt", "no arrow here\n->\nA->\n")
    f["deep-term"] = write(f"{q}/deep-term.dl", "p(x) :- q(" + "f(" * 50000 + "x" + ")" * 50000 + ")\n")
    f["long-rule"] = write(f"{q}/long-rule.dl", "p(x) :- " + ", ".join(
        f"n{i}(x)" for i in range(50000)) + "\n")
    # TOSCA.
    t = f"{d}/tosca"
    f["tosca-import-cycle"] = write(f"{t}/a.yaml", tosca_doc("imports: [b.yaml]\n"))
    write(f"{t}/b.yaml", tosca_doc("imports: [a.yaml]\n"))
    f["tosca-self-import"] = write(f"{t}/self.yaml", tosca_doc("imports: [self.yaml]\n"))
    f["tosca-import-zero"] = write(f"{t}/import-zero.yaml", tosca_doc("imports: [/dev/zero]\n"))
    f["tosca-import-missing"] = write(f"{t}/import-missing.yaml", tosca_doc("imports: [nope.yaml]\n"))
    f["tosca-import-url"] = write(f"{t}/import-url.yaml",
                                  tosca_doc("imports: ['http://127.0.0.1:9/x.yaml']\n"))
    f["tosca-derived-cycle"] = write(f"{t}/derived-cycle.yaml", tosca_doc(
        "node_types:\n  my.A:\n    derived_from: my.B\n  my.B:\n    derived_from: my.A\n"))
    f["tosca-derived-self"] = write(f"{t}/derived-self.yaml", tosca_doc(
        "node_types:\n  my.A:\n    derived_from: my.A\n"))
    f["tosca-many-types"] = write(f"{t}/many-types.yaml", tosca_doc("node_types:\n" + "".join(
        f"  my.T{i}:\n    derived_from: {'my.T%d' % (i - 1) if i else 'tosca.nodes.Root'}\n"
        for i in range(5000))))
    f["tosca-deep-requirement"] = write(f"{t}/deep-req.yaml", tosca_doc(
        "topology_template:\n  node_templates:\n" + "".join(
            f"    n{i}:\n      type: tosca.nodes.Root\n      requirements:\n        - dependency: n{(i + 1) % 3000}\n"
            for i in range(3000))))
    f["tosca-bad-grammar"] = write(f"{t}/grammar.yaml", "type: map\nmapping:\n  x: {type: nope}\n")
    f["tosca-grammar-cycle"] = write(f"{t}/grammar-cycle.yaml",
                                     "type: map\nmapping:\n  x: &a {type: seq, sequence: [*a]}\n")

    # Spec settings trees.
    s = f"{d}/spec"
    world = ("subparsers:\n  world:\n    help: w\n    groups:\n      - title: G\n        options:\n"
             "          out-file:\n            type: Value\n            help: f\n")
    base = "---\ninclude_groups: []\n"

    def tree(name, hello_opts="", world_spec=None, base_spec=base):
        root = f"{s}/{name}"
        write(f"{root}/base.spec", base_spec)
        write(f"{root}/hello/hello.spec", "options:\n" + (hello_opts or "  audience:\n    type: Value\n    help: a\n"))
        write(f"{root}/hello/world/world.spec", world_spec if world_spec is not None else world)
        return root

    f["spec-ok"] = tree("ok")
    f["spec-help-option"] = tree("help-option", "  help:\n    type: Value\n    help: h\n")
    f["spec-short-h"] = tree("short-h", "  hat:\n    type: Value\n    short: h\n    help: h\n")
    f["spec-unknown-type"] = tree("unknown-type", "  a:\n    type: NoSuchType\n    help: h\n")
    f["spec-dup-names"] = tree("dup-names", world_spec=world + "          out-file:\n            type: int\n")
    f["spec-dup-names-groups"] = tree("dup-names-groups", world_spec=world +
                                      "      - title: H\n        options:\n          out-file:\n            type: Value\n")
    f["spec-dup-shorts"] = tree("dup-shorts", world_spec=world.replace("help: f\n", "help: f\n            short: o\n") +
                                "          other:\n            type: Value\n            short: o\n")
    f["spec-symlink-cycle"] = tree("symlink-cycle")
    os.symlink("..", f"{s}/symlink-cycle/hello/world/up")
    os.symlink(".", f"{s}/symlink-cycle/hello/here")
    f["spec-symlink-loop"] = tree("symlink-loop")
    os.symlink("loop-b", f"{s}/symlink-loop/hello/loop-a")
    os.symlink("loop-a", f"{s}/symlink-loop/hello/loop-b")
    f["spec-zero"] = tree("zero")
    os.remove(f"{s}/zero/hello/hello.spec")
    os.symlink("/dev/zero", f"{s}/zero/hello/hello.spec")
    f["spec-bad-utf8"] = tree("bad-utf8")
    with open(f"{s}/bad-utf8/hello/hello.spec", "wb") as fh:
        fh.write(b"options:\n  a:\n    type: Value\n    help: caf\xff\n")
    f["spec-binary"] = tree("binary")
    shutil.copy(f["binary"], f"{s}/binary/hello/hello.spec")
    f["spec-deep"] = tree("deep")
    shutil.copy(f["deep"], f"{s}/deep/hello/hello.spec")
    f["spec-list-root"] = tree("list-root", world_spec="- 1\n- 2\n")
    f["spec-bad-short"] = tree("bad-short", "  abc:\n    type: Value\n    short: xyz\n    help: h\n")
    f["spec-nargs"] = tree("nargs", "  abc:\n    type: Value\n    nargs: -5\n    help: h\n")
    f["spec-many-options"] = tree("many-options", "".join(
        f"  opt{i}:\n    type: Value\n    help: h\n" for i in range(5000)))

    # InfraRed plugins.
    g = f"{d}/plugins"

    def plugin(name, options="", spec=None):
        root = f"{g}/{name}"
        write(f"{root}/main.yml", "- hosts: localhost\n  tasks: []\n")
        write(f"{root}/plugin.spec", spec if spec is not None else (
            "config:\n  plugin_type: other\nsubparsers:\n  " + name +
            ":\n    description: d\n    groups:\n      - title: G\n        options:\n" +
            (options or "          name:\n            type: Value\n            help: n\n")))
        return root

    f["plugin-ok"] = plugin("okplug")
    f["plugin-help-option"] = plugin("helpopt", "          help:\n            type: Value\n            help: h\n")
    f["plugin-short-h"] = plugin("shorth", "          hat:\n            type: Value\n            short: h\n"
                                 "            help: h\n")
    f["plugin-dup-names"] = plugin("dupnames", "          a:\n            type: Value\n            help: h\n"
                                   "          a:\n            type: int\n            help: h\n")
    f["plugin-dup-shorts"] = plugin("dupshorts", "          a:\n            type: Value\n            short: x\n"
                                    "            help: h\n          b:\n            type: Value\n"
                                    "            short: x\n            help: h\n")
    f["plugin-unknown-type"] = plugin("unknowntype", "          a:\n            type: NoSuchType\n"
                                      "            help: h\n")
    f["plugin-bad-required-when"] = plugin("badwhen", "          a:\n            type: Value\n"
                                           "            required_when: \"((((\"\n            help: h\n")
    f["plugin-zero"] = plugin("zeroplug")
    os.remove(f"{g}/zeroplug/plugin.spec")
    os.symlink("/dev/zero", f"{g}/zeroplug/plugin.spec")
    f["plugin-bad-utf8"] = plugin("badutf8")
    with open(f"{g}/badutf8/plugin.spec", "ab") as fh:
        fh.write(b"          b:\n            type: Value\n            help: caf\xff\n")
    f["plugin-binary"] = plugin("binplug")
    shutil.copy(f["binary"], f"{g}/binplug/plugin.spec")
    f["plugin-deep"] = plugin("deepplug")
    shutil.copy(f["deep"], f"{g}/deepplug/plugin.spec")
    f["plugin-list-root"] = plugin("listroot", spec="- 1\n")
    f["plugin-no-main"] = plugin("nomain")
    os.remove(f"{g}/nomain/main.yml")
    f["plugin-no-spec"] = f"{g}/nospec"
    os.makedirs(f["plugin-no-spec"], exist_ok=True)
    f["plugin-vars-cycle"] = plugin("varscycle", "          style:\n            type: VarFile\n"
                                    "            help: h\n            default: plain\n")
    os.makedirs(f"{g}/varscycle/vars", exist_ok=True)
    os.symlink("..", f"{g}/varscycle/vars/up")
    f["plugin-nargs-bad"] = plugin("nargsbad", "          a:\n            type: Value\n            nargs: -3\n"
                                   "            help: h\n")
    return f


def read_text(path):
    with open(path) as fh:
        return fh.read()


def laughs():
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, 12):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 9)}]")
    return ("\n".join(lines) + "\n").encode()


def deep_objects(n):
    inner = '{"?": {"id": "leaf", "type": "demo.Main"}}'
    for i in range(n):
        inner = '{"?": {"id": "o%d", "type": "demo.Main"}, "child": %s}' % (i, inner)
    return inner


def chain(n):
    return "p0(1)\n" + "".join(f"p{i + 1}(x) :- p{i}(x)\n" for i in range(n))


def tosca_doc(rest):
    return "tosca_definitions_version: tosca_simple_yaml_1_0\n" + rest


# ---------------------------------------------------------------- probes

BAD_FILES = ["bad-utf8", "binary", "long-line", "deep", "deep-map", "dup-keys", "bigint", "int-huge", "hex-long",
             "nan-json", "nan-yaml", "truncated", "empty", "nul", "bom-utf16", "anchors",
             "missing", "directory", "zero", "many-docs"]
# Kinds that must be refused by every reader (the rest may be valid somewhere).
ALWAYS_BAD = {"bad-utf8", "binary", "long-line", "truncated", "nul",
              "missing", "directory", "zero", "dup-keys", "int-huge"}
# Kinds whose error must carry a file:line:column position.
POSITIONED = {"bad-utf8", "dup-keys", "truncated", "nul", "int-huge"}


def is_reader_exempt(kind):
    return kind in ("missing", "directory", "zero")


def file_consumers(f):
    """Commands that read one user file: (name, argv with {F} for it, has --format)."""
    return [
        ("yaml-check", ["yaml", "check", "{F}"]),
        ("yaml-convert", ["yaml", "convert", "{F}"]),
        ("yaml-convert-yaml", ["yaml", "convert", "{F}", "--to", "yaml", "--yaml", "1.2"]),
        ("yaml-check-stdin", ["yaml", "check", "-"]),
        ("yaql-data", ["yaql", "$", "--data", "{F}"]),
        ("yaql-data-stdin", ["yaql", "$", "--data", "-"]),
        ("tosca-validate", ["tosca", "validate", "{F}"]),
        ("tosca-types", ["tosca", "types", "{F}"]),
        ("tosca-grammar", ["tosca", "validate", TOSCA, "--grammar", "{F}"]),
        ("run-model", ["run", WEBSERVER, "--model", "{F}", "--timeout", "5"]),
        ("run-cloud-state", ["run", WEBSERVER, "--model", ENVIRONMENT, "--cloud-state", "{COPY}",
                             "--timeout", "5"]),
        ("policy-rules", ["policy", "rules", "{F}"]),
        ("policy-rules-classes", ["policy", "rules", POLICY_MODEL, "--classes", "{F}"]),
        ("policy-validate-model", ["policy", "validate", "{F}", "--policy", POLICY_RULES]),
        ("policy-validate-policy", ["policy", "validate", POLICY_MODEL, "--policy", "{F}"]),
        ("policy-explain-model", ["policy", "explain", "{F}", "--policy", POLICY_RULES,
                                  "--atom", 'predeploy_errors("e", "o", "m")']),
        ("policy-eval-rules", ["policy", "eval", "--rules", "{F}", "--query", "p(x)"]),
        ("policy-eval-more", ["policy", "eval", "--rules", POLICY_RULES, "--policy", "other={F}",
                              "--query", "allowed_flavor(x)"]),
        ("check-class", ["check", "{PKG}"]),
        ("test-class", ["test", "{PKG}"]),
        ("run-class", ["run", "{PKG}", "--model", "{PKG}/model.json", "--timeout", "5"]),
        ("check-manifest", ["check", "{PKGM}"]),
        ("spec-base", ["spec", "--settings", "{SPEC}", "--dry-run", "hello", "world", "--out-file", "x"]),
        ("plugin-add", ["plugin", "--workspace", "{W}", "add", "{PLUG}"]),
        ("ir-folder", ["ir", "{PLUG}/", "--out-file", "x", "--dry-run"]),
    ]


def consumer_setup(name, src):
    """Copies the bad file where a consumer reads it (a package's class file,
    a spec tree's base.spec, a plugin's plugin.spec, a cloud state file)."""

    def link(target, dest):
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if os.path.exists(src) or src.startswith("/dev/"):
            os.symlink(src, dest)

    def setup(work):
        if name.endswith("-class") or name == "check-manifest":
            pkg = f"{work}/pkg"
            classes = {"demo.Main": ("Main.yaml", None)}
            package(work, "pkg", classes)
            if name == "check-manifest":
                os.remove(f"{pkg}/manifest.yaml")
                link(src, f"{pkg}/manifest.yaml")
            else:
                link(src, f"{pkg}/Classes/Main.yaml")
        elif name == "spec-base":
            write(f"{work}/spec/hello/hello.spec", "options:\n  a:\n    type: Value\n    help: a\n")
            write(f"{work}/spec/hello/world/world.spec",
                  "subparsers:\n  world:\n    help: w\n    groups:\n      - title: G\n        options:\n"
                  "          out-file:\n            type: Value\n            help: f\n")
            link(src, f"{work}/spec/base.spec")
        elif name in ("plugin-add", "ir-folder"):
            write(f"{work}/plug/main.yml", "- hosts: localhost\n  tasks: []\n")
            link(src, f"{work}/plug/plugin.spec")
        elif name == "run-cloud-state":
            if os.path.isfile(src):
                shutil.copy(src, f"{work}/state")
            elif os.path.exists(src):
                os.symlink(src, f"{work}/state")
    return setup


def substitute(argv, path):
    out = []
    for a in argv:
        a = a.replace("{F}", path).replace("{COPY}", "{W}/state").replace("{PKGM}", "{W}/pkg")
        a = a.replace("{PKG}", "{W}/pkg").replace("{SPEC}", "{W}/spec").replace("{PLUG}", "{W}/plug")
        out.append(a)
    return out


def unchanged(path_of, original):
    """A check that the file at path_of(work) still holds `original`."""
    digest = hashlib.sha256(original).hexdigest()

    def check(r):
        p = path_of(r.work)
        if not os.path.lexists(p) or os.path.islink(p):
            return None
        with open(p, "rb") as fh:
            if hashlib.sha256(fh.read()).hexdigest() != digest:
                return f"{os.path.basename(p)} was overwritten"
        return None
    return check


def probes_bad_files(f):
    """Every file-reading command x every bad file kind x text/json."""
    out = []
    for cname, argv in file_consumers(f):
        for kind in BAD_FILES:
            src = f[kind]
            if cname.endswith("-stdin") and kind in ("missing", "directory"):
                continue
            for fmt in ("text", "json"):
                if fmt == "json" and cname.startswith("yaql") and kind not in ALWAYS_BAD:
                    continue
                a = substitute(argv, src)
                stdin = None
                if cname.endswith("-stdin"):
                    stdin = src
                if cname.startswith("yaql"):
                    a += ["--timeout", "5"] + (["--format", "json"] if fmt == "json" else [])
                elif cname == "spec-base":
                    a = a[:3] + (["--format", fmt] if fmt == "json" else []) + a[3:]
                elif cname.startswith(("ir-", "plugin-")):
                    a = a[:1] + ["--format", fmt] + a[1:] if fmt == "json" else a
                else:
                    a += ["--format", fmt] if fmt == "json" else []
                if fmt == "json" and cname.startswith("ir-"):
                    a = ["ir", "--format", "json"] + a[3:]
                codes = (1, 2) if kind in ALWAYS_BAD else (0, 1, 2)
                if cname == "spec-base" and kind in ("missing", "directory", "zero", "empty"):
                    codes = (0, 1, 2)  # base.spec is optional, and only regular files are spec files
                if cname == "run-cloud-state" and kind == "missing":
                    codes = (0,)  # a state file that does not exist yet: a new simulator
                if cname.startswith("test-") or cname.startswith("check-") and kind == "empty":
                    codes = (0, 1, 2) if kind not in ALWAYS_BAD else codes
                if kind == "zero" and cname in ("yaml-check-stdin", "yaql-data-stdin"):
                    stdin = "/dev/zero"
                rss = RSS_INPUT_LIMIT if kind in ("zero", "big-json", "long-line") else RSS_SMALL
                if kind in ("long-line", "binary", "many-docs", "deep", "deep-map"):
                    rss = RSS_INPUT_LIMIT
                check = None
                if cname == "run-cloud-state" and os.path.isfile(src):
                    with open(src, "rb") as fh:
                        original = fh.read()
                    check = unchanged(lambda w: f"{w}/state", original)
                out.append(Probe(
                    json_stdout=not cname.startswith(("policy-rules", "policy-eval", "yaml-convert", "spec-")),
                    json_stderr=not cname.startswith("run-"),
                    name=f"data/{cname}/{kind}/{fmt}", kind="data" if kind not in (
                        "zero", "long-line", "binary", "many-docs", "anchors") else "resources",
                    argv=a, codes=codes, stdin=stdin, rss_mb=rss,
                    json=(fmt == "json"), setup=consumer_setup(cname, src), check=check,
                    position=(kind in POSITIONED and not cname.startswith(("test-", "run-cloud")))))
    return out


def probes_limits(f):
    out = []
    run_limits = ["--timeout", "2", "--max-memory", "64"]
    for prog in PROGRAMS:
        pkg = f[f"pkg-{prog}"]
        # Shared structure that is stored or compared, not expanded, is fine.
        ends = prog in ("shared-property-60", "shared-dump-60")
        argv = ["run", pkg, "--model", f"{pkg}/model.json"] + run_limits
        out.append(Probe(f"limits/run/{prog}", "limits", argv, codes=(0, 1) if ends else (1,), budget=8,
                         rss_mb=3 * 64 + RSS_SMALL, check=None if ends else stopped_by_limit))
        out.append(Probe(f"limits/run-json/{prog}", "limits", argv + ["--format", "json"],
                         codes=(0, 1) if ends else (1,), budget=8, rss_mb=3 * 64 + RSS_SMALL, json=True,
                         json_stderr=False, check=None if ends else stopped_by_limit))
        out.append(Probe(f"limits/run-steps/{prog}", "limits",
                         ["run", pkg, "--model", f"{pkg}/model.json", "--max-steps", "2000",
                          "--timeout", "4", "--max-memory", "128"], codes=(0, 1), budget=10, rss_mb=3 * 128 + RSS_SMALL))
        out.append(Probe(f"limits/run-memory-1/{prog}", "limits",
                         ["run", pkg, "--model", f"{pkg}/model.json", "--max-memory", "1",
                          "--timeout", "2"], codes=(0, 1), budget=8, rss_mb=RSS_SMALL))
        out.append(Probe(f"limits/run-batch/{prog}", "limits",
                         ["run", "--batch", "--timeout", "2", "--max-memory", "64"],
                         stdin=batch_session(pkg), codes=(0,), budget=10, rss_mb=3 * 64 + RSS_SMALL,
                         check=batch_answers(4, failed_call=True)))
    for name in ("tests-bomb", "tests-shared", "tests-loop", "tests-recursion"):
        pkg = f[f"pkg-{name}"]
        for fmt in ("text", "json"):
            out.append(Probe(f"limits/test/{name}/{fmt}", "limits",
                             ["test", pkg, "--timeout", "2", "--max-memory", "64", "--format", fmt],
                             codes=(1,), budget=10, rss_mb=3 * 64 + RSS_SMALL, json=(fmt == "json"),
                             check=keeps_other_tests))
    # The webserver example under tiny limits: an error, or done, never a crash.
    for lim in (["--max-memory", "1"], ["--max-steps", "1"], ["--max-steps", "50"],
                ["--timeout", "0.001"], ["--max-memory", "2"]):
        out.append(Probe(f"limits/run-example/{'='.join(lim)}", "limits",
                         ["run", WEBSERVER, "--model", ENVIRONMENT] + lim, codes=(0, 1), budget=8))
        out.append(Probe(f"limits/test-example/{'='.join(lim)}", "limits",
                         ["test", WEBSERVER] + lim, codes=(0, 1), budget=8))
    # YAQL: huge allocations stop at the memory limit, long runs at the timeout.
    yaql_bombs = {
        "range-toList": "range(1000000000000).toList()",
        "range-set": "range(1000000000000).toSet()",
        "range-dict": "dict(range(1000000000000).select([$, $]))",
        "string-doubling": "range(64).aggregate($1 + $1, 'x')",
        "list-doubling": "range(64).aggregate($1 + $1, [1])",
        "shared-nesting": "range(64).aggregate([$1, $1], [])",
        "shared-nesting-len": "str(range(64).aggregate([$1, $1], [])).len()",
        "shared-dict-nesting": "range(64).aggregate({a => $1, b => $1}, {})",
        "shared-equal": "range(64).aggregate([$1, $1], 1) = range(64).aggregate([$1, $1], 1)",
        "shared-key": "dict(range(64).aggregate([$1, $1], 1) => 1).len()",
        "shared-distinct": "[range(64).aggregate([$1, $1], 1), range(64).aggregate([$1, $1], 1)].distinct().len()",
        "shared-flatten-empty": "range(64).aggregate([$1, $1], []).flatten().len()",
        "repeat-join": "range(100000000).select('xxxxxxxxxxxxxxxx').join('')",
        "orderby-huge": "range(1000000000000).orderBy($).first()",
        "sum-long": "range(1000000000000).sum()",
        "where-long": "range(1000000000000).where($ < 0).len()",
        "zip-huge": "range(1000000000000).zip(range(1000000000000)).len()",
        "str-repeat": "'x' * 1000000000000",
        "list-repeat": "[1] * 1000000000000",
        "big-pow": "2 ** 100000000",
        "pow-huge": "pow(10, 100000000)",
        "shift-huge": "shiftBitsLeft(1, 100000000)",
        "product-huge": "let(x => shiftBitsLeft(1, 3000000)) -> $x * $x * $x",
        "round-far-left": "round(1, -50295029)",
        "list-times-big-int": "44444444444444444444444*[1,2]*+0444444444444444444",
        "empty-list-times-huge": "[] * 444444444444444444",
        "modpow-huge": "let(x => pow(10, 999999)) -> pow(7, $x, $x + 1)",
        "divide-huge": "let(x => pow(10, 999999)) -> $x / pow(7, 500000)",
        "inverse-huge": "let(x => pow(10, 999999)) -> pow(7, -1, $x + 1)",
        "int-of-long-text": "int('1' * 10000000)",
        "sequence-toList": "sequence().toList()",
        "generate": "generate(0, true, $ + 1).toList()",
        "replace-grow": "range(40).aggregate($1.replace('x', 'xx'), 'x')",
        "format-wide": "'{0:>1000000000}'.format(1)",
        "ljust": "'x'.padLeft(1000000000000, '-')",
        "cycle-group": "range(100000000).groupBy($ mod 1000000).len()",
        "distinct-huge": "range(1000000000000).distinct().len()",
        "cross-join": "range(100000).join(range(100000), true, [$1, $2]).len()",
        "to-char-huge": "range(1000000000).select(str($)).toList().len()",
        "regex-catastrophic": "regex('(a+)+$').matches('" + "a" * 40 + "!')",
        "deep-parens": "(" * 50000 + "1" + ")" * 50000,
        "deep-list-literal": "[" * 50000 + "]" * 50000,
        "long-sum": "+".join(["1"] * 50000),
        "long-chain": "$" + ".len()" * 20000,
        "deep-lambda": "let(x => 1) -> " * 8000 + "1",
        "deep-unary": "-" * 100000 + "1",
        "deep-not": "not " * 30000 + "true",
    }
    for name, expr in yaql_bombs.items():
        for extra in ([], ["--legacy"]):
            tag = name + ("/legacy" if extra else "")
            out.append(Probe(f"limits/yaql/{tag}", "limits",
                             ["yaql", "--timeout", "2", "--max-memory", "64"] + extra + ["--", expr],
                             codes=(0, 1), budget=8, rss_mb=3 * 64 + RSS_SMALL))
        out.append(Probe(f"limits/yaql-json/{name}", "limits",
                         ["yaql", "--timeout", "2", "--max-memory", "64", "--format", "json", "--", expr],
                         codes=(0, 1), budget=8, rss_mb=3 * 64 + RSS_SMALL, json=True))
        out.append(Probe(f"limits/yaql-batch/{name}", "limits", ["yaql", "--batch", "--max-memory", "64"],
                         stdin=(json.dumps({"id": 1, "expr": expr}) + "\n" +
                                json.dumps({"id": 2, "expr": "1 + 1"}) + "\n").encode(),
                         codes=(0,), budget=15, rss_mb=3 * 64 + RSS_SMALL, check=batch_answers(2, last_value=2)))
    # Expressions too long for one argument come on stdin (and in batch cases).
    for name, expr in (("long-sum-200k", "+".join(["1"] * 200000)),
                       ("deep-parens-200k", "(" * 200000 + "1" + ")" * 200000),
                       ("long-chain-100k", "$" + ".len()" * 100000)):
        out.append(Probe(f"limits/yaql-stdin/{name}", "limits", ["yaql", "--timeout", "2", "--max-memory", "256"],
                         stdin=expr.encode(), codes=(1,), budget=10, rss_mb=3 * 256 + RSS_SMALL,
                         stderr_max=STDERR_CAP))
        out.append(Probe(f"limits/yaql-batch-stdin/{name}", "limits", ["yaql", "--batch", "--max-memory", "256"],
                         stdin=(json.dumps({"id": 1, "expr": expr}) + "\n" +
                                json.dumps({"id": 2, "expr": "1 + 1"}) + "\n").encode(),
                         codes=(0,), budget=15, rss_mb=3 * 256 + RSS_SMALL, check=batch_answers(2, last_value=2)))
    out.append(Probe("limits/yaql/default-limits-range", "limits",
                     ["yaql", "range(1000000000000).toList()"], codes=(1,), budget=70, rss_mb=2048 + 300))
    # Policies: derived tuples are bounded, long evaluations time out.
    out.append(Probe("limits/policy-eval/cross-product", "limits",
                     ["policy", "eval", "--rules", f["cross"], "--query", "c(a, b, x)",
                      "--max-tuples", "100000", "--timeout", "2"], codes=(1,), budget=8, rss_mb=400))
    out.append(Probe("limits/policy-eval/cross-product-timeout", "limits",
                     ["policy", "eval", "--rules", f["cross"], "--query", "c(a, b, x)",
                      "--max-tuples", "0", "--timeout", "2"], codes=(1,), budget=8, rss_mb=2500))
    out.append(Probe("limits/policy-eval/cross-product-default", "limits",
                     ["policy", "eval", "--rules", f["cross"], "--query", "c(a, b, x)", "--timeout", "20"],
                     codes=(1,), budget=30, rss_mb=4000))
    out.append(Probe("limits/policy-eval/cross-product-batch", "limits",
                     ["policy", "eval", "--batch"], stdin=(json.dumps({
                         "id": 1, "kind": "query", "policies": [
                             {"name": "p", "kind": "nonrecursive", "rules": read_text(f["cross"])}],
                         "query": "c(a, b, x)"}) + "\n" + json.dumps({
                             "id": 2, "kind": "parse", "text": "p(1)"}) + "\n").encode(),
                     codes=(0,), budget=40, rss_mb=4000, check=batch_answers(2)))
    for cmd in ("validate", "explain"):
        extra = ["--atom", 'predeploy_errors("e", "o", "m")'] if cmd == "explain" else []
        # Only what predeploy_errors needs is derived: the cross product may stay unbuilt.
        out.append(Probe(f"limits/policy-{cmd}/cross-product", "limits",
                         ["policy", cmd, POLICY_MODEL, "--policy", f["cross"], "--max-tuples", "100000",
                          "--timeout", "2"] + extra, codes=(0, 1), budget=8, rss_mb=400))
    return out


def probes_timeouts(f):
    """Bad limit values on every command that takes them."""
    out = []
    commands = {
        "run": ["run", WEBSERVER, "--model", ENVIRONMENT],
        "test": ["test", WEBSERVER],
        "yaql": ["yaql", "1 + 1"],
        "policy-eval": ["policy", "eval", "--rules", POLICY_RULES, "--query", "allowed_flavor(x)"],
        "policy-validate": ["policy", "validate", POLICY_MODEL, "--policy", POLICY_RULES],
        "policy-explain": ["policy", "explain", POLICY_MODEL, "--policy", POLICY_RULES,
                           "--atom", 'allowed_flavor("m1.small")'],
        "run-batch": ["run", "--batch"],
        "serve": ["serve", "--db", "sqlite://{W}/v.db", "--listen", "127.0.0.1:0"],
    }
    values = {"inf": (0, 2), "-inf": (2,), "nan": (2,), "-1": (2,), "1e308": (0, 2), "1e400": (0, 2),
              "abc": (2,), "": (2,), "0x10": (2,), "18446744073709551616": (0, 2), "-0": (0, 2),
              "1e-300": (0, 1, 2), "4e-324": (0, 1, 2), "99999999999999999999": (0, 2)}
    options = {"run": ["--timeout", "--max-steps", "--max-memory"],
               "test": ["--timeout", "--max-steps", "--max-memory"],
               "run-batch": ["--timeout", "--max-steps", "--max-memory"],
               "yaql": ["--timeout", "--max-memory"],
               "policy-eval": ["--timeout", "--max-tuples"],
               "policy-validate": ["--timeout", "--max-tuples"],
               "policy-explain": ["--timeout", "--max-tuples"],
               "serve": ["--task-timeout", "--lease-seconds", "--workers", "--max-attempts"]}
    for cmd, argv in commands.items():
        for opt in options[cmd]:
            for value, codes in values.items():
                codes = tuple(sorted(set(codes) | ({1} if 0 in codes else set())))
                if cmd == "serve":
                    # A value serve accepts starts the service: only refusals are probed.
                    if 0 in codes:
                        continue
                out.append(Probe(f"crashes/limit-value/{cmd}{opt}={value or 'empty'}", "crashes",
                                 argv + [f"{opt}={value}"], codes=codes, budget=15,
                                 stdin=b"" if cmd == "run-batch" else None))
    return out


def probes_crashes(f):
    out = []
    # Cyclic classes and other unloadable packages, in every package command.
    for name in ("cyclic", "self-extends", "cyclic-3", "extends-missing", "name-mismatch",
                 "empty-class", "null-class", "list-class", "outside", "absolute",
                 "missing-class-file", "class-dir", "bad-utf8", "bad-utf8-manifest", "zero-class",
                 "zero-manifest", "binary-class", "long-line-class", "deep-class", "deep-expr",
                 "dup-keys", "no-manifest", "manifest-list", "bad-yaql", "tests-cyclic"):
        pkg = f[f"pkg-{name}"]
        rss = RSS_INPUT_LIMIT if "zero" in name or "long" in name or "binary" in name else RSS_SMALL
        positioned = name in ("bad-utf8", "bad-utf8-manifest", "dup-keys")
        # A MuranoPL string that does not parse as YAQL is a plain string.
        maybe_fine = name in ("bad-yaql", "deep-expr", "extends-missing")
        for fmt in ("text", "json"):
            j = ["--format", fmt]
            out.append(Probe(f"crashes/check/{name}/{fmt}", "crashes", ["check", pkg] + j,
                             codes=(0, 1, 2) if maybe_fine else (1, 2), rss_mb=rss, json=fmt == "json", position=positioned))
            out.append(Probe(f"crashes/test/{name}/{fmt}", "crashes", ["test", pkg, "--timeout", "5"] + j,
                             codes=(1, 2), rss_mb=rss, json=fmt == "json"))
            out.append(Probe(f"crashes/run/{name}/{fmt}", "crashes",
                             ["run", pkg, "--model", f"{pkg}/model.json", "--timeout", "5"] + j,
                             codes=(0, 1, 2) if maybe_fine else (1, 2), rss_mb=rss, json=fmt == "json",
                             json_stderr=False))
            out.append(Probe(f"crashes/policy-rules-packages/{name}/{fmt}", "crashes",
                             ["policy", "rules", POLICY_MODEL, "--packages", pkg] + j,
                             codes=(0, 1, 2), rss_mb=rss, json=fmt == "json", json_stdout=False))
        out.append(Probe(f"crashes/run-batch-begin/{name}", "crashes", ["run", "--batch", "--timeout", "5"],
                         stdin=batch_session(pkg), codes=(0,), rss_mb=rss, check=batch_answers(4)))
    # A package that loads fine but whose model is hostile.
    main = f["pkg-infinite-loop"]
    for model in ("model-list", "model-string", "model-null", "model-objects-null", "model-unknown-class",
                  "model-no-id", "model-self-ref", "model-deep-objects"):
        for fmt in ("text", "json"):
            out.append(Probe(f"crashes/run-model/{model}/{fmt}", "crashes",
                             ["run", f["pkg-shared-result-60"], "--model", f[model], "--timeout", "2",
                              "--max-memory", "128", "--format", fmt],
                             codes=(0, 1, 2) if model in ("model-null", "model-objects-null") else (1, 2),
                             budget=8, json=fmt == "json", json_stderr=False))
        out.append(Probe(f"crashes/policy-rules/{model}", "crashes", ["policy", "rules", f[model]],
                         codes=(0, 1)))
    del main
    # Actions and methods that do not exist.
    for action in ("nope", "/x", "x/", "/", "a1b2c3d4e5f64a7b8c9d0e1f2a3b4c5d/nope",
                   "nope/restart", "a1b2c3d4e5f64a7b8c9d0e1f2a3b4c5d/deploy", "\u00e9/\u00e9", "a/b/c"):
        out.append(Probe(f"crashes/run-action/{action}", "crashes",
                         ["run", WEBSERVER, "--model", ENVIRONMENT, "--action", action, "--timeout", "5"],
                         codes=(1, 2)))
    for method in ("nope", "", ".init", "destroy", "__init__", "deploy.x"):
        out.append(Probe(f"crashes/run-method/{method or 'empty'}", "crashes",
                         ["run", WEBSERVER, "--model", ENVIRONMENT, "--method", method, "--timeout", "5"],
                         codes=(0, 1, 2)))
    out.append(Probe("crashes/run/no-packages", "crashes", ["run", "--model", ENVIRONMENT], codes=(1, 2)))
    out.append(Probe("crashes/run/no-model", "crashes", ["run", WEBSERVER], codes=(1, 2)))
    out.append(Probe("crashes/run/backend-unknown", "crashes",
                     ["run", WEBSERVER, "--model", ENVIRONMENT, "--backend", "nope"], codes=(2,)))
    for target in ("/dev/full", "{W}", "{W}/no/such/dir/stack.json"):
        out.append(Probe(f"crashes/run-heat-template/{target}", "crashes",
                         ["run", WEBSERVER, "--model", ENVIRONMENT, "--heat-template", target], codes=(1, 2)))
        out.append(Probe(f"crashes/run-cloud-state-target/{target}", "crashes",
                         ["run", WEBSERVER, "--model", ENVIRONMENT, "--cloud-state", target], codes=(1, 2)))
    # Batch protocols: a bad line is answered and the batch goes on.
    bad_lines = {
        "invalid-utf8": b'{"id": 1, "expr": "caf\xff"}',
        "lone-continuation": b"\x80\x80\x80",
        "overlong": b"\xc0\xaf",
        "surrogate": b'"\xed\xa0\x80"',
        "not-json": b"hello",
        "json-array": b"[1, 2]",
        "json-null": b"null",
        "truncated": b'{"id": 1, "expr": ',
        "deep": b"[" * 100000 + b"]" * 100000,
        "deep-object": b'{"a":' * 100000 + b"1" + b"}" * 100000,
        "nul": b'{"id": 1}\x00',
        "crlf": b'{"id": 1, "expr": "1"}\r',
        "bigint-id": b'{"id": 123456789012345678901234567890, "expr": "1", "op": "x", "kind": "parse"}',
        "wrong-types": b'{"id": {}, "expr": 5, "data": "x", "vars": [], "options": 7, "op": 5, "kind": 5}',
        "long-line": b'{"id": 1, "expr": "' + b"1 + " * (2 * MIB) + b'1"}',
    }
    follow = {"yaql": b'{"id": 99, "expr": "1 + 1"}',
              "run": b'{"op": "finalize", "session": 7}',
              "policy": b'{"id": 99, "kind": "parse", "text": "p(1)"}'}
    argvs = {"yaql": ["yaql", "--batch"], "run": ["run", "--batch", "--timeout", "5"],
             "policy": ["policy", "eval", "--batch"]}
    for proto in ("yaql", "run", "policy"):
        for name, line in bad_lines.items():
            stdin = line + b"\n" + follow[proto] + b"\n"
            out.append(Probe(f"crashes/batch-{proto}/{name}", "crashes", argvs[proto], stdin=stdin,
                             codes=(0,), rss_mb=RSS_INPUT_LIMIT, check=lines_answered(2, follow_ok=proto)))
        out.append(Probe(f"crashes/batch-{proto}/no-final-newline", "crashes", argvs[proto],
                         stdin=bad_lines["invalid-utf8"] + b"\n" + follow[proto], codes=(0,),
                         check=lines_answered(2, follow_ok=proto)))
        out.append(Probe(f"crashes/batch-{proto}/empty-lines", "crashes", argvs[proto],
                         stdin=b"\n\n" + follow[proto] + b"\n", codes=(0,)))
        out.append(Probe(f"crashes/batch-{proto}/zero", "resources", argvs[proto], stdin="/dev/zero",
                         codes=(0, 1, 2), rss_mb=RSS_INPUT_LIMIT, budget=20))
        out.append(Probe(f"crashes/batch-{proto}/binary", "crashes", argvs[proto], stdin=f["binary"],
                         codes=(0, 1, 2), rss_mb=RSS_INPUT_LIMIT, budget=20))
    # Policies: deep rule chains, explain on them, cyclic class hierarchies.
    for n in ("chain-6k", "chain-20k"):
        top = "p6000(1)" if n == "chain-6k" else "p20000(1)"
        out.append(Probe(f"crashes/policy-explain/{n}", "crashes",
                         ["policy", "explain", POLICY_MODEL, "--policy", f[n], "--atom", top],
                         codes=(0, 1), budget=20, stderr_max=STDERR_CAP))
        out.append(Probe(f"crashes/policy-explain-recursive/{n}", "crashes",
                         ["policy", "explain", POLICY_MODEL, "--policy", f[n], "--atom", top, "--kind", "recursive"],
                         codes=(0, 1), budget=20))
        out.append(Probe(f"crashes/policy-eval/{n}", "crashes",
                         ["policy", "eval", "--rules", f[n], "--query", top], codes=(0, 1), budget=20))
        out.append(Probe(f"crashes/policy-validate/{n}", "crashes",
                         ["policy", "validate", POLICY_MODEL, "--policy", f[n]], codes=(0, 1), budget=20))
    out.append(Probe("crashes/policy-explain/predeploy-chain", "crashes",
                     ["policy", "explain", POLICY_MODEL, "--policy", f["policy-predeploy-chain"],
                      "--atom", 'predeploy_errors("e", "o", "m")'], codes=(0, 1), budget=20))
    for rules in ("recursive", "neg-cycle", "unsafe", "deep-term", "long-rule"):
        for kind in ("nonrecursive", "recursive", "action", "database", "nope"):
            out.append(Probe(f"crashes/policy-eval-kind/{rules}/{kind}", "crashes",
                             ["policy", "eval", "--rules", f[rules], "--kind", kind, "--query", "p(x)",
                              "--timeout", "5"], codes=(0, 1, 2), budget=10, rss_mb=RSS_INPUT_LIMIT))
    for atom in ("", "p(", "p(x)", "p(1", "not p(1)", "p(1) :- q(1)", "(" * 50000, "p(" + "f(" * 50000,
                 "predeploy_errors(\"e\")"):
        out.append(Probe(f"crashes/policy-explain-atom/{atom[:24]!r}", "crashes",
                         ["policy", "explain", POLICY_MODEL, "--policy", POLICY_RULES, "--atom", atom],
                         codes=(1, 2)))
        out.append(Probe(f"crashes/policy-eval-query/{atom[:24]!r}", "crashes",
                         ["policy", "eval", "--rules", POLICY_RULES, "--query", atom], codes=(0, 1, 2)))
    for classes in ("classes-cyclic", "classes-bad"):
        for cmd in ("rules", "validate"):
            extra = ["--policy", POLICY_RULES] if cmd == "validate" else []
            out.append(Probe(f"crashes/policy-{cmd}-classes/{classes}", "crashes",
                             ["policy", cmd, POLICY_MODEL, "--classes", f[classes]] + extra, codes=(0, 1)))
    out.append(Probe("crashes/policy-eval/target-missing", "crashes",
                     ["policy", "eval", "--rules", POLICY_RULES, "--target", "nope", "--query", "p(x)"],
                     codes=(0, 1, 2)))
    out.append(Probe("crashes/policy-eval/no-rules", "crashes", ["policy", "eval", "--query", "p(x)"],
                     codes=(0, 1, 2)))
    for spec in ("name=", "=x", ":=x", "a:nope=" + POLICY_RULES, "a:recursive=/dev/zero", "nofile"):
        out.append(Probe(f"crashes/policy-eval-policy/{spec}", "crashes",
                         ["policy", "eval", "--rules", POLICY_RULES, "--policy", spec, "--query", "p(x)"],
                         codes=(1, 2), rss_mb=RSS_INPUT_LIMIT))
    # Spec trees and plugins.
    for name in ("help-option", "short-h", "unknown-type", "dup-names", "dup-names-groups", "dup-shorts",
                 "symlink-cycle", "symlink-loop", "zero", "bad-utf8", "binary", "deep", "list-root",
                 "bad-short", "nargs", "many-options", "ok"):
        root = f[f"spec-{name}"]
        ok = name in ("ok", "symlink-cycle", "symlink-loop", "many-options")
        codes = (0,) if ok else (1, 2)
        if name == "zero":
            # A device is not a spec file: the tree walk passes it by.
            ok, codes = True, (0, 1, 2)
        rss = RSS_INPUT_LIMIT if name in ("zero", "binary", "deep") else RSS_SMALL
        for fmt in ("text", "json"):
            for tail in (["--dry-run", "hello", "world", "--out-file", "x"], ["--dump-settings", "json", "hello", "world", "--out-file", "x"],
                         ["hello", "--help"], ["--completions", "bash"], ["hello", "world", "--help"]):
                tag = "-".join(t.strip("-") for t in tail[:2])
                out.append(Probe(f"crashes/spec/{name}/{tag}/{fmt}", "crashes",
                                 ["spec", "--settings", root, "--format", fmt] + tail,
                                 codes=codes if not ok else (0,), rss_mb=rss,
                                 json=fmt == "json" and not ok, budget=10,
                                 position=(name in ("bad-utf8", "help-option", "short-h", "dup-shorts",
                                                    "unknown-type", "dup-names"))))
    for name in ("help-option", "short-h", "dup-names", "dup-shorts", "unknown-type", "bad-required-when",
                 "zero", "bad-utf8", "binary", "deep", "list-root", "no-main", "no-spec", "vars-cycle",
                 "nargs-bad", "ok"):
        root = f[f"plugin-{name}"]
        ok = name in ("ok", "vars-cycle")
        rss = RSS_INPUT_LIMIT if name in ("zero", "binary", "deep") else RSS_SMALL
        for fmt in ("text", "json"):
            out.append(Probe(f"crashes/plugin-add/{name}/{fmt}", "crashes",
                             ["plugin", "--workspace", "{W}", "--format", fmt, "add", root],
                             codes=(0,) if ok else (1, 2), rss_mb=rss, json=fmt == "json" and not ok))
            out.append(Probe(f"crashes/ir/{name}/{fmt}", "crashes",
                             ["ir", "--workspace", "{W}", "--format", fmt, root + "/", "--help"],
                             codes=(0,) if ok else (1, 2), rss_mb=rss, json=fmt == "json" and not ok))
            out.append(Probe(f"crashes/ir-dry-run/{name}/{fmt}", "crashes",
                             ["ir", "--workspace", "{W}", "--format", fmt, root + "/", "--dry-run",
                              "--name", "x"] + (["--style", "up/up/up"] if name == "vars-cycle" else []),
                             codes=(0, 1, 2), rss_mb=rss, json=fmt == "json" and not ok))
    for args in (["remove", "nope"], ["list"], ["add", "/nonexistent"], ["add", "{W}"]):
        for fmt in ("text", "json"):
            out.append(Probe(f"crashes/plugin/{'-'.join(a.strip('{}/') for a in args)}/{fmt}", "crashes",
                             ["plugin", "--workspace", "{W}", "--format", fmt] + args,
                             codes=(0, 1, 2), json=fmt == "json"))
    for ws in ("/dev/null", "/dev/zero", "/proc/self/nope"):
        out.append(Probe(f"crashes/plugin-workspace/{ws}", "crashes",
                         ["plugin", "--workspace", ws, "add", HELLO_PLUGIN], codes=(1, 2)))
        out.append(Probe(f"crashes/ir-workspace/{ws}", "crashes",
                         ["ir", "--workspace", ws, "hello", "--help"], codes=(1, 2)))
    out.append(Probe("crashes/plugin-ini-zero", "crashes", ["plugin", "list"], codes=(1, 2),
                     setup=lambda w: (os.makedirs(f"{w}/xdg/vetro"),
                                      os.symlink("/dev/zero", f"{w}/xdg/vetro/plugins.ini")),
                     rss_mb=RSS_INPUT_LIMIT))
    out.append(Probe("crashes/plugin-ini-binary", "crashes", ["plugin", "list"], codes=(0, 1, 2),
                     setup=lambda w: (os.makedirs(f"{w}/xdg/vetro"),
                                      shutil.copy(f["binary"], f"{w}/xdg/vetro/plugins.ini"))))
    for ans in ("binary", "bad-utf8", "zero", "long-line"):
        out.append(Probe(f"crashes/ir-answers-file/{ans}", "crashes",
                         ["ir", "--workspace", "{W}", HELLO_PLUGIN + "/", "--from-file", f[ans], "--dry-run"],
                         codes=(1, 2), rss_mb=RSS_INPUT_LIMIT))
        out.append(Probe(f"crashes/ir-extra-vars-file/{ans}", "crashes",
                         ["ir", "--workspace", "{W}", HELLO_PLUGIN + "/", "--out-file", "x", "--dry-run",
                          "-e", "@" + f[ans]], codes=(1, 2), rss_mb=RSS_INPUT_LIMIT))
    for ev in ("=", "a", "a.b.c=", ".=1", "a..b=1", "a=@/dev/zero", "@", "a." * 10000 + "a=1"):
        out.append(Probe(f"crashes/ir-extra-vars/{ev[:16]!r}", "crashes",
                         ["ir", "--workspace", "{W}", HELLO_PLUGIN + "/", "--out-file", "x", "--dry-run",
                          "-e", ev], codes=(0, 1, 2), rss_mb=RSS_INPUT_LIMIT))
    # TOSCA: import cycles, derived_from cycles, hostile grammars.
    for name in ("tosca-import-cycle", "tosca-self-import", "tosca-import-zero", "tosca-import-missing",
                 "tosca-import-url", "tosca-derived-cycle", "tosca-derived-self", "tosca-deep-requirement"):
        for cmd in ("validate", "types"):
            for fmt in ("text", "json"):
                out.append(Probe(f"crashes/tosca-{cmd}/{name}/{fmt}", "crashes",
                                 ["tosca", cmd, f[name], "--format", fmt], codes=(0, 1, 2),
                                 rss_mb=RSS_INPUT_LIMIT, budget=15, json=fmt == "json" and cmd == "validate"))
    for g in ("tosca-bad-grammar", "tosca-grammar-cycle"):
        out.append(Probe(f"crashes/tosca-grammar/{g}", "crashes",
                         ["tosca", "validate", TOSCA, "--grammar", f[g]], codes=(1, 2)))
    # The service commands refuse bad databases and files quickly.
    with open(f["binary"], "rb") as fh:
        not_a_database = fh.read()
    for db in ("sqlite:///nonexistent/dir/v.db", "sqlite://{W}/binary.db", "sqlite://{W}",
               "postgres://nobody@127.0.0.1:9/x", "mysql://x", "", "sqlite://", "://"):
        for cmd in (["db", "migrate"], ["token", "create", "--project", "p", "--user", "u"],
                    ["worker", "--concurrency", "1"], ["serve", "--listen", "127.0.0.1:0"]):
            codes = (1, 2)
            if db == "sqlite://":
                # An in-memory database: fine for one command, and the
                # service would run (until killed) on it.
                if cmd[0] in ("worker", "serve"):
                    continue
                codes = (0, 1, 2)
            check = unchanged(lambda w: f"{w}/binary.db", not_a_database)
            out.append(Probe(f"crashes/{cmd[0]}-db/{db.replace('{W}', 'W')[:32]}", "crashes",
                             cmd + ["--db", db], codes=codes, budget=10, check=check,
                             setup=lambda w: shutil.copy(f["binary"], f"{w}/binary.db")))
    for policy in ("bad-utf8", "binary", "zero", "missing", "directory", "long-line"):
        for cmd in (["serve", "--listen", "127.0.0.1:0"], ["worker"]):
            out.append(Probe(f"crashes/{cmd[0]}-policy/{policy}", "crashes",
                             cmd + ["--db", "sqlite://{W}/v.db", "--policy", f[policy]],
                             codes=(1, 2), budget=15, rss_mb=RSS_INPUT_LIMIT))
    for listen in ("nope", "127.0.0.1:99999", "[::1", "256.0.0.1:80", ""):
        out.append(Probe(f"crashes/serve-listen/{listen or 'empty'}", "crashes",
                         ["serve", "--db", "sqlite://{W}/v.db", "--listen", listen], codes=(1, 2), budget=15))
    for pd in ("/dev/null", "/proc/nope", "{W}/file"):
        out.append(Probe(f"crashes/serve-packages-dir/{pd}", "crashes",
                         ["serve", "--db", "sqlite://{W}/v.db", "--listen", "nope", "--packages-dir", pd],
                         codes=(1, 2), budget=15, setup=lambda w: write(f"{w}/file", "x")))
    for args in (["--project", "", "--user", ""], ["--project", "p" * 100000, "--user", "u"],
                 ["--project", "a\nb", "--user", "\x01"]):
        out.append(Probe(f"crashes/token-create/{len(args[1])}", "crashes",
                         ["token", "create", "--db", "sqlite://{W}/v.db"] + args, codes=(0, 1, 2)))
    # Options that could collide with generated parsers.
    for argv in (["ir", "hello", "--help"], ["ir"], ["ir", ""], ["ir", "/"], ["ir", "-"], ["spec"],
                 ["spec", "--settings", "/nonexistent"], ["spec", "--settings", "/dev/null", "x"],
                 ["spec", "--settings", "/", "--dump-settings", "json"],
                 ["yaql", "--set", "x"], ["yaql", "--set", "=1", "$"], ["yaql", "--set", "x=nope", "$x"],
                 ["yaql", "--set", "x=" + "[" * 100000, "$x"], ["yaql", "--set", "x=1e400", "$x"],
                 ["yaql", "--set", "x=NaN", "$x"], ["yaql", ""], ["yaql", "$", "--data", "/dev/null"],
                 ["yaml", "convert", "a", "b"], ["check"], ["test"], ["policy", "rules"],
                 ["murano", "check", "/nonexistent"], ["murano", "test", "/nonexistent"],
                 ["test", WEBSERVER, "--filter", "(" * 1000], ["test", WEBSERVER, "--filter", "nomatch"],
                 ["tosca", "validate"], ["tosca", "types", "a", "b"], ["nope"], ["--nope"], ["run", "--batch", "x"]):
        out.append(Probe(f"crashes/usage/{' '.join(a[:20] for a in argv)[:60]!r}", "crashes", argv,
                         codes=(0, 1, 2), rss_mb=RSS_SMALL))
    return out


def probes_pipes(f):
    """Output into a closed pipe ends quietly (exit 0, nothing on stderr)."""
    many = "\n".join(json.dumps({"id": i, "expr": "range(100)"}) for i in range(2000)) + "\n"
    policy_many = "\n".join(json.dumps({"id": i, "kind": "parse", "text": "p(1)"}) for i in range(5000)) + "\n"
    run_many = "\n".join(json.dumps({"op": "finalize", "session": i}) for i in range(20000)) + "\n"
    cases = {
        "yaql": (["yaql", "range(1000000)"], None),
        "yaql-yaml": (["yaql", "range(1000000)", "--format", "yaml"], None),
        "yaql-batch": (["yaql", "--batch"], many.encode()),
        "tosca-types": (["tosca", "types", TOSCA], None),
        "tosca-types-json": (["tosca", "types", TOSCA, "--format", "json"], None),
        "check-expressions": (["check", "--expressions", WEBSERVER], None),
        "check-expressions-json": (["check", "--expressions", WEBSERVER, "--format", "json"], None),
        "yaml-convert": (["yaml", "convert", f["many-objects"]], None),
        "yaml-convert-yaml": (["yaml", "convert", f["many-objects"], "--to", "yaml"], None),
        "policy-rules": (["policy", "rules", POLICY_MODEL], None),
        "policy-validate": (["policy", "validate", POLICY_MODEL, "--policy", POLICY_RULES, "--group"], None),
        "policy-eval": (["policy", "eval", "--rules", f["facts-40k"], "--query", "f(x, y)"], None),
        "policy-eval-batch": (["policy", "eval", "--batch"], policy_many.encode()),
        "run": (["run", WEBSERVER, "--model", ENVIRONMENT], None),
        "run-json": (["run", WEBSERVER, "--model", ENVIRONMENT, "--format", "json"], None),
        "run-batch": (["run", "--batch"], run_many.encode()),
        "test": (["test", WEBSERVER], None),
        "test-json": (["test", WEBSERVER, "--format", "json"], None),
        "spec-dump": (["spec", "--settings", f["spec-many-options"], "--dump-settings", "yaml", "hello", "world",
                       "--out-file", "x"], None),
        "spec-help": (["spec", "--settings", f["spec-many-options"], "hello", "--help"], None),
        "spec-completions": (["spec", "--settings", f["spec-many-options"], "--completions", "zsh"], None),
        "ir-help": (["ir", HELLO_PLUGIN + "/", "--help"], None),
        "ir-dry-run": (["ir", HELLO_PLUGIN + "/", "--out-file", "x", "--dry-run"], None),
        "ir-answers": (["ir", HELLO_PLUGIN + "/", "--generate-answers-file", "/dev/stdout"], None),
        "help": (["--help"], None),
        "run-help": (["run", "--help"], None),
        "plugin-list": (["plugin", "list"], None),
        "yaml-check": (["yaml", "check", f["many-objects"]], None),
        "murano-check-expressions": (["murano", "check", "--expressions", WEBSERVER], None),
    }
    out = []
    for name, (argv, stdin) in cases.items():
        for n in (0, 1, 64):
            out.append(Probe(f"crashes/broken-pipe/{name}/{n}", "crashes", argv, stdin=stdin, codes=(0,),
                             head=n, budget=20, rss_mb=RSS_INPUT_LIMIT, check=quiet_stderr))
    return out


def probes_resources(f):
    out = []
    out.append(Probe("resources/policy-load/rules-40k", "resources",
                     ["policy", "eval", "--rules", f["rules-40k"], "--query", "p39999(x)"],
                     codes=(0,), budget=10))
    out.append(Probe("resources/policy-load/facts-40k", "resources",
                     ["policy", "eval", "--rules", f["facts-40k"], "--query", 'f("39999", x)'],
                     codes=(0,), budget=10))
    out.append(Probe("resources/policy-validate/rules-40k", "resources",
                     ["policy", "validate", POLICY_MODEL, "--policy", f["rules-40k"]], codes=(0,), budget=10))
    for cmd, argv in {
        "yaql-data": ["yaql", "$.len()", "--data", f["big-json"]],
        "yaql-data-stdin": ["yaql", "$.len()", "--data", "-"],
        "yaml-check": ["yaml", "check", f["big-json"]],
        "yaml-convert": ["yaml", "convert", f["big-json"]],
        "policy-rules": ["policy", "rules", f["big-json"]],
        "run-model": ["run", WEBSERVER, "--model", f["big-json"], "--timeout", "10"],
        "tosca-validate": ["tosca", "validate", f["big-json"]],
    }.items():
        stdin = f["big-json"] if cmd.endswith("-stdin") else None
        out.append(Probe(f"resources/big-json/{cmd}", "resources", argv, stdin=stdin, codes=(0, 1),
                         budget=30, rss_mb=900))
    for cmd, argv in {
        "yaql-data": ["yaql", "$.len()", "--data", f["many-objects"]],
        "yaml-check": ["yaml", "check", f["many-objects"]],
        "policy-rules": ["policy", "rules", f["many-objects"]],
        "yaql-batch": ["yaql", "--batch"],
    }.items():
        stdin = None
        if cmd == "yaql-batch":
            stdin = (json.dumps({"id": 1, "expr": "$.len()"})[:-1] + ', "data": ' +
                     read_text(f["many-objects"]) + "}\n").encode()
        out.append(Probe(f"resources/many-objects/{cmd}", "resources", argv, stdin=stdin, codes=(0, 1),
                         budget=30, rss_mb=900))
    # Error excerpts stay short however long the offending line.
    out.append(Probe("resources/excerpt/yaql-long-expr", "resources",
                     ["yaql", "1 + " * 30000 + ")"], codes=(1, 2), rss_mb=RSS_INPUT_LIMIT))
    out.append(Probe("resources/excerpt/policy-long-line", "resources",
                     ["policy", "eval", "--rules", f["long-line"], "--query", "p(x)"], codes=(1, 2),
                     rss_mb=RSS_INPUT_LIMIT))
    out.append(Probe("resources/excerpt/policy-atom-long", "resources",
                     ["policy", "eval", "--rules", POLICY_RULES, "--query", "p(" + "x, " * 40000 + ")"],
                     codes=(1, 2), rss_mb=RSS_INPUT_LIMIT))
    out.append(Probe("resources/excerpt/run-action-long", "resources",
                     ["run", WEBSERVER, "--model", ENVIRONMENT, "--action", "a" * 100000 + "/x"],
                     codes=(1, 2), rss_mb=RSS_INPUT_LIMIT))
    out.append(Probe("resources/excerpt/yaql-set-long", "resources",
                     ["yaql", "$x", "--set", "x=" + "[1," * 30000], codes=(0, 1, 2), rss_mb=RSS_INPUT_LIMIT))
    out.append(Probe("resources/laughs/yaql-data", "resources", ["yaql", "$", "--data", f["anchors"]],
                     codes=(1, 2)))
    out.append(Probe("resources/laughs/run-model", "resources",
                     ["run", WEBSERVER, "--model", f["anchors"]], codes=(1, 2)))
    out.append(Probe("resources/huge-method-count/check", "resources", ["check", f["pkg-huge-method-count"]],
                     codes=(0, 1), budget=20, rss_mb=600))
    out.append(Probe("resources/huge-method-count/run", "resources",
                     ["run", f["pkg-huge-method-count"], "--model", f"{f['pkg-huge-method-count']}/model.json"],
                     codes=(0,), budget=20, rss_mb=600))
    out.append(Probe("resources/tosca/many-types", "resources", ["tosca", "validate", f["tosca-many-types"]],
                     codes=(0, 1), budget=10, rss_mb=600))
    return out


def probes_readme(f):
    """Exit codes and JSON errors as README.md promises them."""
    out = []
    ok = [
        (["run", WEBSERVER, "--model", ENVIRONMENT], 0),
        (["test", WEBSERVER], 0),
        (["check", WEBSERVER], 0),
        (["yaql", "$.where($.a > 1).select($.b)", "--data", ITEMS], 0),
        (["tosca", "validate", TOSCA, "--format", "json"], 0),
        (["policy", "validate", POLICY_MODEL, "--policy", POLICY_RULES, "--group"], 0),
        (["policy", "validate", POLICY_MODEL, "--policy", POLICY_RULES, "--exit-code"], 1),
        (["yaml", "convert", os.path.join(EXAMPLES, "app.yaml"), "--to", "json"], 0),
        (["yaml", "check", f["dup-keys"]], 1),
        (["yaml", "check", f["missing"]], 2),
        (["yaml", "nope"], 2),
        (["yaql", "1 +"], 1),
        (["yaql", "1 +", "--format", "json"], 1),
        (["yaql", "$", "--data", f["missing"]], 2),
        (["yaql", "$", "--data", f["missing"], "--format", "json"], 2),
        (["tosca", "validate", f["missing"]], 2),
        (["tosca", "validate", f["missing"], "--format", "json"], 2),
        (["tosca", "validate", f["dup-keys"], "--format", "json"], 1),
        (["run", WEBSERVER, "--model", f["missing"]], 2),
        (["run", WEBSERVER, "--model", f["missing"], "--format", "json"], 2),
        (["check", "/nonexistent/pkg"], 2),
        (["check", "/nonexistent/pkg", "--format", "json"], 2),
        (["test", "/nonexistent/pkg", "--format", "json"], 2),
        (["policy", "rules", f["missing"], "--format", "json"], 2),
        (["policy", "validate", POLICY_MODEL, "--policy", f["missing"], "--format", "json"], 2),
        (["policy", "eval", "--rules", f["missing"], "--query", "p(x)", "--format", "json"], 2),
        (["policy", "eval", "--rules", f["recursive"], "--query", "p(x)", "--format", "json"], 1),
        (["spec", "--settings", f["missing"], "--format", "json", "x"], 2),
        (["plugin", "--workspace", "{W}", "--format", "json", "add", f["missing"]], 2),
        (["ir", "--workspace", "{W}", "--format", "json", "nope-not-installed"], 2),
        (["yaml", "check", f["bad-utf8"], "--format", "json"], 1),
        (["yaml", "check", f["bad-utf8"]], 1),
        (["yaql", "$", "--data", f["bad-utf8"]], 1),
        (["run", WEBSERVER, "--model", f["dup-keys"]], 1),
        (["policy", "rules", f["dup-keys"]], 1),
        (["yaql", "$", "--data", f["dup-keys"]], 1),
        (["run", f["pkg-cyclic"], "--model", f"{f['pkg-cyclic']}/model.json"], 1),
        (["check", f["pkg-cyclic"]], 1),
        (["check", f["pkg-self-extends"]], 1),
        (["check", f["pkg-name-mismatch"]], 1),
        (["check", f["pkg-empty-class"]], 1),
        (["check", f["pkg-outside"]], 1),
        (["spec", "--settings", f["spec-help-option"], "--dry-run", "hello", "world", "--out-file", "x"], 1),
        (["spec", "--settings", f["spec-unknown-type"], "--dry-run", "hello", "world", "--out-file", "x"], 1),
        (["spec", "--settings", f["spec-dup-shorts"], "--dry-run", "hello", "world", "--out-file", "x"], 1),
    ]
    for argv, code in ok:
        fmt_json = "--format" in argv and argv[argv.index("--format") + 1] == "json"
        out.append(Probe(f"readme/exit-{code}/{' '.join(os.path.basename(a) for a in argv)[:90]}", "readme",
                         argv, codes=(code,), json=fmt_json, budget=20,
                         position=("bad-utf8" in " ".join(argv) or "dup-keys" in " ".join(argv))))
    with open(f["state-foreign"], "rb") as fh:
        foreign = fh.read()
    for state in ("state-foreign", "state-truncated"):
        with open(f[state], "rb") as fh:
            original = fh.read()
        for fmt in ("text", "json"):
            out.append(Probe(f"readme/cloud-state-refused/{state}/{fmt}", "data",
                             ["run", WEBSERVER, "--model", ENVIRONMENT, "--cloud-state", "{W}/state.json",
                              "--format", fmt],
                             codes=(1, 2), json=fmt == "json",
                             setup=lambda w, o=original: write(f"{w}/state.json", o),
                             check=unchanged(lambda w: f"{w}/state.json", original)))
    del foreign
    # Number edge cases read the same on every JSON path.
    for num in ("123456789012345678901234567890", "-9223372036854775809", "1e400", "-1e400", "1e-400",
                "18446744073709551615", "9223372036854775807", "-0", "0.1e1"):
        out.append(Probe(f"readme/number/yaql-data/{num}", "data", ["yaql", "$", "--data", "-"],
                         stdin=("[" + num + "]").encode(), codes=(0, 1)))
        out.append(Probe(f"readme/number/yaql-set/{num}", "data", ["yaql", "$x", "--set", "x=" + num],
                         codes=(0, 1)))
        out.append(Probe(f"readme/number/yaql-expr/{num}", "data", ["yaql", "--", num], codes=(0, 1)))
        out.append(Probe(f"readme/number/policy-rules/{num}", "data", ["policy", "rules", "-"],
                         stdin=('{"?": {"id": "e", "type": "io.murano.Environment"}, "n": ' + num + "}").encode(),
                         codes=(0, 1)))
        out.append(Probe(f"readme/number/run-model/{num}", "data",
                         ["run", f["pkg-shared-result-60"].replace("shared-result-60", "infinite-loop"),
                          "--model", "-", "--method", "nope"],
                         stdin=('{"?": {"id": "m1", "type": "demo.Main"}, "n": ' + num + "}").encode(),
                         codes=(1, 2)))
        out.append(Probe(f"readme/number/yaml-convert/{num}", "data", ["yaml", "convert", "-"],
                         stdin=("a: " + num + "\n").encode(), codes=(0, 1), check=json_stdout))
    return out


# ---------------------------------------------------------------- checks


def batch_session(pkg):
    lines = [
        {"op": "begin", "classes_dir": f"{pkg}/Classes"},
        {"op": "load", "session": 1, "model": {"?": {"id": "m1", "type": "demo.Main"}}},
        {"op": "call", "session": 1, "receiver": {"object": "m1"}, "method": "deploy"},
        {"op": "finalize", "session": 1},
    ]
    return ("\n".join(json.dumps(x) for x in lines) + "\n").encode()


def json_lines(data):
    out = []
    for line in data.splitlines():
        if line.strip():
            out.append(json.loads(line))
    return out


def batch_answers(n, failed_call=False, last_value=None):
    """A check that a batch answered all `n` lines as JSON; with `failed_call`
    the third answer (a call over its limits) must have failed, with
    `last_value` the last answer must carry that value."""
    def check(r):
        try:
            answers = json_lines(r.stdout)
        except ValueError as e:
            return f"batch output is not JSON lines: {e}"
        if len(answers) != n:
            return f"{len(answers)} answers to {n} requests"
        if failed_call and answers[2].get("ok"):
            return "the call within limits succeeded"
        if last_value is not None and answers[-1].get("value") != last_value:
            return f"the case after the bomb got {answers[-1]}"
        return None
    return check


def lines_answered(n, follow_ok):
    def check(r):
        try:
            answers = json_lines(r.stdout)
        except ValueError as e:
            return f"batch output is not JSON lines: {e}"
        if len(answers) != n:
            return f"{len(answers)} answers to {n} lines"
        last = answers[-1]
        good = {"yaql": last.get("value") == 2, "run": last.get("ok") is True,
                "policy": last.get("result") == ["p(1)"]}[follow_ok]
        if not good:
            return f"the good line after the bad one got {last}"
        return None
    return check


LIMIT_ERRORS = re.compile(rb"LimitExceeded|RecursionError|nested deeper|CollectionTooLarge")


def stopped_by_limit(r):
    """The run ended on one of its limits, not on something else (a syntax
    error in the probe's own program would pass for a limit otherwise)."""
    if not LIMIT_ERRORS.search(r.stdout + r.stderr):
        return f"not stopped by a limit: {(r.stdout + r.stderr)[-200:]!r}"
    return None


def keeps_other_tests(r):
    text = (r.stdout + r.stderr).decode("utf-8", "replace")
    for t in ("testAFirst", "testCLast"):
        if t not in text:
            return f"{t} is missing from the report"
    return None


CLOSED_PIPE_NOISE = re.compile(rb"(?i)broken pipe|os error 32|cannot write|error")


def quiet_stderr(r):
    if CLOSED_PIPE_NOISE.search(r.stderr):
        return f"an error after a closed pipe: {r.stderr[:200]!r}"
    return None


def json_stdout(r):
    if r.code == 0:
        try:
            json.loads(r.stdout)
        except ValueError as e:
            return f"stdout is not JSON: {e}"
    return None


def parses_as_json(data):
    text = data.decode("utf-8", "replace").strip()
    if not text:
        return True
    try:
        json.loads(text)
        return True
    except ValueError:
        pass
    try:
        json_lines(text)
        return True
    except ValueError:
        return False


# ---------------------------------------------------------------- running


def rss_now_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def prepare(probe, fixtures_root, work_root):
    """This probe's working folder (set up) and its command line."""
    work = tempfile.mkdtemp(prefix="w", dir=work_root)
    if probe.setup:
        probe.setup(work)
    argv = [a.replace("{D}", fixtures_root).replace("{W}", work) for a in probe.argv]
    if isinstance(probe.stdin, bytes):
        stdin = write(f"{work}/.stdin", probe.stdin)
    else:
        stdin = probe.stdin or "/dev/null"
    return work, argv, stdin


def execute(binary, work, args, stdin_path, head, budget, rss_cap):
    """Runs one probe's command (in a pool process, see main) and measures it."""
    r = Result(work=work)
    argv = [binary] + args
    env = dict(os.environ, HOME=work, XDG_DATA_HOME=f"{work}/xdg", NO_COLOR="1", RUST_BACKTRACE="0")
    env.pop("VETRO_ANSIBLE_PLAYBOOK", None)
    out_path, err_path = f"{work}/.stdout", f"{work}/.stderr"
    with open(stdin_path, "rb") as sin, open(out_path, "wb") as sout, open(err_path, "wb") as serr:
        start = time.monotonic()
        try:
            p = subprocess.Popen(argv, stdin=sin, stdout=subprocess.PIPE if head is not None else sout,
                                 stderr=serr, cwd=work, env=env, start_new_session=True)
        except OSError as e:
            r.killed = f"could not start: {e}"
            r.code = None
            return r
        if head is not None:
            got = b""
            fd = p.stdout.fileno()
            while len(got) < head and time.monotonic() - start < budget:
                ready, _, _ = select.select([fd], [], [], 0.1)
                if ready:
                    chunk = os.read(fd, head - len(got))
                    if not chunk:
                        break
                    got += chunk
            if head == 0:
                # Let the program start writing before the pipe closes.
                time.sleep(0.05)
            p.stdout.close()
            sout.write(got)
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            elapsed = time.monotonic() - start
            if pid:
                break
            rss = rss_now_mb(p.pid)
            r.rss_mb = max(r.rss_mb, rss)
            if elapsed > budget:
                r.killed = f"over its {budget:g} s time budget"
            elif rss > rss_cap:
                r.killed = f"over its {rss_cap} MiB memory cap ({rss:.0f} MiB)"
            if r.killed:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                pid, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.005 if elapsed < 0.2 else 0.02)
        p.returncode = 0  # reaped above
        # Children (none expected) go with the process group.
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    r.seconds = time.monotonic() - start
    r.rss_mb = max(r.rss_mb, usage.ru_maxrss / 1024)
    if os.WIFSIGNALED(status):
        r.signal = os.WTERMSIG(status)
    else:
        r.code = os.WEXITSTATUS(status)
    r.stderr_size = os.path.getsize(err_path)
    with open(err_path, "rb") as fh:
        r.stderr = fh.read(1 * MIB)
    with open(out_path, "rb") as fh:
        r.stdout = fh.read(16 * MIB)
    return r


def judge(probe, r):
    """The reasons a probe failed (empty when it passed)."""
    why = []
    if r.killed:
        why.append(r.killed)
    elif r.signal is not None:
        why.append(f"killed by signal {signal.Signals(r.signal).name}")
    if r.code == 101 or b"panicked at" in r.stderr:
        line = next((x for x in r.stderr.splitlines() if b"panicked at" in x), b"")
        why.append(f"panic {line[:200].decode('utf-8', 'replace')}".strip())
    if r.rss_mb > probe.rss_mb and not r.killed:
        why.append(f"peak RSS {r.rss_mb:.0f} MiB over its {probe.rss_mb} MiB cap")
    if r.killed or r.signal is not None:
        return why
    if r.code not in probe.codes:
        first = r.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
        why.append(f"exit {r.code}, expected {'/'.join(map(str, probe.codes))}"
                   + (f" ({first[0][:160]})" if first else ""))
    if r.stderr_size > probe.stderr_max:
        why.append(f"stderr of {r.stderr_size} bytes (cap {probe.stderr_max})")
    if probe.json and CLAP_USAGE.encode() not in r.stderr:
        streams = [("stdout", r.stdout)] if probe.json_stdout else []
        streams += [("stderr", r.stderr)] if probe.json_stderr else []
        for stream, data in streams:
            if r.stderr_size <= probe.stderr_max and not parses_as_json(data):
                why.append(f"{stream} is not JSON: {data[:120]!r}")
    if probe.position and r.code != 0 and CLAP_USAGE.encode() not in r.stderr:
        text = (r.stdout + r.stderr).decode("utf-8", "replace")
        if not (POSITION.search(text) or '"line"' in text):
            why.append("error without a file:line:column position")
    if probe.check:
        msg = probe.check(r)
        if msg:
            why.append(msg)
    return why


def fixtures_in_child(root):
    """Builds the fixtures in a forked child and returns their paths. The
    runner's own memory stays small: a child's peak RSS (`ru_maxrss`) counts
    the pages it had between fork and exec, that is, the runner's."""
    index = f"{root}.json"
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            with open(index, "w") as fh:
                json.dump(build_fixtures(root), fh)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise SystemExit("probes: building the fixtures failed")
    with open(index) as fh:
        return json.load(fh)


def all_probes(f, root):
    probes = []
    for make in (probes_limits, probes_timeouts, probes_crashes, probes_pipes, probes_resources,
                 probes_readme, probes_bad_files):
        probes.extend(make(f))
    names = set()
    for i, p in enumerate(probes):
        if p.name in names:
            raise SystemExit(f"duplicate probe name {p.name}")
        names.add(p.name)
        if isinstance(p.stdin, bytes) and len(p.stdin) > 4096:
            # Large inputs wait in files, not in the runner's memory.
            p.stdin = write(f"{root}/stdin/{i}", p.stdin)
    return probes


def known_defects():
    """Probes that fail on a known, not yet fixed defect: name -> reason."""
    known = {}
    path = os.path.join(ROOT, "scripts", "probes", "known-defects.txt")
    if os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                name, _, reason = line.partition("#")
                if name.strip():
                    known[name.strip()] = reason.strip()
    return known


# ---------------------------------------------------------------- the service
#
# One `vetro serve` on a fresh SQLite database, attacked over loopback as a
# hostile tenant would: another project's admin token on every kind of
# object, hostile package FullNames, slow clients, a flood of connections
# past the bound, one token over its rate, revoked and expired tokens. Each
# check returns None or why it failed; the server must survive them all.

SERVICE_FLAGS = ["--workers", "0", "--max-connections", "100", "--header-timeout", "3",
                 "--rate-limit", "20", "--rate-burst", "40", "--max-environments", "5",
                 "--max-model-bytes", "100000"]


class Service:
    def __init__(self, binary, work):
        import urllib.request  # noqa: F401 (used by the methods)
        self.binary, self.work = binary, work
        self.db = f"sqlite://{work}/service.db"
        out = open(f"{work}/serve.out", "w+")
        self.proc = subprocess.Popen([binary, "serve", "--db", self.db, "--listen", "127.0.0.1:0"] + SERVICE_FLAGS,
                                     stdout=out, stderr=open(f"{work}/serve.log", "w"), start_new_session=True)
        for _ in range(200):
            out.seek(0)
            text = out.read()
            if "listening on http://" in text:
                self.url = "http://" + text.split("listening on http://")[1].split()[0]
                host, port = self.url[7:].rsplit(":", 1)
                self.addr = (host, int(port))
                return
            time.sleep(0.05)
        raise SystemExit("probes: vetro serve did not start")

    def token(self, project, admin=False, expires=None):
        argv = [self.binary, "token", "create", "--db", self.db, "--project", project, "--user", "u-" + project]
        argv += ["--admin"] if admin else []
        argv += ["--expires", expires] if expires else []
        return subprocess.run(argv, check=True, capture_output=True, text=True).stdout.strip()

    def call(self, method, path, token, body=None, ctype="application/json", headers=None):
        import urllib.error
        import urllib.request
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        h = {"X-Auth-Token": token, "Accept": "application/json", **(headers or {})}
        if data is not None:
            h["Content-Type"] = ctype
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read().decode("utf-8", "replace"), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace"), dict(e.headers)

    def upload(self, token, fullname):
        import io
        import zipfile
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("manifest.yaml", json.dumps({"Format": "MuranoPL/1.4", "Type": "Application",
                                                    "FullName": fullname, "Name": "n", "Author": "a",
                                                    "Classes": {"demo.Main": "Main.yaml"}}))
            z.writestr("Classes/Main.yaml", main_class("        - Return: 1\n"))
        boundary = "probeboundary"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"p.zip\"\r\n"
                f"Content-Type: application/zip\r\n\r\n").encode() + buf.getvalue() + f"\r\n--{boundary}--\r\n".encode()
        return self.call("POST", "/v1/catalog/packages", token, body, f"multipart/form-data; boundary={boundary}")

    def slow_clients(self, n):
        import socket
        out = []
        for _ in range(n):
            s = socket.create_connection(self.addr, timeout=5)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            out.append(s)
        return out

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def service_checks(svc):
    """(name, check) pairs; each check returns None or why it failed."""
    one = svc.token("p1")
    status, text, _ = svc.call("POST", "/v1/environments", one, {"name": "secret-env"})
    eid = json.loads(text)["id"] if status == 200 else "missing"
    status, text, _ = svc.upload(one, "demo.pkg")
    pid = json.loads(text).get("id", "missing") if status == 200 else "missing"
    status, text, _ = svc.call("POST", "/v1/templates", one, {"name": "secret-template"})
    tid = json.loads(text).get("id", "missing") if status == 200 else "missing"
    admin2 = svc.token("p2", admin=True)
    made = {"environment": eid, "package": pid, "template": tid}
    checks = [("service/setup", lambda: next((f"project 1's {k} could not be made" for k, v in made.items()
                                              if v == "missing"), None))]

    def expect(method, path, token, codes, body=None, ctype="application/json", contains=None):
        def check():
            status, text, _ = svc.call(method, path, token, body, ctype)
            if status not in codes:
                return f"{method} {path} answered {status}, expected {'/'.join(map(str, codes))}: {text[:160]}"
            if contains and contains not in text:
                return f"{method} {path}: '{contains}' not in {text[:160]}"
            return None
        return check

    e = f"/v1/environments/{eid}"
    for name, method, path, body, ctype in [
        ("env-show", "GET", e, None, None),
        ("env-rename", "PUT", e, {"name": "x"}, "application/json"),
        ("env-delete", "DELETE", e + "?abandon=true", None, None),
        ("env-model", "GET", e + "/model/", None, None),
        ("env-configure", "POST", e + "/configure", None, None),
        ("env-deployments", "GET", e + "/deployments", None, None),
        ("env-action", "POST", e + "/actions/x_y", {}, "application/json"),
        ("package-show", "GET", f"/v1/catalog/packages/{pid}", None, None),
        ("package-publish", "PATCH", f"/v1/catalog/packages/{pid}",
         [{"op": "replace", "path": "/is_public", "value": True}], "application/murano-packages-json-patch"),
        ("package-download", "GET", f"/v1/catalog/packages/{pid}/download", None, None),
        ("template-show", "GET", f"/v1/templates/{tid}", None, None),
        ("template-delete", "DELETE", f"/v1/templates/{tid}", None, None),
    ]:
        checks.append((f"service/admin-of-another-project/{name}",
                       expect(method, path, admin2, (404,), body, ctype or "application/json")))
    checks.append(("service/admin/all-tenants", expect("GET", "/v1/environments?all_tenants=true", admin2, (200,),
                                                       contains=eid)))
    checks.append(("service/member/all-tenants", expect("GET", "/v1/environments?all_tenants=true", one, (403,))))
    for name, fullname in [("traversal", "../../x"), ("nul", "a\x00b"), ("rtl-override", "a\u202eb"),
                           ("html", "<img src=x onerror=alert(1)>"), ("double-dot", "a..b"),
                           ("trailing-newline", "a.b\n")]:
        def check(fullname=fullname):
            status, text, _ = svc.upload(one, fullname)
            if status != 400 or "Invalid FullName" not in text:
                return f"upload answered {status}: {text[:160]}"
            return None
        checks.append((f"service/fullname/{name}", check))

    tok = svc.token("p4")

    def slow_clients_do_not_delay_others():
        slow = svc.slow_clients(90)
        try:
            times = []
            for _ in range(30):
                t = time.perf_counter()
                status, text, _ = svc.call("GET", "/healthz", tok)
                times.append(time.perf_counter() - t)
                if status != 200:
                    return f"/healthz answered {status} beside slow clients: {text[:120]}"
            times.sort()
            if times[-2] > 0.1:
                return f"requests beside 90 slow clients took up to {times[-1] * 1000:.0f} ms"
            # The header timeout (3 s) closes them.
            slow[0].settimeout(8)
            t = time.monotonic()
            while slow[0].recv(4096):
                pass
            if time.monotonic() - t > 6:
                return "a slow client was not disconnected by the header timeout"
            return None
        finally:
            for s in slow:
                s.close()

    def connections_past_the_bound_get_503():
        # The server frees a connection's slot once its task ends, a moment
        # after the socket closes: let the check before this one drain first.
        time.sleep(1.0)
        slow = svc.slow_clients(100)
        try:
            import select
            early, _, _ = select.select(slow, [], [], 0.2)
            if early:
                return (f"{len(early)} of 100 connections were answered before the bound was reached: "
                        f"{early[0].recv(60)!r}")
            extra = svc.slow_clients(1)[0]
            extra.settimeout(5)
            answer = extra.recv(4096)
            extra.close()
            if not answer.startswith(b"HTTP/1.1 503"):
                return f"a connection past the bound got {answer[:60]!r}"
            return None
        finally:
            for s in slow:
                s.close()
            time.sleep(0.3)

    def one_token_over_its_rate_gets_429():
        busy = svc.token("p5")
        codes = [svc.call("GET", "/v1/environments", busy)[0] for _ in range(60)]
        if 429 not in codes:
            return f"60 quick requests never got 429: {sorted(set(codes))}"
        status, _, headers = svc.call("GET", "/v1/environments", busy)
        if status == 429 and "retry-after" not in {k.lower() for k in headers}:
            return "429 without Retry-After"
        return None

    def revoked_tokens_stop_within_a_second():
        t = svc.token("p6")
        if svc.call("GET", "/v1/environments", t)[0] != 200:
            return "a fresh token was refused"
        subprocess.run([svc.binary, "token", "revoke", "--db", svc.db, t], check=True, capture_output=True)
        time.sleep(1.0)
        status = svc.call("GET", "/v1/environments", t)[0]
        return None if status == 401 else f"a revoked token answered {status} after 1 s"

    def expired_tokens_are_refused():
        t = svc.token("p7", expires="1s")
        time.sleep(1.2)
        status = svc.call("GET", "/v1/environments", t)[0]
        return None if status == 401 else f"an expired token answered {status}"

    def environments_past_the_quota_get_403():
        t = svc.token("p8")
        for n in range(5):
            status, text, _ = svc.call("POST", "/v1/environments", t, {"name": f"e{n}"})
            if status != 200:
                return f"environment {n + 1} of 5 answered {status}: {text[:120]}"
        status, text, _ = svc.call("POST", "/v1/environments", t, {"name": "e5"})
        return None if status == 403 and "'environments'" in text else f"the 6th answered {status}: {text[:160]}"

    def models_past_the_quota_get_413():
        t = svc.token("p9")
        status, text, _ = svc.call("POST", "/v1/environments", t, {"name": "big"})
        env = json.loads(text)["id"]
        sid = json.loads(svc.call("POST", f"/v1/environments/{env}/configure", t)[1])["id"]
        app = {"?": {"id": "a", "type": "demo.Main"}, "blob": "x" * 60000}
        for n in range(3):
            app["?"]["id"] = f"a{n}"
            status, text, _ = svc.call("POST", f"/v1/environments/{env}/services", t, app,
                                       headers={"X-Configuration-Session": sid})
            if status == 413:
                return None if "'model_bytes'" in text else f"413 without the quota's name: {text[:160]}"
        return "three 60 KB applications grew a draft past 100 KB without a 413"

    checks += [
        ("service/quotas/environments", environments_past_the_quota_get_403),
        ("service/quotas/model-size", models_past_the_quota_get_413),
        ("service/slow-clients/others-served", slow_clients_do_not_delay_others),
        ("service/slow-clients/past-the-bound", connections_past_the_bound_get_503),
        ("service/tokens/rate-limit", one_token_over_its_rate_gets_429),
        ("service/tokens/revoked", revoked_tokens_stop_within_a_second),
        ("service/tokens/expired", expired_tokens_are_refused),
        ("service/alive", lambda: None if svc.proc.poll() is None else f"the server died ({svc.proc.returncode})"),
    ]
    return checks


def run_service_probes(binary, tmp, rx, verbose):
    """Runs the service checks whose names match `rx`; returns (passed, failed)."""
    work = f"{tmp}/service"
    os.makedirs(work)
    svc = Service(binary, work)
    passed = failed = 0
    try:
        for name, check in service_checks(svc):
            if rx and not rx.search(name):
                continue
            try:
                why = check()
            except Exception as e:  # a refused connection, a timeout: the check failed
                why = f"{type(e).__name__}: {e}"
            if why:
                failed += 1
                print(f"FAIL {name}: {why}", flush=True)
            else:
                passed += 1
                if verbose:
                    print(f"ok   {name}", flush=True)
    finally:
        svc.stop()
    return passed, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "vetro"))
    ap.add_argument("--filter", help="only probes whose name matches this regular expression")
    ap.add_argument("--list", action="store_true", help="print the probe names and exit")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every probe's outcome")
    ap.add_argument("--slowest", type=int, default=0, metavar="N", help="print the N slowest probes")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    if not args.list and not os.access(binary, os.X_OK):
        sys.exit(f"probes: no binary at {binary} (cargo build --release -p vetro-cli)")
    tmp = tempfile.mkdtemp(prefix="vetro-probes-")
    try:
        fixtures = f"{tmp}/fixtures"
        f = fixtures_in_child(fixtures)
        probes = all_probes(f, fixtures)
        if args.filter:
            rx = re.compile(args.filter)
            probes = [p for p in probes if rx.search(p.name)]
        if args.list:
            for p in probes:
                print(p.name)
            return 0
        work_root = f"{tmp}/work"
        os.makedirs(work_root)
        start = time.monotonic()
        known = known_defects()
        failed = 0
        by_kind = {}
        times = []
        # Slow probes first so that the pool ends together.
        order = sorted(probes, key=lambda p: -p.budget)
        # The commands start from small pool processes forked early by a fork
        # server: a child's peak RSS (ru_maxrss) counts the pages it had
        # between fork and exec, which would otherwise be this runner's.
        context = multiprocessing.get_context("forkserver")
        with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
            futures = {}
            for p in order:
                work, argv, stdin = prepare(p, fixtures, work_root)
                futures[pool.submit(execute, binary, work, argv, stdin, p.head, p.budget, p.rss_mb)] = p
            for fut in concurrent.futures.as_completed(futures):
                p = futures.pop(fut)
                r = fut.result()
                why = judge(p, r)
                times.append((r.seconds, p.name))
                if p.name in known:
                    if why:
                        print(f"known {p.name}: {'; '.join(why)} ({known[p.name]})", flush=True)
                    else:
                        # Near a cap a known defect may pass by chance: a note, not a failure.
                        print(f"note {p.name} passed: remove it from scripts/probes/known-defects.txt "
                              "once it passes every time", flush=True)
                    why = []
                by_kind.setdefault(p.kind, [0, 0])[1 if why else 0] += 1
                if why:
                    failed += 1
                    print(f"FAIL {p.name}: {'; '.join(why)} [{r.seconds:.1f} s, {r.rss_mb:.0f} MiB]",
                          flush=True)
                elif args.verbose:
                    print(f"ok   {p.name} [exit {r.code}, {r.seconds:.2f} s, {r.rss_mb:.0f} MiB]", flush=True)
                shutil.rmtree(r.work, ignore_errors=True)
        service_rx = re.compile(args.filter) if args.filter else None
        if not args.filter or "service" in args.filter:
            ok_count, bad = run_service_probes(binary, tmp, service_rx, args.verbose)
            by_kind["service"] = [ok_count, bad]
            failed += bad
            probes_total_extra = ok_count + bad
        else:
            probes_total_extra = 0
        took = time.monotonic() - start
        for seconds, name in sorted(times, reverse=True)[:args.slowest]:
            print(f"slow {seconds:6.2f} s {name}")
        kinds = ", ".join(f"{k} {v[0] + v[1]}" for k, v in sorted(by_kind.items()))
        print(f"{len(probes) + probes_total_extra - failed} passed, {failed} failed ({kinds}; {took:.0f} s)")
        return 1 if failed else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
