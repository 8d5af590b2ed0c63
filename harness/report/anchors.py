"""Every anchor on the page, named in one place so that findings link where the sections are."""

from __future__ import annotations

from harness.analysis.overview import Part
from harness.problems import Problem

TOP = "top"
FINDINGS = "findings"
KNOBS = "knob-study"
MODEL_OR_COMPILER = "model-or-compiler"
IDEA_TABLE = "idea-table"
SHARED_TRITON = "shared-triton"
CLAIMS = "claims"
STRIDE = "stride-sweep"
UNROLL = "unroll-claim"
PLOTS = "plots"
IDEAS = "ideas"
RESULTS = "results"
METHOD = "method"
HEADLINE = "headline"

# Plot keys: also the file-name part of each PNG (<stem>-<key>.png).
BARS = "bars-{op}"
GEMV = "gemv-bandwidth"
ROOFLINE = "roofline"
LADDER = "ladder"
HOPPER_LADDER = "hopper-ladder"
ACCURACY = "accuracy"
TIME = "time-{op}"


def idea(key: str) -> str:
    return f"idea-{key}"


def kernel(kernel_id: str) -> str:
    """A kernel's anchor: its id with every character an id or a URL fragment would trip on made '-'."""
    return "kernel-" + "".join(c if c.isalnum() or c in "._" else "-" for c in kernel_id).strip("-")


def part(p: Part) -> str:
    return f"part-{p.op}-{'simt' if p.simt else 'tc'}" + ("-declared" if p.declared else "")


def plot(key: str) -> str:
    return f"plot-{key}"


def problem(p: Problem) -> str:
    return "problem-" + "-".join(str(v) for v in p.key).replace(".", "_")


def href(anchor: str) -> str:
    return f"#{anchor}"
