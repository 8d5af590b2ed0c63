"""An independent oracle: a run's headline numbers recomputed from its raw JSONL with plain Python, and a page, the
README and the docs held to them digit for digit.

It imports nothing from the harness. Its arithmetic is written from the method as docs/method.md states it, not from
harness/analysis: a record's rounds are its runs split by `per_round`; a round's value is the median of its runs;
two records of one batch are compared round by round, the estimate being the median of the rounds' log time ratios
(the median of an even count: the mean of the middle two, in logs), its 95% interval the k-th smallest and k-th
largest of those ratios, k the largest whose coverage 1 - 2 P(Binomial(n, 1/2) < k) is at least 95% (the whole
range, with its own coverage, where none is); the call is FAST where the whole interval of the time ratio lies below
1 / (1 + margin), SLOW above 1 + margin, SAME within, AMBIGUOUS otherwise or under 95% coverage; the margin is 2%,
3% where a side runs on the tensor cores. A rate is the problem's work over the record's median time. A clock
reading above the GPU's maximum counts as one over it. Energy per launch is a round's joules over its launches.

Checks are keyed on numbers and the row and column they stand in (a table's header, a row's problem and class, the
kernel id and implementation a cell names), not on sentences, so a page reworded keeps its checks.

Rerun on a new run (no GPU): `rosetta report RUN.jsonl --out DIR`, then `python -m tests.oracle RUN.jsonl
DIR/RUN.html README.md docs/results.md docs/regimes.md [--sustained RUN-sustained.jsonl]`: it prints how many numbers it
checked and each that differs (exit code 1 if any).
"""

from __future__ import annotations

import html
import json
import math
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

LEVEL = 0.95
MARGIN_SIMT, MARGIN_TENSOR_CORES = 0.02, 0.03
TENSOR_CORES = {"tf32", "3xtf32", "bf16x3", "bf16x6"}
YARDSTICK = {"tf32": "cublas-tf32"}          # every other class is held against cuBLAS fp32 ("cublas")
FP32_PER_SM_CYCLE = 256                      # Hopper: 128 FP32 lanes per SM, an FMA two FLOP
TF32_PER_SM_CYCLE = 2048                     # Hopper's dense TF32 per SM per cycle
CLASS = {"fp32": "fp32", "3xTF32": "3xtf32", "TF32": "tf32", "bf16x3": "bf16x3", "bf16x6": "bf16x6"}
TUTORIAL = {"ieee": "triton-tutorial", "TF32": "triton-tutorial-tf32", "3xTF32": "triton-tutorial-3xtf32"}
WORDS = {"FAST": "faster", "SLOW": "slower", "SAME": "a tie", "AMBIGUOUS": "undecided"}


# ---------------------------------------------------------------------------------------------- the raw records
@dataclass
class Record:
    kernel: str | None
    impl: str
    precision: str
    problem: str                 # "sgemm 4096x4096x4096"
    work: float                  # FLOP (sgemm) or bytes moved (sgemv)
    median_ms: float
    ms: list[float]
    mhz: list[float | None]
    per_round: list[int]
    batch: str
    max_mhz: float | None
    energy: dict | None = None
    launches: int = 1
    b_layout: str = "row"        # how it reads B: its kernel's layout, a baseline's by its name ("-tn": B^T given)
    pack_ms: float | None = None  # the time to pack B K-major, where the run timed it

    def rounds(self, values: list, n: int | None = None) -> list[list]:
        out, i = [], 0
        for k in self.per_round[:n]:
            out.append(values[i:i + k])
            i += k
        return out


