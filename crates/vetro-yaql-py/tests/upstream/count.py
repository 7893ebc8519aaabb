"""Print 'N passed, M failed' from a pytest JUnit XML report."""

import sys
import xml.etree.ElementTree as ET


def main(path):
    passed = failed = skipped = 0
    for case in ET.parse(path).getroot().iter('testcase'):
        tags = {child.tag for child in case}
        if tags & {'failure', 'error'}:
            failed += 1
        elif 'skipped' in tags:
            skipped += 1
        else:
            passed += 1
    line = f'{passed} passed, {failed} failed'
    if skipped:
        line += f', {skipped} skipped'
    print(line)


if __name__ == '__main__':
    main(sys.argv[1])
