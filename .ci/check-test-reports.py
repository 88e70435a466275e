#!/usr/bin/env python3
"""Checks JUnit XML reports: some tests ran, and none failed, erred or was skipped.

    .ci/check-test-reports.py LABEL PATH...

PATH is a report (TEST-*.xml) or a directory of them: Surefire's and Failsafe's, and the JUnit console
launcher's legacy reports (--reports-dir; the lab's suites). The counts of all reports are summed,
so an engine that ran nothing (the console launcher writes a report per engine) does not count
against the others.

Where it is used (.ci/run's steps that run named tests, the lab's suites) every test selected must
run: a skipped test (an assumption that failed, a disabled test, an execution condition) means
something the run was meant to have was missing, so it fails the check, naming each skipped test
and the reason it gave. Exit 0 if all is well, 1 otherwise; one summary line either way.
"""
import os
import sys
import xml.etree.ElementTree as ET


def reports(paths):
    for path in paths:
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                if name.startswith("TEST-") and name.endswith(".xml"):
                    yield os.path.join(path, name)
        elif os.path.isfile(path):
            yield path


def suites(root):
    return [root] if root.tag == "testsuite" else root.iter("testsuite")


def main(argv):
    if len(argv) < 3:
        print("usage: check-test-reports.py LABEL PATH...", file=sys.stderr)
        return 64
    label, paths = argv[1], argv[2:]
    files = list(reports(paths))
    if not files:
        print(f"{label}: FAILED: no test report in {' '.join(paths)}: the tests did not run", file=sys.stderr)
        return 1
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    skipped, failed = [], []
    for f in files:
        try:
            root = ET.parse(f).getroot()
        except ET.ParseError as e:
            print(f"{label}: FAILED: {f} is not a readable report ({e})", file=sys.stderr)
            return 1
        for suite in suites(root):
            for key in counts:
                counts[key] += int(suite.get(key, "0") or 0)
            for case in suite.iter("testcase"):
                name = f"{case.get('classname', '?')}.{case.get('name', '?')}"
                for kind in ("skipped", "failure", "error"):
                    e = case.find(kind)
                    if e is not None:
                        why = (e.get("message") or (e.text or "").strip() or "no reason given").splitlines()[0]
                        (skipped if kind == "skipped" else failed).append(f"{name}: {why[:300]}")
    summary = " ".join(f"{k}={v}" for k, v in counts.items())
    problems = []
    if counts["tests"] == 0:
        problems.append("no tests ran")
    if counts["failures"] or counts["errors"]:
        problems.append(f"{counts['failures'] + counts['errors']} failed")
    if counts["skipped"]:
        problems.append(f"{counts['skipped']} skipped (here every selected test must run: "
                        "a skip means something this run needs is missing)")
    if not problems:
        print(f"{label}: {summary} ({len(files)} reports)", file=sys.stderr)
        return 0
    print(f"{label}: FAILED: {'; '.join(problems)}: {summary} ({len(files)} reports)", file=sys.stderr)
    for line in failed:
        print(f"{label}:   failed: {line}", file=sys.stderr)
    for line in skipped:
        print(f"{label}:   skipped: {line}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
