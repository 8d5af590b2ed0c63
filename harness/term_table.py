"""Tables for a terminal or a log, fitted to a width: the one helper every `rosetta` table goes through.

A column that may be left out (drop=N) and whose every cell is "-" or empty (nothing measured, e.g. the
times of the CPU tier) is left out at any width. A table still wider than its width is then fitted in this
order, each step only as far as needed:
1. a column with a short header uses it ("implementation" -> "impl"); its whole header comes back where room is
   left once the ids are whole (see below);
2. a column of free text (wrap=N) wraps at word boundaries, down to its minimum width: N, but never below
   MIN_WRAP characters (nothing folds one character per line) nor below its longest word (no word, such as
   `input_precision='ieee'`, is cut);
3. columns are left out in their stated drop order (drop=1 first, then 2, ...); once the table fits, a
   column left out comes back if it fits in the room left (the one left out last is tried first);
4. columns with drop=None are never left out; those that do not wrap (kernel ids, implementation names)
   are never cut or wrapped either: an id is whole and can be copied. If they alone are wider than
   the width, the lines are longer than it.
A column of ids that may be shortened (elide=True: a table whose numbers matter more than whole ids, such as
`rosetta compare`'s) is narrowed with step 2, before any column is left out, by `shorten`: the middle of the
template arguments goes first (`<128,256,…,16,8>`), then the middle of the name, the template arguments last, then
the start of the name (`…mm<tf32,128,…,kmajor>`, where the ids differ only in their arguments); never so far that two
ids of the column read the same. `rosetta explain` and --only take a shortened id as shown (harness/cli/ids.py reads
"…" as "anything here").
The room left once the columns are chosen goes back to the shortened ids first (a whole id can be copied), then to
the whole headers. Where that is not enough, a column of text that may be left out and declares no wrap (a verdict
such as `0.94x [0.93–0.94] SLOW`, `reads C (declared)`) gives them its room, its cells broken where they read as two
lines (`breaks`: after an interval in brackets, before a note in parentheses; a figure keeps its interval). What is
left then makes such cells whole again, then widens the wrapped columns, the one kept longest first in each.
What was left out or shortened is named in a last line, with where the full table is (the caller says: --json,
a wider terminal).

Output is fixed-width text, columns two spaces apart, no box drawing: on a terminal the title and header
are bold, anywhere else (a file, a pipe, a CI log) it is plain text.
"""

from __future__ import annotations

import os
import re
import textwrap
from dataclasses import dataclass, field

MIN_WRAP = 8
GAP = 2
# Piped output has no terminal to ask: 100 columns is what a CI log page or a pager shows without
# scrolling sideways, and holds the longest kernel id (50 characters) beside the figures of a run.
# $COLUMNS, when set, wins (a user who pipes into `less -S` can ask for more).
DEFAULT_PLAIN_WIDTH = 100
EMPTY = ("-", "")
ELLIPSIS = "…"
# An id is not shortened below this many characters: past it, the name is no longer recognisable.
MIN_ELIDED = 12
# Where a cell of a column that declares no wrap may break (see `breaks`).
BREAK = re.compile(r"(?<=\]) | (?=\()")
# Where a cell of a column of figures may break: before its interval (`98.6%` / `[98.4–99.2]`), so that at 80
# columns a figure with its interval can stand on two lines beside the call rather than push the call out.
FIGURE_BREAK = re.compile(r" (?=\[)")


@dataclass(frozen=True)
class Column:
    header: str
    drop: int | None = None     # order in which it is left out when too wide (1 first); None: never
    right: bool = False         # right-aligned (numbers)
    wrap: int | None = None     # free text: may wrap at word boundaries down to this width
    short: str | None = None    # a shorter header, used when the table is too wide
    elide: bool = False         # ids that may be shortened (see the module), never below what tells them apart
    least: int = MIN_ELIDED     # nor below this: an id's origin and the arguments that tell it apart stay readable


@dataclass
class Fitted:
    columns: list[Column]
    headers: list[str]
    widths: list[int]
    rows: list[list[list[str]]]  # row -> cell -> lines
    left_out: list[str]          # headers of columns not shown, in the order they were dropped
    empty: list[str]             # headers of columns left out because nothing was in them
    shortened: list[str] = field(default_factory=list)  # headers of elide columns whose ids were shortened

    @property
    def width(self) -> int:
        return sum(self.widths) + GAP * (len(self.widths) - 1)


