#!/usr/bin/env python3
"""Layering checks for every crate of the workspace.

1. Module import cycles. Within a crate, module A depends on its sibling B when any
   file under A names a path inside B (`use crate::b::X`, `super::b::f()`, ...).
   A parent and its own children are not compared: a child may use what its parent
   declares. Any cycle among the siblings of one parent fails the check.
2. Function length. No function outside tests may be longer than --max-fn-lines
   lines (default 150), counted from its `fn` line to its closing brace.

Usage: scripts/check_layers.py [--max-fn-lines N] [--baseline FILE] [CRATE_DIR...]
Exits 1 and lists every cycle and long function when a check fails.

With --baseline, the findings listed in FILE (one per line, as this script prints
them without the indented detail lines) are known debts: they are reported but
do not fail the check, while any new finding does. A baseline entry that no
longer occurs fails too, so the file only ever shrinks.
"""

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- lexing

def strip_code(text):
    """Blank out comments, string and char literals, keeping offsets and newlines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 260]) and not is_ident(text, i - 1):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            j = n if end < 0 else end + 1 + len(hashes)
            out.append(blank(text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(blank(text[i:j + 1]))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|\\x..|[^\\'\n])'", text[i:i + 12])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:  # a lifetime or a label
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def blank(s):
    return "".join(ch if ch == "\n" else " " for ch in s)


def is_ident(text, i):
    return i >= 0 and (text[i].isalnum() or text[i] == "_")


# ---------------------------------------------------------------- modules

def module_files(src):
    """Map each module path (tuple) of a crate to its file."""
    mods = {}

    def walk(path, file):
        mods[path] = file
        code = strip_code(file.read_text(encoding="utf-8", errors="replace"))
        for m in re.finditer(r"(#\[path\s*=\s*\"([^\"]+)\"\]\s*)?\bmod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", code):
            name = m.group(3)
            base = file.parent if file.name in ("lib.rs", "main.rs", "mod.rs") else file.parent / file.stem
            for cand in (base / f"{name}.rs", base / name / "mod.rs"):
                if cand.exists():
                    walk(path + (name,), cand)
                    break
        # inline `mod name { ... }` bodies stay part of the file's module

    for root in ("lib.rs", "main.rs"):
        if (src / root).exists():
            walk((), src / root)
    return mods


def test_ranges(code):
    """Byte ranges of `#[cfg(test)]` items, which both checks ignore."""
    ranges = []
    for m in re.finditer(r"#\[cfg\(test\)\]", code):
        brace = code.find("{", m.end())
        semi = code.find(";", m.end())
        if brace < 0 or (0 <= semi < brace):
            continue
        ranges.append((m.start(), match_brace(code, brace)))
    return ranges


def match_brace(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def in_ranges(pos, ranges):
    return any(a <= pos <= b for a, b in ranges)


PATH_RE = re.compile(r"(?<![A-Za-z0-9_:])((?:crate|super|self)(?:\s*::\s*(?:super|[A-Za-z_][A-Za-z0-9_]*))*)")


def expand_use(tree):
    """Expand a use tree like `crate::{a::X, b::{Y, Z}}` into flat paths."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def rec(prefix, t):
        depth, start, parts = 0, 0, []
        if "{" not in t:
            out.append(prefix + t.split("::"))
            return
        i = t.index("{")
        head = [p for p in t[:i].split("::") if p]
        inner = t[i + 1:match_close(t, i)]
        for j, ch in enumerate(inner):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(inner[start:j])
                start = j + 1
        parts.append(inner[start:])
        for p in parts:
            if p:
                rec(prefix + head, p)

    rec([], tree)
    return out


def match_close(t, i):
    depth = 0
    for j in range(i, len(t)):
        depth += t[j] == "{"
        depth -= t[j] == "}"
        if depth == 0:
            return j
    return len(t)


def references(mod_path, code, known):
    """Absolute module paths named from the module `mod_path`."""
    skip = test_ranges(code)
    refs = []
    uses = []
    for m in re.finditer(r"\buse\s+([^;]+);", code):
        if in_ranges(m.start(), skip):
            continue
        uses.append((m.start(), m.end()))
        for path in expand_use(m.group(1)):
            path = [p.split(" as ")[0] for p in path if p not in ("*",)]
            refs.append(resolve(mod_path, path, known))
    for m in PATH_RE.finditer(code):
        if in_ranges(m.start(), skip) or any(a <= m.start() < b for a, b in uses):
            continue
        path = [p.strip() for p in m.group(1).split("::")]
        if len(path) > 1:
            refs.append(resolve(mod_path, path, known))
    return [r for r in refs if r is not None]