@dataclass
class Run:
    path: Path
    header: dict
    records: list[Record]

    @classmethod
    def load(cls, path: Path) -> Run:
        lines = [json.loads(ln) for ln in Path(path).read_text(encoding="utf-8").splitlines() if ln.strip()]
        out = []
        for d in lines[1:]:
            t = (d.get("timing") or {}).get("samples")
            if d.get("record") != "result" or d.get("status") != "ok" or not t:
                continue
            p = d["problem"]
            shape = "x".join(str(p[k]) for k in ("M", "N", "K") if k in p and (p["op"] == "sgemm" or k != "K"))
            work = 2.0 * p["M"] * p["N"] * p["K"] if p["op"] == "sgemm" else 4.0 * (p["M"] * p["N"] + p["N"] + p["M"])
            out.append(Record(d.get("kernel"), d["impl"], d.get("precision", "fp32"), f"{p['op']} {shape}", work,
                              d["timing"]["median_ms"], t["ms"], t["mhz"], t["per_round"], t["batch"], t.get("max_mhz"),
                              t.get("energy"), t.get("launches", 1),
                              (d.get("kernel_facts") or {}).get("b_layout")
                              or ("kmajor" if d["impl"].endswith("-tn") else "row"), d.get("pack_ms")))
        return cls(Path(path), lines[0], out)

    def find(self, problem: str, impl: str, precision: str, kernel: str | None = None) -> Record:
        found = [r for r in self.records if r.problem == problem and r.impl == impl and r.precision == precision
                 and (kernel is None or r.kernel == kernel)]
        assert len(found) == 1, (problem, impl, precision, kernel, len(found))
        return found[0]