def plain_width() -> int:
    """The width of output that does not go to a terminal: $COLUMNS, else DEFAULT_PLAIN_WIDTH."""
    try:
        value = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return DEFAULT_PLAIN_WIDTH
    return value if value > 0 else DEFAULT_PLAIN_WIDTH


def _lines(cell: str) -> list[str]:
    return cell.split("\n") if cell else [""]


def _wrap(cell: str, width: int) -> list[str]:
    out: list[str] = []
    for line in _lines(cell):
        out.extend(textwrap.wrap(line, width, break_on_hyphens=False) or [""])
    return out


def breaks(line: str, figure: bool = False) -> list[str]:
    """The pieces a line of a column that declares no wrap may go on lines of: it breaks only after an interval in
    brackets (`0.94x [0.93–0.94]` / `SLOW`) or before a note in parentheses (`reads C` / `(declared)`), so that a
    figure keeps its interval and a phrase its words."""
    return (FIGURE_BREAK if figure else BREAK).split(line)


def _broken(cell: str, width: int, figure: bool = False) -> list[str]:
    """A cell's lines, its pieces (`breaks`) joined on a line as far as `width` allows."""
    out: list[str] = []
    for line in _lines(cell):
        pieces = breaks(line, figure)
        out.append(pieces[0])
        for piece in pieces[1:]:
            if len(out[-1]) + 1 + len(piece) <= width:
                out[-1] += " " + piece
            else:
                out.append(piece)
    return out