def resolve(mod_path, path, known):
    cur = list(mod_path)
    if not path:
        return None
    if path[0] == "crate":
        cur, path = [], path[1:]
    elif path[0] in ("self", "super"):
        while path and path[0] in ("self", "super"):
            if path[0] == "super":
                if not cur:
                    return None
                cur = cur[:-1]
            path = path[1:]
    elif tuple(cur + [path[0]]) in known:
        pass  # a child module named without `self::`
    else:
        return None  # an external crate or an item in scope
    target = list(cur)
    for seg in path:
        if tuple(target + [seg]) in known:
            target.append(seg)
        else:
            break
    return tuple(target)


# ---------------------------------------------------------------- cycles

def sibling_edges(mods):
    edges = {}
    for mod_path, file in mods.items():
        code = strip_code(file.read_text(encoding="utf-8", errors="replace"))
        for target in references(mod_path, code, mods):
            k = 0
            while k < len(mod_path) and k < len(target) and mod_path[k] == target[k]:
                k += 1
            if k < len(mod_path) and k < len(target):
                parent = mod_path[:k]
                a, b = mod_path[k], target[k]
                edges.setdefault(parent, {}).setdefault(a, {}).setdefault(b, (file, target))
    return edges


def cycles(graph):
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    nodes = set(graph) | {b for a in graph.values() for b in a}
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, {}))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, {})))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


# ---------------------------------------------------------------- long functions

FN_RE = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def long_functions(file, limit):
    code = strip_code(file.read_text(encoding="utf-8", errors="replace"))
    skip = test_ranges(code)
    found = []
    for m in FN_RE.finditer(code):
        if in_ranges(m.start(), skip):
            continue
        # the body starts at the first `{` after the signature, unless a `;` ends it first
        depth, j = 0, m.end()
        while j < len(code):
            ch = code[j]
            if ch in "([<":
                depth += 1
            elif ch in ")]>" and depth:
                depth -= 1
            elif ch == ";" and depth == 0:
                j = -1
                break
            elif ch == "{" and depth == 0:
                break
            j += 1
        if j < 0 or j >= len(code):
            continue
        end = match_brace(code, j)
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, end) + 1
        if last - first + 1 > limit:
            found.append((first, last - first + 1, m.group(1)))
    return found


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("crates", nargs="*", type=Path)
    ap.add_argument("--max-fn-lines", type=int, default=150)
    ap.add_argument("--baseline", type=Path, help="known findings that do not fail the check")
    args = ap.parse_args()
    known = set()
    if args.baseline:
        known = {line.strip() for line in args.baseline.read_text().splitlines()
                 if line.strip() and not line.startswith("#")}
    crates = args.crates or sorted(p for p in (ROOT / "crates").iterdir() if (p / "src").is_dir())
    findings = []  # (headline, detail lines)
    for crate in crates:
        mods = module_files(crate / "src")
        for parent, graph in sorted(sibling_edges(mods).items()):
            for comp in cycles(graph):
                where = "::".join(("crate",) + parent)
                detail = []
                for a in comp:
                    for b in comp:
                        if b in graph.get(a, {}):
                            file, target = graph[a][b]
                            rel = os.path.relpath(file, ROOT)
                            detail.append(f"    {a} -> {b}  ({rel} names crate::{'::'.join(target)})")
                findings.append((f"{crate.name}: module cycle under {where}: {' <-> '.join(comp)}", detail))
        for file in sorted(set(mods.values())):
            for _line, length, name in long_functions(file, args.max_fn_lines):
                rel = os.path.relpath(file, ROOT)
                findings.append((f"{rel}: fn {name} is over {args.max_fn_lines} lines ({length})", []))
    new = [(h, d) for h, d in findings if baseline_key(h) not in known]
    seen = {baseline_key(h) for h, _ in findings}
    stale = sorted(k for k in known if k not in seen)
    for head, detail in new:
        print(head)
        for line in detail:
            print(line)
    for key in stale:
        print(f"fixed, remove it from the baseline: {key}")
    debts = len(findings) - len(new)
    if debts:
        print(f"layers: {debts} known finding(s) from the baseline remain")
    if new or stale:
        return 1
    print(f"layers: {len(crates)} crates, no new module cycle, no new function over {args.max_fn_lines} lines")
    return 0


def baseline_key(headline):
    """A finding without its measured length, so a long function that changes size stays known."""
    return re.sub(r" \(\d+\)$", "", headline)


if __name__ == "__main__":
    sys.exit(main())
