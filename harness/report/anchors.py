"""Every anchor on the page, named in one place so that findings link where the sections are."""

from __future__ import annotations

from harness.problems import Problem

TOP = "top"
FINDINGS = "findings"
IDEA_TABLE = "idea-table"
SHARED_TRITON = "shared-triton"
CLAIMS = "claims"
STRIDE = "stride-sweep"
UNROLL = "unroll-claim"
PLOTS = "plots"
IDEAS = "ideas"
RESULTS = "results"
METHOD = "method"

# Plot keys: also the file-name part of each PNG (<stem>-<key>.png).
BARS = "bars-{op}"
GEMV = "gemv-bandwidth"
ROOFLINE = "roofline"
ACCURACY = "accuracy"
TIME = "time-{op}"


def idea(key: str) -> str:
    return f"idea-{key}"


def plot(key: str) -> str:
    return f"plot-{key}"


def problem(p: Problem) -> str:
    return "problem-" + "-".join(str(v) for v in p.key).replace(".", "_")


def href(anchor: str) -> str:
    return f"#{anchor}"
