"""Extract yaql's own test suite from a yaql wheel as a package named
``yaql_tests``, so that it imports ``yaql`` (the drop-in) and not itself.

Usage: python extract_suite.py yaql-3.2.0-py3-none-any.whl OUTDIR
"""

import pathlib
import re
import sys
import zipfile

RENAMES = [
    (re.compile(r'^import yaql\.tests$', re.M), 'import yaql_tests'),
    (re.compile(r'yaql\.tests\.TestCase'), 'yaql_tests.TestCase'),
    (re.compile(r'^from yaql import tests$', re.M),
     'import yaql_tests as tests'),
]


def main(wheel, outdir):
    target = pathlib.Path(outdir) / 'yaql_tests'
    target.mkdir(parents=True, exist_ok=True)
    count = 0
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            m = re.fullmatch(r'yaql/tests/([^/]+\.py)', name)
            if not m:
                continue
            text = zf.read(name).decode('utf-8')
            for pattern, replacement in RENAMES:
                text = pattern.sub(replacement, text)
            (target / m.group(1)).write_text(text, encoding='utf-8')
            count += 1
    if count == 0:
        sys.exit(f'no yaql/tests/*.py in {wheel}')
    print(f'extracted {count} files of yaql/tests')


if __name__ == '__main__':
    main(*sys.argv[1:])
