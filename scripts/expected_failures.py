# The expected-failure lists of the random-graph and zoo suites: reading one,
# and the lit-XFAIL rule both suites count results by.
import collections
import os

# How each status counts in `N passed, M failed, K skipped`.
COUNTED_AS = {"pass": "passed", "FIXED": "failed", "expected-failure": "skipped",
              "FAIL": "failed"}


def read(path):
    """{key: reason} from lines `KEY reason` (`#` starts a comment line)."""
    listed = {}
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line and not line.startswith("#"):
                key, _, reason = line.partition(" ")
                listed[key] = reason
    return listed


def status(failed, listed):
    """'pass'; 'FIXED' (listed, but passes: a failure until it is taken off
    the list); 'expected-failure' (listed and fails: counted as skipped); or
    'FAIL'."""
    if not failed:
        return "FIXED" if listed else "pass"
    return "expected-failure" if listed else "FAIL"


def tally(statuses):
    """(passed, failed, skipped) of an iterable of statuses."""
    counts = collections.Counter(COUNTED_AS[s] for s in statuses)
    return counts["passed"], counts["failed"], counts["skipped"]
