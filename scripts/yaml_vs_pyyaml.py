#!/usr/bin/env python3
"""Differential check of `vetro yaml convert` against PyYAML's safe_load_all.

usage: scripts/yaml_vs_pyyaml.py [--bin target/release/vetro] DIR...

Loads every .yaml/.yml/.grammar/.spec file under the given folders with both and
compares the JSON they give (PyYAML values go through json.dumps(default=str), so
dates compare as text). Prints one line per mismatch and `N same, M different`.
"""
import argparse, json, math, os, subprocess, sys

import yaml


def normalize(value):
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {json_key(k): normalize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalize(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def json_key(key):
    if isinstance(key, str):
        return key
    return json.dumps(normalize(key))  if isinstance(key, (list, tuple, dict)) else json.loads(json.dumps({key: 0})).popitem()[0] if not isinstance(key, float) else repr(key)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/vetro")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    same = different = skipped = 0
    for top in args.dirs:
        for root, _, files in os.walk(top):
            for name in sorted(files):
                if not name.endswith((".yaml", ".yml", ".grammar", ".spec")):
                    continue
                path = os.path.join(root, name)
                raw = open(path, "rb").read()
                text = raw.decode("utf-8", errors="replace")
                try:
                    docs = [normalize(d) for d in yaml.safe_load_all(text)]
                except Exception:
                    skipped += 1
                    continue
                if not docs:
                    skipped += 1
                    continue
                run = subprocess.run([args.bin, "yaml", "convert", path, "--to", "json"],
                                     capture_output=True, text=True)
                if run.returncode != 0:
                    different += 1
                    print(f"FAIL {path}: vetro exit {run.returncode}: {run.stderr.strip()[:200]}")
                    continue
                dec = json.JSONDecoder()
                out, pos, mine = run.stdout, 0, []
                while pos < len(out.strip()):
                    while out[pos].isspace():
                        pos += 1
                    value, pos = dec.raw_decode(out, pos)
                    mine.append(value)
                    if pos >= len(out.rstrip()):
                        break
                if mine == docs:
                    same += 1
                else:
                    different += 1
                    print(f"DIFF {path}")
    print(f"{skipped} not loadable by PyYAML (skipped)")
    print(f"{same} same, {different} different")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
