"""The measurements as the analysis reads them: which results to compare, and against which cuBLAS.

Every comparison of the findings and the report goes through `Measured`, and every ratio it shows is a verdict of
the analysis (harness/analysis: the one place a comparison is computed, from the interleaved rounds' samples, with
its interval and its call), always within one precision class: fp32 SIMT and the fp32-accurate split forms against
cuBLAS fp32, TF32 against cuBLAS TF32 only. A file of single bursts (before the rounds) gets the ratio of the two
medians and no interval, so an old file still renders.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from harness.analysis.clock import PeakClock, peak_clock
from harness.analysis.record import Analysis, Comparison, RowKey, analyse, catalog_of, pair
from harness.analysis.relations import Relation
from harness.baselines import cublas_of
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import Counterpart, Kernel
from harness.catalog_types.tables import Catalog
from harness.device.occupancy import Occupancy, sm90_occupancy
from harness.device.roofline import TensorRoof, intensity, tile_bytes
from harness.problems import SEED_SGEMM, Problem
from harness.records.file import Results
from harness.records.lines import Result, RunHeader
from harness.records.order import headline_problem, record_order


@dataclass(frozen=True)
class LayoutRead:
    """A row that reads B K-major, read twice (harness/analysis/record.py): its kernel alone against cuBLAS given the
    same layout (B^T stored, "TN"), and with the time it took to pack B against cuBLAS on row-major B ("NN"); beside
    them the kernel alone against cuBLAS NN, as every row's % of cuBLAS is read. Each is None where the run lacks the
    row it needs (a file from before the TN baselines, a record without its pack time)."""

    result: Result
    pack_ms: float | None
    same_layout: Comparison | None    # kernel alone / cuBLAS TN
    packed: Comparison | None         # (pack + kernel) / cuBLAS NN
    alone: Comparison | None          # kernel alone / cuBLAS NN

    @property
    def pack_share(self) -> float | None:
        """The pack time as a share of the kernel's own median time."""
        t = self.result.timing
        return self.pack_ms / t.median_ms if self.pack_ms and t is not None and t.median_ms > 0 else None


@dataclass(frozen=True)
class Best:
    """The fastest result of a group, with its ratio to its class's cuBLAS (and that comparison's verdict)."""

    result: Result
    pct: float
    vs_cublas: Comparison | None = None

    @property
    def kernel(self) -> str:
        return self.result.kernel or self.result.impl

    @property
    def interval(self) -> tuple[float, float | None, float | None]:
        """The % of cuBLAS with its 95% interval where the rounds give one ((pct, None, None) where not)."""
        return self.vs_cublas.pct() if self.vs_cublas is not None else (self.pct, None, None)