def reads_as(pattern: str, text: str) -> bool:
    """Whether `pattern` is a part of `text`, "…" (or "...") standing for anything: the pieces in order, any case.
    A shortened id reads as the id it was made from; harness/cli/ids.py resolves ids by the same rule."""
    at = 0
    text = text.lower()
    for piece in pattern.lower().replace("...", ELLIPSIS).split(ELLIPSIS):
        found = text.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def _elided_name(name: str, width: int) -> str:
    """The name in at most `width` characters, its middle elided (the origin prefix and the last word stay)."""
    if len(name) <= width:
        return name
    keep = max(width - 1, 2)
    origin = name.find(".") + 1  # `rosetta.`, `s000.`: which family an id is from, kept whole while the end has room
    head = max(min(origin, keep - 2), (keep + 1) // 2)
    return name[:head] + ELLIPSIS + name[len(name) - (keep - head):]


def _forms(text: str, width: int) -> list[str]:
    """The shortened forms of an id that fit `width`, the preferred first (see `shorten`)."""
    if len(text) <= width:
        return [text]
    name, bracket, rest = text.partition("<")
    if not bracket or not rest.endswith(">"):
        return [_elided_name(text, width)] if width >= min(len(text), 4) else []
    args = rest[:-1].split(",")
    n = len(args)
    kept = [f"<{','.join(args[:(keep + 1) // 2])},{ELLIPSIS},{','.join(args[n - keep // 2:])}>"
            for keep in range(n - 1, 1, -1)] or [f"<{rest}"]
    forms = [name + a for a in kept if len(name) + len(a) <= width]
    # then the name's middle too: as much of the name as room leaves, beside the fewest arguments first
    forms += [_elided_name(name, width - len(a)) + a for a in [*reversed(kept), f"<{ELLIPSIS}>"]
              if width - len(a) >= min(len(name), 4)]
    # last, the start of the name as well: where ids differ in their arguments (`tc_gemm<tf32,128,…>` and
    # `<tf32,256,…>`), the arguments that tell them apart and the end of the name are worth more than its origin
    # prefix, which many ids share
    forms += [ELLIPSIS + name[len(name) - (width - len(a) - 1):] + a for a in reversed(kept)
              if 2 <= width - len(a) - 1 < len(name)]
    return forms


def shorten(text: str, width: int, among: tuple[str, ...] | list[str] = ()) -> str:
    """An id in at most `width` characters where it can be: the middle of its template arguments elided first
    (`<128,256,…,16,8>`, down to the first and last argument), then the middle of its name as well, the template
    arguments last (`name<…>`), then the start of its name (`…mm<tf32,128,…,kmajor>`). The first such form that
    reads as no other id of `among` (reads_as) is taken; an id with no form that fits is cut, with an ellipsis."""
    forms = _forms(text, width)
    for form in forms:
        if form == text or not any(reads_as(form, other) for other in among if other != text):
            return form  # a whole id is itself, whatever longer id holds it ("cublas" beside "cublas-tf32")
    return forms[0] if forms else text[: max(width - 1, 1)] + ELLIPSIS


def least_unique(cells: list[str], floor: int) -> int:
    """The narrowest width (not below `floor`) at which every distinct cell has a shortened form that reads as no
    other (more room never takes a form away, so the search halves)."""
    distinct = sorted({c for c in cells if c.strip() not in EMPTY})
    high = max([floor, *(len(c) for c in cells)])

    def unique(width: int) -> bool:
        return all(any(f == c or not any(reads_as(f, o) for o in distinct if o != c) for f in _forms(c, width))
                   for c in distinct)

    low = floor
    while low < high:
        mid = (low + high) // 2
        if unique(mid):
            high = mid
        else:
            low = mid + 1
    return high


def _breakable(column: Column) -> bool:
    """A column of text that may be left out and declares no wrap: its cells may break (`breaks`) to give their
    room to the ids. Ids and names (never left out) never break; a figure with its interval breaks only before the
    interval (FIGURE_BREAK)."""
    return column.drop is not None and column.wrap is None and not column.elide and not column.right


def fit(columns: list[Column], rows: list[list[str]], width: int) -> Fitted:
    """Choose headers, columns and column widths so that the table is at most `width` wide (see the module)."""
    n = len(columns)
    cells = [[r[i] for r in rows] for i in range(n)]
    empty = [i for i in range(n) if rows and columns[i].drop is not None and all(c.strip() in EMPTY for c in cells[i])]
    headers = [c.header for c in columns]
    longest_word = [max((len(w) for c in cells[i] for w in c.split()), default=0) for i in range(n)]
    longest_piece = [max((len(p) for c in cells[i] for line in _lines(c) for p in breaks(line, columns[i].right)),
                         default=0)
                     for i in range(n)]

    # columns of figures with intervals that may be left out: one left out may come back with each interval under
    # its figure (FIGURE_BREAK) where that is what lets it stand beside the columns that are never left out
    figures = {i for i in range(n) if columns[i].right and columns[i].drop is not None
               and any("[" in c for c in cells[i])}
    folded: set[int] = set()

    def total(ws: dict[int, int]) -> int:
        return sum(ws.values()) + GAP * (len(ws) - 1)

    def natural(i: int) -> int:
        return max([len(headers[i]), *(len(line) for c in cells[i] for line in _lines(c))])

    def least(i: int) -> int:
        w = natural(i)
        if columns[i].elide:
            w = min(w, least_unique(cells[i], max(columns[i].least, len(headers[i]))))
        if columns[i].wrap is not None:
            w = min(w, max(MIN_WRAP, columns[i].wrap, len(headers[i]), longest_word[i]))
        if i in folded:  # its interval goes under the figure
            w = min(w, max(len(headers[i]), longest_piece[i]))
        return w

    keep = [i for i in range(n) if i not in empty]
    if total({i: natural(i) for i in keep}) > width:
        headers = [c.short or c.header for c in columns]
    dropped: list[int] = []
    for i in sorted((i for i in keep if columns[i].drop is not None), key=lambda i: (columns[i].drop, i)):
        if total({j: least(j) for j in keep}) <= width:
            break
        keep.remove(i)
        dropped.append(i)
    for i in reversed(list(dropped)):
        if i in figures and total({j: least(j) for j in sorted([*keep, i])}) > width:
            folded.add(i)
        if total({j: least(j) for j in sorted([*keep, i])}) <= width:
            keep = sorted([*keep, i])
            dropped.remove(i)
        else:
            folded.discard(i)
    left_out = [columns[i].header for i in dropped]
    widths = {i: least(i) for i in keep}
    # Give the room left back: shortened ids first (a whole id can be copied), then the whole headers, then the
    # narrowed columns, the one kept longest first. A column of text that may be left out and declares no wrap
    # starts broken (`breaks`), so that the ids and headers may take its room; what they leave makes it whole again
    # before a wrapped column (wrapping is what it declares) is widened.
    broken = {i: max(MIN_WRAP, len(headers[i]), longest_piece[i]) for i in keep
              if _breakable(columns[i]) or i in folded}
    widths.update({i: min(widths[i], w) for i, w in broken.items()})

    def room() -> int:
        return max(0, width - total(widths))

    for i in keep:
        if columns[i].elide:
            widths[i] = min(natural(i), widths[i] + room())
    for i in keep:
        if headers[i] != columns[i].header and max(0, len(columns[i].header) - widths[i]) <= room():
            headers[i] = columns[i].header
            widths[i] = max(widths[i], len(headers[i]))
    for i in sorted((i for i in keep if widths[i] < natural(i)),
                    key=lambda i: (i not in broken, -(columns[i].drop or 10**6))):
        widths[i] = min(natural(i), widths[i] + room())
    distinct = {i: sorted({c for c in cells[i] if c.strip() not in EMPTY}) for i in keep if columns[i].elide}

    def cell(i: int, text: str) -> list[str]:
        if widths[i] >= natural(i):
            return _lines(text)
        if columns[i].elide:
            return [shorten(text, widths[i], distinct[i])]
        return _wrap(text, widths[i]) if columns[i].wrap is not None else _broken(text, widths[i], columns[i].right)

    fitted_rows = [[cell(i, r[i]) for i in keep] for r in rows]
    shortened = [columns[i].header for i in keep if columns[i].elide and widths[i] < natural(i)]
    return Fitted([columns[i] for i in keep], [headers[i] for i in keep], [widths[i] for i in keep], fitted_rows,
                  left_out, [columns[i].header for i in empty], shortened)


def lines(columns: list[Column], rows: list[list[str]], width: int,
          more: str = "") -> tuple[str, list[str], str | None]:
    """The header line, the body lines and the note on what was left out (`note`) of the table fitted to `width`, as
    plain text."""
    fitted = fit(columns, rows, width)

    def join(cells: list[str]) -> str:
        return (" " * GAP).join(c.rjust(w) if col.right else c.ljust(w)
                                for c, w, col in zip(cells, fitted.widths, fitted.columns, strict=True)).rstrip()

    body: list[str] = []
    for row in fitted.rows:
        for k in range(max(len(c) for c in row) if row else 0):
            body.append(join([c[k] if k < len(c) else "" for c in row]))
    return join(fitted.headers), body, note(fitted, width, more)


def note(fitted: Fitted, width: int, more: str = "") -> str | None:
    """What the table does not show, wrapped to the width, or None when it shows everything."""
    parts = []
    if fitted.left_out:
        parts.append(f"not shown at {width} columns: {', '.join(fitted.left_out)}" + (f" ({more})" if more else ""))
    if fitted.empty:
        parts.append(f"empty, not shown: {', '.join(fitted.empty)}")
    if fitted.shortened:
        parts.append(f"{', '.join(fitted.shortened)}: ids shortened ({ELLIPSIS} stands for what is left out, and "
                     f"`rosetta explain` and --only read it so)")
    return "\n".join(textwrap.wrap("; ".join(parts), max(width, 20), break_on_hyphens=False)) or None


def render(title: str | None, columns: list[Column], rows: list[list[str]], width: int, more: str = "") -> str:
    """The whole table as plain text: title, header, body, and the note on what was left out."""
    header, body, told = lines(columns, rows, width, more)
    return "\n".join([*([title] if title else []), header, *body, *([told] if told else [])])


def print_table(console, title: str | None, columns: list[Column], rows: list[list[str]], more: str = "") -> None:
    """Print a table fitted to the console's width: bold title and header on a terminal, plain text elsewhere."""
    from rich.text import Text

    header, body, told = lines(columns, rows, console.width, more)
    text = Text()
    if title:
        text.append(title + "\n", style="bold")
    text.append(header + "\n", style="bold")
    for line in body:
        text.append(line + "\n")
    if told:
        text.append(told + "\n", style="dim")
    text.rstrip()
    # soft_wrap: a line of never-dropped ids wider than the console is printed whole, not folded.
    console.print(text, soft_wrap=True, highlight=False)