# ---------------------------------------------------------------------------------------------- the method
def median_interval(values: list[float]) -> tuple[float, float, float]:
    """(lo, hi, coverage): the order-statistic interval of a median (docs/method.md)."""
    s, n = sorted(values), len(values)
    k, coverage = 1, 1 - 2 * 0.5 ** n * 1
    for j in range(1, n // 2 + 1):
        c = 1 - 2 * sum(math.comb(n, i) for i in range(j)) / 2 ** n
        if c >= LEVEL:
            k, coverage = j, c
    return s[k - 1], s[n - k], coverage


@dataclass(frozen=True)
class Ratio:
    """Subject time over reference time, paired by round."""

    ratio: float
    lo: float
    hi: float
    coverage: float
    margin: float

    @property
    def call(self) -> str:
        edge = 1 + self.margin
        if self.coverage < LEVEL:
            return "AMBIGUOUS"
        if 1 / edge <= self.lo and self.hi <= edge:
            return "SAME"
        return "FAST" if self.hi < 1 / edge else "SLOW" if self.lo > edge else "AMBIGUOUS"

    def speed(self) -> tuple[float, float, float]:
        """Reference time over subject time, as the page prints a speed ratio."""
        return 1 / self.ratio, 1 / self.hi, 1 / self.lo


def paired(subject: Record, reference: Record) -> Ratio:
    """Per-round medians' log ratio; where one side reads B K-major and the other row-major, the K-major side's pack of
    B is added to each of its runs (docs/method.md)."""
    assert subject.batch == reference.batch, (subject.impl, reference.impl)
    n = min(len(subject.per_round), len(reference.per_round))

    def ms(r: Record, other: Record) -> list[float]:
        pack = r.pack_ms if r.b_layout == "kmajor" and other.b_layout != "kmajor" and r.pack_ms else 0.0
        return [x + pack for x in r.ms]

    logs = [math.log(statistics.median(a)) - math.log(statistics.median(b))
            for a, b in zip(subject.rounds(ms(subject, reference), n), reference.rounds(ms(reference, subject), n),
                            strict=True)]
    lo, hi, coverage = median_interval(logs)
    margin = MARGIN_TENSOR_CORES if {subject.precision, reference.precision} & TENSOR_CORES else MARGIN_SIMT
    return Ratio(math.exp(statistics.median(logs)), math.exp(lo), math.exp(hi), coverage, margin)


def rate(r: Record) -> float:
    """TFLOP/s (sgemm) or GB/s (sgemv) at the record's median time."""
    return r.work / (r.median_ms * 1e-3) / (1e12 if r.problem.startswith("sgemm") else 1e9)


# ---------------------------------------------------------------------------------------------- the checks
@dataclass
class Checks:
    numbers: int = 0
    wrong: list[str] = field(default_factory=list)

    def number(self, where: str, shown: str, value: float) -> None:
        """The page's number as printed against the oracle's, formatted to the page's digits."""
        digits = len(shown.split(".")[1]) if "." in shown else 0
        self.numbers += 1
        if f"{value:,.{digits}f}".replace(",", "" if "," not in shown else ",") != shown:
            self.wrong.append(f"{where}: shows {shown}, the raw records give {value:.{digits + 2}f}")

    def word(self, where: str, shown: str, expected: str) -> None:
        if shown != expected:
            self.wrong.append(f"{where}: says {shown!r}, the raw records give {expected!r}")


def plain(cell: str) -> str:
    """A table cell as text: tags dropped (a line break is a space), entities and code marks undone."""
    text = re.sub(r"<br\s*/?>", " ", cell)
    return html.unescape(re.sub(r"<[^>]+>", "", text)).replace("`", "").strip()


def html_table(page: str, cls: str) -> list[list[str]]:
    """The rows (header first) of the first table of class `cls` on an HTML page."""
    found = re.search(rf'<table class="{cls}[" ].*?</table>', page, re.S)
    assert found, f"no table {cls!r} on the page"
    return [[plain(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", found.group(0), re.S)]


def markdown_table(text: str, first_header: str) -> list[list[str]]:
    """The rows (header first) of the Markdown table whose first header is `first_header`."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"| {first_header} |"))
    rows = []
    for ln in lines[start:]:
        if not ln.startswith("|"):
            break
        if not re.match(r"^\|[-:| ]+\|$", ln):
            rows.append([c.replace("`", "").strip() for c in ln.strip().strip("|").split(" | ")])
    return rows


FIGURE = re.compile(r"^(?P<pct>\d+\.\d)% (?:\[(?P<lo>\d+\.\d)–(?P<hi>\d+\.\d)\] )?"
                    r"\(?(?P<rate>\d+\.?\d*) (?:TFLOP/s|GB/s) · "
                    r"(?:(?P<label>(?:Triton|Gluon)[^:]*): )?(?P<kernel>\S+) · ")
SPEED = re.compile(r"^(?P<r>\d+\.\d\d)x \[(?P<lo>\d+\.\d\d)–(?P<hi>\d+\.\d\d)\] "
                   r"\(?(?P<word>faster|slower|a tie|undecided)")


def yardstick(run: Run, r: Record, cublas: Record) -> Record:
    """The cuBLAS a row is held against: given B^T stored where the row reads B K-major and the run timed it."""
    tn = [o for o in run.records if o.problem == r.problem and o.impl == f"{cublas.impl}-tn"]
    return tn[0] if r.b_layout == "kmajor" and tn else cublas


def _impl(model: str, label: str | None) -> str:
    if label is None:
        return "cuda"
    first, _, form = label.partition(" ")
    return f"{first.lower()}:{form or 'mirror'}"


def headline(run: Run, rows: list[list[str]], where: str, checks: Checks) -> None:
    """The headline table: each row's cuBLAS rates, each best's % of its cuBLAS with its interval and rate (and that
    the best CUDA and best Gluon are the fastest of their model), each ratio with its interval and call."""
    header, body = rows[0], rows[1:]
    assert body, f"{where}: an empty headline"
    for row in body:
        label = row[0]
        problem = re.match(r"(sgemm|sgemv) \d+(?:x\d+)+", label).group(0)
        cls = re.search(r"(fp32|3xTF32|TF32|bf16x3|bf16x6) vs cuBLAS", label).group(1)
        precision = CLASS[cls]
        yard = YARDSTICK.get(precision, "cublas")
        cublas = run.find(problem, yard, "tf32" if yard == "cublas-tf32" else "fp32")
        at = f"{where}, {problem} {cls}"
        checks.number(f"{at}, cuBLAS rate", re.search(r"cuBLAS \w+ \((\d+\.?\d*) ", label).group(1), rate(cublas))
        if (tn := re.search(r"B\^T stored \(TN\): (\d+\.\d+)", label)) is not None:
            checks.number(f"{at}, cuBLAS TN rate", tn.group(1), rate(run.find(problem, f"{yard}-tn", cublas.precision)))
        picked: dict[str, Record] = {}
        for name, cell in zip(header[1:], row[1:], strict=True):
            if (m := FIGURE.match(cell)) is not None:
                model = name.split()[1].lower()           # "best CUDA" -> cuda
                r = run.find(problem, _impl(model, m["label"]), precision, m["kernel"])
                picked[name] = r
                vs = paired(r, yardstick(run, r, cublas))
                pct = [100 * x for x in vs.speed()]
                checks.number(f"{at}, {name}, % of cuBLAS", m["pct"], pct[0])
                if m["lo"]:
                    checks.number(f"{at}, {name}, interval low", m["lo"], pct[1])
                    checks.number(f"{at}, {name}, interval high", m["hi"], pct[2])
                elif vs.coverage >= LEVEL:
                    checks.wrong.append(f"{at}, {name}: no interval where the rounds give a 95% one")
                checks.number(f"{at}, {name}, rate", m["rate"], rate(r))
                if name in ("best CUDA", "best Gluon"):
                    same = [o for o in run.records if o.problem == problem and o.precision == precision
                            and (o.impl == "cuda" if model == "cuda" else o.impl.startswith("gluon:"))]
                    fastest = min(same, key=lambda o: o.median_ms)
                    checks.word(f"{at}, {name}", f"{r.kernel} {r.impl}", f"{fastest.kernel} {fastest.impl}")
        for name, cell in zip(header[1:], row[1:], strict=True):
            if (m := SPEED.match(cell)) is None:
                continue
            lfl = picked.get("best Triton, like for like")
            if name == "Triton vs CUDA":
                sides = (lfl, picked.get("best CUDA"))
            elif name == "Gluon vs CUDA":
                sides = (picked.get("best Gluon"), picked.get("best CUDA"))
            else:
                t = re.search(r"(Triton tutorial \((ieee|TF32|3xTF32)\)) at (\d+\.\d)% \[(\d+\.\d)–(\d+\.\d)\]", cell)
                tutorial = run.find(problem, TUTORIAL[t.group(2)], precision)
                shown = [100 * x for x in paired(tutorial, cublas).speed()]
                for i, what in ((3, "%"), (4, "low"), (5, "high")):
                    checks.number(f"{at}, tutorial {what}", t.group(i), shown[i - 3])
                sides = (lfl, tutorial)
            if None in sides:
                continue
            vs = paired(*sides)   # type: ignore[arg-type]
            for key, value in zip(("r", "lo", "hi"), vs.speed(), strict=True):
                checks.number(f"{at}, {name}, {key}", m[key], value)
            checks.word(f"{at}, {name}, call", m["word"], WORDS[vs.call])


def clock_readings(run: Run, page: str, checks: Checks) -> None:
    """The probe's readings above the GPU's maximum, as the method section counts them."""
    read = [(m, r.max_mhz) for r in run.records for m in r.mhz if m and r.max_mhz]
    over = [m for m, top in read if m > top]
    text = plain(page)
    found = re.search(r"read ([\d,]+) of ([\d,]+) windows \((\d+\.\d)%\) above the GPU's maximum SM clock of (\d+) "
                      r"MHz, up to (\d+) MHz: its error is at least (\d+\.\d)%", text)
    assert found, "no count of the probe's readings above the maximum on the page"
    top = max(t for _, t in read)
    for i, value in enumerate((len(over), len(read), 100 * len(over) / len(read), top, max(m for m, _ in read),
                               100 * (max(m for m, _ in read) / top - 1)), 1):
        checks.number(f"clock readings ({i})", found.group(i), value)


def peaks(run: Run, page: str, checks: Checks) -> None:
    """The FP32 peak's effective clock, and the tensor cores' roof per SM cycle against the sheet's."""
    text = plain(page)
    p, sms = run.header["peaks"], run.header["sms"]
    if (eff := re.search(r"FP32 FMA (\d+\.\d) TFLOP/s .*?: (\d+) MHz effective", text)) is not None:
        checks.number("FP32 peak", eff.group(1), p["fp32_tflops"])
        checks.number("FP32 peak's effective clock", eff.group(2), p["fp32_tflops"] * 1e6 / (sms * FP32_PER_SM_CYCLE))
    roof = re.search(r"(\d+) TFLOP/s timed \(cuBLAS TF32 on (sgemm \S+)\) at a mean (\d+) MHz as the clock probe read "
                     r"it: (\d+) FLOP per SM cycle; (\d+\.\d)% of the sheet's 2048", text)
    if roof is None:
        return
    r = run.find(roof.group(2), "cublas-tf32", "tf32")
    clock = statistics.fmean(min(m, r.max_mhz) for m in r.mhz if m)
    per_cycle = rate(r) * 1e12 / (clock * 1e6 * sms)
    for i, value in ((1, rate(r)), (3, clock), (4, per_cycle), (5, 100 * per_cycle / TF32_PER_SM_CYCLE)):
        checks.number(f"tensor-core roof ({i})", roof.group(i), value)


def energy(sustained: Run, rows: list[list[str]], where: str, checks: Checks) -> None:
    """The regime table: each implementation's watts and joules per launch, the median over its rounds and, where the
    rounds are too few for a 95% interval, their range said as a range."""
    header = rows[0]
    for row in rows[1:]:
        name, _, impl_label = row[0].rpartition(" · ")
        r = next(o for o in sustained.records if ((o.kernel or "") == name and _label_of(o) == impl_label)
                 or (o.kernel is None and _label_of(o) == row[0]))
        e = r.energy
        per_launch = [j / (n * r.launches) for j, n in zip(e["joules"], r.per_round, strict=True) if j]
        watts = [mj / 1e3 / s for mj, s, j in zip(e["mj"], e["window_s"], e["joules"], strict=True) if mj and s and j]
        for column, values in (("J per GEMM", per_launch), ("W", watts)):
            cell = row[header.index(column)]
            m = re.match(r"^(\S+) (?:\(range (\S+)–(\S+) of (\d+) rounds\)|\[(\S+)–(\S+)\])$", cell)
            assert m, f"{where}: {column} {cell!r}"
            lo, hi, coverage = median_interval(values)
            at = f"{where}, {row[0]}, {column}"
            _significant(checks, f"{at}, median", m.group(1), statistics.median(values))
            # brackets for a 95% interval; a range of too few rounds said as one, with their count
            checks.word(f"{at}, said as", "a range" if m.group(2) else "a 95% interval",
                        "a range" if coverage < LEVEL else "a 95% interval")
            if m.group(2):
                checks.word(f"{at}, rounds", m.group(4), str(len(values)))
            _significant(checks, f"{at}, low", m.group(2) or m.group(5), lo)
            _significant(checks, f"{at}, high", m.group(3) or m.group(6), hi)


def _significant(checks: Checks, where: str, shown: str, value: float) -> None:
    """A figure printed to three significant digits (the regime table's joules) or whole (its watts)."""
    if "." in shown or value < 100:
        digits = max(0, 3 - 1 - math.floor(math.log10(abs(value))))
        checks.numbers += 1
        if f"{value:.{digits}f}" != shown:
            checks.wrong.append(f"{where}: shows {shown}, the raw records give {value:.5g}")
    else:
        checks.number(where, shown, value)


def _label_of(r: Record) -> str:
    names = {"cublas": "cuBLAS fp32", "cublas-tf32": "cuBLAS TF32", "cuda": "CUDA"}
    if r.impl in names:
        return names[r.impl]
    model, _, form = r.impl.partition(":")
    return f"{model.capitalize()} {form}" if form != "mirror" else model.capitalize()


def check(run_path: Path, page: str, documents: dict[str, str], sustained_path: Path | None = None) -> Checks:
    """Every check the oracle makes of a page and the documents (name -> text) that quote the run."""
    run, checks = Run.load(run_path), Checks()
    headline(run, html_table(page, "headline"), "page", checks)
    clock_readings(run, page, checks)
    peaks(run, page, checks)
    for name, text in documents.items():
        if "| op · problem · class |" in text:
            headline(run, markdown_table(text, "op · problem · class"), name, checks)
        if sustained_path is not None and "| implementation | class | burst TFLOP/s |" in text:
            energy(Run.load(sustained_path), markdown_table(text, "implementation"), name, checks)
    return checks


def main(argv: list[str]) -> int:
    args = list(argv)
    sustained = Path(args.pop(args.index("--sustained") + 1)) if "--sustained" in args else None
    args = [a for a in args if a != "--sustained"]
    run, page = Path(args[0]), Path(args[1])
    docs = {a: Path(a).read_text(encoding="utf-8") for a in args[2:]}
    checks = check(run, page.read_text(encoding="utf-8"), docs, sustained)
    print(f"oracle: {checks.numbers} numbers checked against {run.name}, {len(checks.wrong)} differ")
    for w in checks.wrong:
        print(f"  {w}")
    return 1 if checks.wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
