"""The report: a results file rendered as an HTML page that leads with what was learned, and as Markdown."""

from harness.report.render import render

__all__ = ["render"]
