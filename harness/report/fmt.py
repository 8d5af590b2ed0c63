"""How figures are written: one function per kind of number, so every table, sentence and plot agrees; and the pieces
of text they are written into (a table's cell, a link, a monospace run), which the analysis's declarations of metrics
and findings build and the report prints (harness/report/doc.py holds the page around them)."""

from __future__ import annotations

import html
from dataclasses import dataclass


def esc(text: object) -> str:
    return html.escape(str(text))


def ms(v: float) -> str:
    return f"{v:.4f}" if v < 0.1 else f"{v:.3f}" if v < 10 else f"{v:.2f}" if v < 100 else f"{v:.1f}"


def pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.1f}%"


def pct_ci(v: float | None, lo: float | None = None, hi: float | None = None) -> str:
    """A percentage with its 95% interval where there is one: '96.9% [96.5–97.3]'."""
    return pct(v) if v is None or lo is None or hi is None else f"{v:.1f}% [{lo:.1f}–{hi:.1f}]"


def ratio_ci(v: float | None, lo: float | None = None, hi: float | None = None) -> str:
    """A speed ratio (reference time over subject time) with its interval: '1.04x [1.02–1.06]'."""
    if v is None:
        return "—"
    return f"{v:.2f}x" if lo is None or hi is None else f"{v:.2f}x [{lo:.2f}–{hi:.2f}]"


# How a verdict's call is said: "faster" or "slower" only where the call is FAST or SLOW.
CALL_WORDS = {"FAST": "faster", "SLOW": "slower", "SAME": "a tie", "AMBIGUOUS": "undecided"}


def call(c: object | None) -> str:
    """FAST, SLOW, SAME, AMBIGUOUS as written in tables; '—' where no verdict was made (a file of single bursts)."""
    return "—" if c is None else str(getattr(c, "value", c))


def mhz(v: float | None) -> str:
    return "—" if v is None else f"{v:.0f}"


def pct_round(v: float | None) -> str:
    """A fraction 0..1 as a whole percentage (occupancy)."""
    return "—" if v is None else f"{100 * v:.0f}%"


def sci(v: float | None) -> str:
    return "—" if v is None else ("0" if v == 0 else f"{v:.1e}")


def tflops(v: float) -> str:
    return f"{v:.2f}"


def gbps(v: float) -> str:
    return f"{v:.0f}"


def times(v: float) -> str:
    """A ratio written as a factor: 1.65x, 0.22x, 12x."""
    return f"{v:.2f}x" if v < 10 else f"{v:.0f}x"


def nbytes(n: float | None) -> str:
    if n is None:
        return "—"
    if n >= 1024 * 1024:
        return f"{n / 1024 / 1024:.1f} MiB"
    return f"{n / 1024:.1f} KiB" if n >= 1024 else f"{int(n)} B"


def first_line(text: str, limit: int = 160) -> str:
    """A reason in one line. Compiler errors put the location first and the cause last, so a
    multi-line reason keeps both ends."""
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    if not lines:
        return ""
    line = lines[0] if len(lines) == 1 else f"{lines[0]} … {lines[-1]}"
    return line if len(line) <= limit else line[: limit - 1] + "…"


def joined(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return " and ".join(items) if len(items) <= 2 else ", ".join(items[:-1]) + " and " + items[-1]


def plural(n: int, one: str) -> str:
    return f"{n} {one}" if n == 1 else f"{n} {one}s"


@dataclass
class Cell:
    text: str = ""
    num: bool = False        # right-aligned, tabular figures
    cls: str = ""            # ok / bad / warn / muted / why / zero
    code: bool = False       # monospace (ids, SASS names)
    span: int = 1            # HTML colspan; Markdown pads with empty cells
    href: str = ""           # link target (an anchor on the page)
    sub: str = ""            # a second line in small monospace: the kernel a figure belongs to
    anchor: str = ""         # HTML id of the cell: a place on the page a link can name (a kernel)


@dataclass(frozen=True)
class Link:
    text: str
    href: str          # "#anchor" on the page
    code: bool = False


@dataclass(frozen=True)
class Mono:
    text: str


Inline = str | Link | Mono


def plain(parts: list[Inline]) -> str:
    return "".join(p if isinstance(p, str) else p.text for p in parts)