class Measured:
    def __init__(self, results: Results, analysis: Analysis | None = None) -> None:
        """`analysis`: the record written beside the file (a page that renders a file as it is recorded); without
        it the verdicts are made here, the same way, from the records given (which a caller may have filtered)."""
        self.file = results
        self.header = results.header
        self.all = results.results
        self._analysis = analysis

    @classmethod
    def of(cls, records: list[Result], catalog: Catalog | None = None) -> Measured:
        """Records that are no file (a caller's own rows): a header naming their problems, the catalog given."""
        header = RunHeader("", "gpu", "", {}, [], 0, list(dict.fromkeys(r.problem for r in records)), 0.0)
        return cls(Results(Path("records"), header, list(records), None),
                   analyse(records, "records", catalog) if catalog is not None else None)

    # ------------------------------------------------------------------ selection
    @cached_property
    def problems(self) -> list[Problem]:
        """The header's problems in its order, then any a record names that the header does not."""
        out = dict.fromkeys(self.header.problems)
        for r in self.all:
            out.setdefault(r.problem)
        return [p for p in out if any(r.problem == p for r in self.all)]

    @cached_property
    def ops(self) -> list[str]:
        return [op for op in ("sgemm", "sgemv") if any(r.op == op for r in self.all)]

    def on(self, problem: Problem) -> list[Result]:
        return sorted((r for r in self.all if r.problem == problem), key=self.order)

    def order(self, result: Result) -> tuple:
        """A record's place on the page: harness/records/order.py, in the order of the file's catalog."""
        return record_order(result, self.catalog)

    def headline(self, op: str) -> Problem | None:
        """The op's one headline problem: every table, sentence and chart of one problem is of it."""
        return headline_problem(self.all, op)

    @cached_property
    def catalog(self) -> Catalog:
        """The catalog the file was analysed with, as its record keeps it (today's and the run's declared pairs where
        the record did not)."""
        return self.analysis.catalog or catalog_of(self.header)

    @cached_property
    def kernels(self) -> list[Kernel]:
        """Catalog kernels with at least one record here, in registry order."""
        ids = {r.kernel for r in self.all}
        return [k for k in self.catalog.kernels if k.id in ids]

    @cached_property
    def ideas(self) -> list[tuple[Idea, list[Kernel]]]:
        out = []
        for idea in self.catalog.ideas.values():
            kernels = [k for k in self.kernels if k.idea == idea.key]
            if kernels:
                out.append((idea, kernels))
        return out

    @cached_property
    def unknown_kernels(self) -> list[str]:
        return sorted({r.kernel for r in self.all if r.kernel and r.kernel not in self.catalog.by_id})

    def of_kernel(self, kernel_id: str, impl: str | None = None) -> list[Result]:
        return [r for r in self.all if r.kernel == kernel_id and (impl is None or r.impl == impl)]

    # ------------------------------------------------------------------ comparison
    @cached_property
    def analysis(self) -> Analysis:
        """Every verdict of the file (harness/analysis): the record given, else made now from the records."""
        return self._analysis or analyse(self.all, self.file.path.name if self.file.path else "records",
                                         catalog_of(self.header))

    def vs(self, result: Result, relation: Relation) -> Comparison | None:
        """The comparison of `relation` ("cublas", "triton-baseline", "counterpart", "step", "aa") of a result."""
        return self.analysis.one(result, relation)

    def between(self, subject: Result, reference: Result) -> Comparison | None:
        """Two results the file does not pair by itself (an idea's best CUDA and best Triton are often two kernels):
        the record's verdict of the one against the other; one the record lacks is made the same way as every other
        and kept in it (harness/analysis/build.py makes every one the page reads, so a page makes none)."""
        found = self.analysis.between(subject.key, reference.key)
        if found is None and (found := pair(Relation.BETWEEN, subject, reference)) is not None:
            self.analysis.add([found])
        return found

    def clock(self, result: Result) -> float | None:
        """A timed record's median SM clock over its runs, MHz (a file of single bursts: the mean it recorded)."""
        t = result.timing
        if t is None:
            return None
        read = [v for v in (t.samples.mhz if t.samples else ()) if v]
        return statistics.median(read) if read else t.clock_mhz

    def clocks(self, c: Comparison) -> tuple[float | None, float | None]:
        """The median SM clock of the subject and of the reference of a comparison."""
        found = {r.key: r for r in self.all if r.key in (c.subject_key, c.reference_key)}
        return tuple(self.clock(found[k]) if k in found else None  # type: ignore[return-value]
                     for k in (c.subject_key, c.reference_key))

    def reference(self, c: Comparison) -> Result:
        """The record a comparison is against."""
        return self.record(c.reference_key)

    def baseline(self, problem: Problem, precision: str = "fp32") -> Result | None:
        impl = cublas_of(precision)
        return next((r for r in self.all if r.problem == problem and r.impl == impl and r.timed), None)

    def pct(self, result: Result) -> float | None:
        """% of the same precision class's cuBLAS on the same problem: the analysis's estimate (100% for cuBLAS)."""
        if not result.timed or result.timing is None:
            return None
        if result.baseline and result.impl == cublas_of(result.precision):
            return 100.0
        c = self.vs(result, Relation.CUBLAS)
        return c.pct()[0] if c is not None else None

    def interval(self, result: Result) -> tuple[float | None, float | None, float | None]:
        """The % of cuBLAS with its 95% interval ((pct, None, None) where the rounds give none)."""
        c = self.vs(result, Relation.CUBLAS) if result.timed else None
        return c.pct() if c is not None else (self.pct(result), None, None)

    def layout(self, result: Result) -> LayoutRead | None:
        """The two reads of a row that reads B K-major (None for a row given B as the suite passes it)."""
        facts = result.kernel_facts
        if facts is None or facts.b_layout != "kmajor" or not result.timed:
            return None
        return LayoutRead(result, result.pack_ms, self.vs(result, Relation.CUBLAS_LAYOUT),
                          self.vs(result, Relation.CUBLAS_PACKED), self.vs(result, Relation.CUBLAS_ALONE))

    @cached_property
    def peak_clock(self) -> PeakClock | None:
        """The run's FP32 peak against its fp32 rows' clock (harness/analysis/clock.py), made once for every reader."""
        return peak_clock(self.header, self.all)

    @cached_property
    def tensor_roof(self) -> TensorRoof | None:
        """The tensor cores' roof this run measured: the fastest cuBLAS TF32 rate on row-major B over its sgemm
        problems, at its clock and scaled to the GPU's maximum (harness/device/roofline.py); None without such a row,
        its clock, the GPU's maximum or its SM count."""
        sms = self.header.sms
        found = []
        for r in self.all:
            s = r.timing.samples if r.timed and r.timing else None
            if r.impl != cublas_of("tf32") or s is None or r.figures is None or not s.max_mhz or not sms:
                continue
            if (clock := s.mean_mhz) is not None:
                found.append(TensorRoof(r.figures.tflops, clock, s.max_mhz, sms, f"{r.label} on {r.problem.label}"))
        return max(found, key=lambda t: t.flop_per_sm_cycle, default=None)

    def record(self, key: RowKey) -> Result:
        """The record of a row key (Result.key), as a finding names it."""
        return next(r for r in self.all if r.key == key)

    def best(self, results: list[Result], any_design: bool = False) -> Best | None:
        """The fastest of the results, leaving out Triton forms that are deliberately different from their CUDA
        kernel (registry `Counterpart.design`): they are shown, never an idea's best; with `any_design`, the fastest of
        any form (what a user who needs the answer would run)."""
        first: dict[tuple, Result] = {}
        for r in sorted(results, key=self.order):
            # a build study's row (CuPy's default build, harness/nvrtc/options.py) is shown beside the suite's build,
            # never an idea's best
            if (any_design or not self.deliberately_different(r)) and not r.impl_id.is_build_study:
                first.setdefault(self.launch(r), r)   # one launch timed for several kernels: its first record
        scored = [(p, r) for r in first.values() if (p := self.pct(r)) is not None]
        if not scored:
            return None
        p, r = max(scored, key=lambda pr: (pr[0], -self.order(pr[1])[1]))
        return Best(r, p, self.vs(r, Relation.CUBLAS))

    def timed_of(self, kernels: list[Kernel], problem: Problem, model: str, precision: str) -> list[Result]:
        ids = {k.id for k in kernels}
        return [r for r in self.all if r.kernel in ids and r.problem == problem and r.model == model
                and r.precision == precision and r.timed]

    def bests(self, kernels: list[Kernel] | tuple[Kernel, ...], problem: Problem, precision: str,
              models: tuple[str, ...] = ("cuda", "triton")) -> tuple[Best | None, ...]:
        """The fastest implementation of these kernels in each model (the CUDA kernel, the Triton counterpart; the
        Gluon form where asked) on a problem, in one class."""
        return tuple(self.best(self.timed_of(list(kernels), problem, model, precision)) for model in models)

    def precisions(self, kernels: list[Kernel], problem: Problem) -> list[str]:
        """The precision classes these kernels were timed in on a problem, fp32 first."""
        ids = {k.id for k in kernels}
        found = {r.precision for r in self.all if r.kernel in ids and r.problem == problem and r.timed}
        order = ("fp32", "3xtf32", "bf16x6", "bf16x3", "tf32")
        return [p for p in order if p in found] + sorted(found - set(order))

    # ------------------------------------------------------------------ the seed's own problem
    def seed_record(self, kernel_id: str, impl: str = "cuda") -> Result | None:
        """The record to hold beside a document's figure: the seeds' 4096^3 for sgemm, else the largest."""
        timed = [r for r in self.of_kernel(kernel_id, impl) if r.timed]
        if not timed:
            return None
        at_seed = [r for r in timed if r.problem == SEED_SGEMM]
        return at_seed[0] if at_seed else max(timed, key=lambda r: r.problem.M * r.problem.N * r.problem.K)

    # ------------------------------------------------------------------ compiled resources
    def counterpart(self, result: Result) -> Counterpart | None:
        kernel = self.catalog.by_id.get(result.kernel or "")
        if kernel is None or result.model != "triton":
            return None
        name = result.impl.split(":", 1)[-1]
        return next((c for c in kernel.counterparts if c.name == name), None)

    def deliberately_different(self, result: Result) -> bool:
        c = self.counterpart(result)
        return c is not None and c.deliberately_different

    # ------------------------------------------------------------------ what ran (the record's, never the seed's)
    def config(self, result: Result) -> dict:
        """A Triton result's launch settings as it ran: what the run recorded, an autotuner's choice in place of the
        settings it started from; derived from the catalog only for a record that kept none."""
        if result.resources is not None and result.resources.config:
            cfg = dict(result.resources.config)
            chosen = cfg.pop("autotuned", None)
            return {**cfg, **chosen} if isinstance(chosen, dict) else cfg
        kernel, c = self.catalog.by_id.get(result.kernel or ""), self.counterpart(result)
        return dict(c.config(kernel)) if kernel is not None and c is not None else {}

    def launch(self, result: Result) -> tuple:
        """What a record ran, for telling one launch from another: a Triton row's module, its configuration as it ran
        and its class (one compiled kernel launched alike, whichever CUDA kernel it stands beside: timed twice, it is
        an A/A pair); any other record's kernel and implementation."""
        c = self.counterpart(result)
        if c is None:
            return (*result.kernel_impl, result.precision)
        return (c.module, tuple(sorted((k, str(v)) for k, v in self.config(result).items())), result.precision)

    def tile(self, result: Result) -> tuple[int, int, int] | None:
        """The output tile per block or program and the K step that ran: the CUDA kernel's (its recorded facts), the
        Triton launch's (its configuration as it ran); None for a baseline."""
        if result.impl_id.is_cuda or result.impl_id.is_gluon:  # a Gluon form takes the CUDA kernel's decisions
            facts = result.kernel_facts
            return facts.tile if facts is not None else None
        cfg = self.config(result)
        if "block_m" not in cfg:
            return None
        return int(cfg["block_m"]), int(cfg.get("block_n", 0)), int(cfg.get("block_k", 0))

    def threads(self, result: Result) -> int | None:
        """Threads per block as launched: the CUDA kernel's block, the Triton launch's num_warps x 32, a Gluon
        kernel's warps as compiled (a warp-specialised kernel's partitions included)."""
        facts = result.kernel_facts
        if result.impl_id.is_cuda:
            return facts.threads if facts is not None and facts.threads else None
        if result.impl_id.is_gluon:
            evidence = result.resources.evidence if result.resources is not None else None
            warps = (evidence or {}).get("meta.warps")
            return 32 * int(warps) if isinstance(warps, int) else (facts.threads if facts is not None else None)
        warps = self.config(result).get("num_warps")
        return 32 * int(warps) if isinstance(warps, int) else None

    def shared(self, result: Result) -> tuple[int, int] | None:
        """(static, dynamic) shared memory per block in bytes. CUDA: ptxas's static count, and the launch's dynamic
        shared memory as the run recorded it (older files: the kernel's declaration in the catalog the file was
        analysed with). Triton declares no static shared memory: its launcher requests all of it at launch."""
        res = result.resources
        if res is None or res.shared_bytes is None:
            return None
        dynamic = res.dynamic_shared
        if dynamic is None:
            kernel = self.catalog.by_id.get(result.kernel or "")
            dynamic = kernel.dynamic_smem if kernel is not None and result.impl_id.is_cuda else 0
        if result.impl_id.is_cuda:
            return int(res.shared_bytes), int(dynamic)
        return 0, int(res.shared_bytes) + int(dynamic)

    def occupancy(self, result: Result) -> Occupancy | None:
        """Theoretical sm_90 occupancy from the compiled registers, the shared memory static and dynamic, and the
        launch's threads."""
        res, threads, shared = result.resources, self.threads(result), self.shared(result)
        if res is None or res.registers is None or threads is None or shared is None:
            return None
        try:
            return sm90_occupancy(int(res.registers), sum(shared), threads)
        except ValueError:
            return None

    def intensity(self, result: Result) -> float | None:
        """FLOP per byte of the traffic model at the tile that ran (A read once per column of blocks, B once per row;
        a naive kernel's tile is 1 x 1): the record's figure for CUDA, the Triton launch's own tile for Triton."""
        if result.figures is None:
            return None
        tile = self.tile(result)
        if result.op != "sgemm" or tile is None or not tile[1]:
            return result.figures.intensity
        facts = result.kernel_facts
        tm, tn = (1, 1) if facts is not None and facts.idea == "naive" else tile[:2]
        reads_c = bool(result.impl_id.is_cuda and facts is not None and facts.reads_c_when_beta_zero)
        return intensity(result.problem, tile_bytes(result.problem, tm, tn, reads_c))

    def compiled(self, kernel_id: str, impl: str) -> Result | None:
        """The first record of an implementation that carries its compiled resources."""
        return next((r for r in sorted(self.of_kernel(kernel_id, impl), key=lambda r: self.problems.index(r.problem))
                     if r.resources is not None and r.resources.registers is not None), None)

    @cached_property
    def implementations(self) -> list[tuple[str, str]]:
        """Every (kernel id, impl) pair present, in record order."""
        seen = dict.fromkeys((r.kernel or "", r.impl) for r in sorted(self.all, key=self.order) if r.kernel)
        return list(seen)
