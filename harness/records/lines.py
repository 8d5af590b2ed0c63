"""The records of a results file, typed: the run header, one Result per measurement, the end record.

Every record has `to_json` / `from_json`; `from_json` validates and raises ValueError saying what is
wrong, and results.load() adds the file and line. The JSON layout is the one files already on disk
use (schema 1): figures sit at the top level of a result, beside its timing, numerics and resources,
and fields added since are optional, so old files keep loading. An implementation is named by its
identity (harness/identity.py ImplId), so that tables, plots and the terminal name records one way.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from enum import Enum

from harness.device.kernel_resources import Resources  # the record's field type, defined beside what it is read from
from harness.device.roofline import Peaks
from harness.identity import ImplId, KernelImpl, RecordKey
from harness.measure.numerics import Verdict, failure
from harness.measure.regime import Regime
from harness.measure.timing import Samples, Timing
from harness.problems import Problem
from harness.records.kernel_facts import KernelFacts, facts_of_id

SCHEMA = 1


def now() -> str:
    """The time stamp a run header and a run end carry: UTC, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Status(str, Enum):
    OK = "ok"                  # checked and (on a GPU) timed
    FAILED = "failed"          # numerics failed, the launch raised, the worker died or ran out of time
    SKIPPED = "skipped"        # the problem is outside the kernel's preconditions
    COMPILED = "compiled"      # CPU tier: compiled for sm_90 and its resources read, not run


def _need(data: dict, *names: str, what: str) -> None:
    missing = [n for n in names if n not in data]
    if missing:
        raise ValueError(f"{what} lacks {', '.join(missing)}")


@dataclass
class Beta0:
    """With beta == 0 and NaN in C: does NaN reach the output, and what does the registry declare?"""

    observed: str
    declared: str
    how: str

    @property
    def agrees(self) -> bool:
        return self.observed == self.declared

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Beta0:
        _need(data, "observed", "declared", what="beta0")
        return cls(str(data["observed"]), str(data["declared"]), str(data.get("how", "")))


@dataclass
class Numerics:
    passed: bool
    exact: Verdict | None = None
    random: Verdict | None = None
    beta0: Beta0 | None = None
    # inputs scaled so that products and partial sums are subnormal (None in files from before the layer)
    subnormal: Verdict | None = None
    # every element of A and B scaled by 2^e, e in [-20, 20] (None in files from before the layer)
    scaled: Verdict | None = None
    # why the row's precision class is not what was computed ("not checked at this precision on a CPU": the CPU tier
    # could not round as the class does, so the checks held an fp32 result to the class's bounds); "" where it was
    not_checked: str = ""

    @property
    def layers(self) -> dict[str, Verdict]:
        """The verdicts this record holds, by layer name."""
        found = {"exact": self.exact, "random": self.random, "subnormal": self.subnormal, "scaled": self.scaled}
        return {name: v for name, v in found.items() if v is not None}

    def failure_reasons(self) -> list[str]:
        out = failure(self.layers)  # what the layers saw, a cause only where they tell it (harness/measure/numerics)
        if self.beta0 is not None and not self.beta0.agrees:
            out.append(f"beta == 0: {self.beta0.observed}, declared {self.beta0.declared}")
        return out

    def to_json(self) -> dict:
        return {"passed": self.passed, "exact": self.exact.to_json() if self.exact else None,
                "random": self.random.to_json() if self.random else None,
                "beta0": self.beta0.to_json() if self.beta0 else None,
                "subnormal": self.subnormal.to_json() if self.subnormal else None,
                "scaled": self.scaled.to_json() if self.scaled else None,
                **({"not_checked": self.not_checked} if self.not_checked else {})}

    @classmethod
    def from_json(cls, data: dict) -> Numerics:
        _need(data, "passed", what="numerics")
        return cls(bool(data["passed"]),
                   Verdict.from_json(data["exact"]) if data.get("exact") else None,
                   Verdict.from_json(data["random"]) if data.get("random") else None,
                   Beta0.from_json(data["beta0"]) if data.get("beta0") else None,
                   Verdict.from_json(data["subnormal"]) if data.get("subnormal") else None,
                   Verdict.from_json(data["scaled"]) if data.get("scaled") else None,
                   str(data.get("not_checked") or ""))


# Figures derived from the median time; stored flat at the top level of a result, as schema 1 has them. (Files of
# earlier versions also hold a "pct_cublas" the worker computed from medians: it is read by nothing, the one % of
# cuBLAS is the analysis's, harness/analysis/measured.py Measured.pct.)
@dataclass
class Figures:
    tflops: float
    gbps: float
    intensity: float
    bytes_model: int
    pct_peak: float | None = None       # FP32 FMA peak (sgemm fp32 rows) or copy bandwidth (sgemv)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Figures | None:
        if "tflops" not in data:
            return None
        return cls(float(data["tflops"]), float(data["gbps"]), float(data["intensity"]), int(data["bytes_model"]),
                   data.get("pct_peak"))


@dataclass
class Result:
    """One implementation on one problem."""

    impl: str                   # an ImplId's JSON form: "cuda", "triton:<form>", a baseline: "cublas", ...
    model: str                  # ImplId.model, as the file writes it (Result.of derives it)
    problem: Problem
    status: Status
    kernel: str | None = None   # registry id; None for a baseline
    tf32: bool = False
    precision: str = "fp32"
    reason: str = ""
    traceback: str | None = None
    numerics: Numerics | None = None
    timing: Timing | None = None
    figures: Figures | None = None
    resources: Resources | None = None
    device: str | None = None   # the GPU that measured it (runs spread over several GPUs name each)
    gpu: str | None = None      # which of the host's GPUs (its CUDA_VISIBLE_DEVICES value) in a --gpus run
    pack_ms: float | None = None  # one-off cost of packing B for a layout variant (not in the kernel's time)
    # Seconds per phase (harness/run/phases.py): "compile", "numerics", "resources", "timing" in the worker; "build"
    # for a CUDA source the CPU tier compiles
    phase_s: dict[str, float] = field(default_factory=dict)
    # its kernel's facts when the run wrote it (None for a baseline, and in files from before records carried them)
    facts: KernelFacts | None = None
    # a sustained-regime record's bursts and steady rounds (harness/measure/regime.py); None in a run of bursts
    regime: Regime | None = None

    @classmethod
    def of(cls, impl: ImplId, problem: Problem, status: Status, **fields: object) -> Result:
        """A record of an implementation, its impl and model fields written from its identity."""
        return cls(impl=impl.to_json(), model=impl.model, problem=problem, status=status, **fields)  # type: ignore[arg-type]

    @property
    def impl_id(self) -> ImplId:
        return ImplId.from_json(self.impl)

    @property
    def kernel_facts(self) -> KernelFacts | None:
        """The facts its row is drawn with: those it recorded, else today's registry's (older files)."""
        return self.facts if self.facts is not None else facts_of_id(self.kernel)

    @property
    def op(self) -> str:
        return self.problem.op

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    @property
    def timed(self) -> bool:
        return self.status is Status.OK and self.timing is not None and self.timing.median_ms > 0

    @property
    def median_ms(self) -> float | None:
        return self.timing.median_ms if self.timing else None

    def samples(self) -> list[Samples]:
        """Every set of timed runs the record holds: its rounds, its A/A twin's, a sustained record's bursts."""
        found = [self.timing.samples, self.timing.aa] if self.timing else []
        if self.regime is not None:
            found += [self.regime.burst, self.regime.aa_burst]
        return [s for s in found if s is not None]

    @property
    def rate(self) -> float | None:
        """TFLOP/s for sgemm, GB/s for sgemv."""
        if self.figures is None:
            return None
        return self.figures.tflops if self.op == "sgemm" else self.figures.gbps

    @property
    def baseline(self) -> bool:
        return self.kernel is None

    @property
    def vendor(self) -> bool:
        """A cuBLAS record: the yardstick of its precision class (a Triton baseline's record is not)."""
        return self.kernel is None and self.impl_id.is_cublas

    @property
    def label(self) -> str:
        """How the implementation is named in tables (ImplId.label: 'torch CPU (fp32)' on a run without a GPU)."""
        return self.impl_id.label(self.device)

    @property
    def kernel_impl(self) -> KernelImpl:
        """Its implementation of its kernel, whatever the problem."""
        return KernelImpl(self.kernel, self.impl)

    @property
    def key(self) -> RecordKey:
        """What identifies a measurement across runs: implementation and problem."""
        return RecordKey.of(self.kernel, self.impl, self.problem)

    def to_json(self) -> dict:
        out: dict = {"record": "result", "kernel": self.kernel, "impl": self.impl, "model": self.model,
                     "op": self.op, "problem": self.problem.to_json(), "tf32": self.tf32, "status": self.status.value}
        if self.precision != "fp32":
            out["precision"] = self.precision
        for name in ("reason", "traceback", "device", "gpu", "pack_ms"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        for name in ("numerics", "timing", "resources"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value.to_json()
        if self.phase_s:
            out["phase_s"] = dict(self.phase_s)
        if self.facts is not None:
            out["kernel_facts"] = self.facts.to_json()
        if self.regime is not None:
            out["regime"] = self.regime.to_json()
        if self.figures is not None:
            out.update(self.figures.to_json())
        return out

    @classmethod
    def from_json(cls, data: dict) -> Result:
        _need(data, "impl", "problem", "status", what="result")
        try:
            status = Status(data["status"])
        except ValueError:
            raise ValueError(f"unknown status {data['status']!r} (expected one of "
                             f"{', '.join(s.value for s in Status)})") from None
        impl = ImplId.from_json(data["impl"])  # ValueError for a string that names no implementation
        return cls(impl=impl.to_json(), model=str(data.get("model") or impl.model),
                   problem=Problem.from_json(data["problem"]), status=status, kernel=data.get("kernel"),
                   tf32=bool(data.get("tf32", False)), precision=str(data.get("precision") or
                                                                    ("tf32" if data.get("tf32") else "fp32")),
                   reason=str(data.get("reason") or ""), traceback=data.get("traceback"),
                   numerics=Numerics.from_json(data["numerics"]) if data.get("numerics") else None,
                   timing=Timing.from_json(data["timing"]) if data.get("timing") else None,
                   figures=Figures.from_json(data),
                   resources=Resources.from_json(data["resources"]) if data.get("resources") else None,
                   device=data.get("device"), gpu=data.get("gpu"), pack_ms=data.get("pack_ms"),
                   phase_s=_phases(data.get("phase_s")),
                   facts=KernelFacts.from_json(data["kernel_facts"]) if data.get("kernel_facts") else None,
                   regime=Regime.from_json(data["regime"]) if data.get("regime") else None)


def _phases(data: object) -> dict[str, float]:
    """A result's phase_s: seconds per phase; absent in files written before it existed."""
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(v, (int, float)) for v in data.values()):
        raise ValueError(f"phase_s {data!r}: expected seconds per phase, e.g. {{\"compile\": 1.2}}")
    return {str(k): float(v) for k, v in data.items()}


@dataclass
class RunHeader:
    started: str
    mode: str                   # "gpu" or "cpu"
    device: str
    versions: dict[str, str]
    argv: list[str]
    seed: int
    problems: list[Problem]
    rep_ms: float
    sms: int | None = None
    l2_bytes: int | None = None
    peaks: Peaks | None = None
    devices: list[str] | None = None        # every GPU a spread run used
    peaks_by_device: dict[str, Peaks] | None = None
    shard: str | None = None                # "i/n" when this file holds one shard of a run
    timeout_s: float | None = None          # per-implementation limit of the isolated workers
    build: dict | None = None               # the CUDA build: compiler, arch, each variant's options (harness/nvrtc)
    rounds: int | None = None               # interleaved timing rounds per problem (None: single bursts, older files)
    aa: bool = False                        # every implementation also timed as a second entry: the A/A control
    # a user's own pairs the run declared: their kernels and ideas as the catalog writes them, code included
    # (harness/catalog_types/tables.py declared_json), so that the file's analysis and page need no file of the user's
    pairs: dict | None = None
    schema: int = SCHEMA
    # the card's power limit, enforced limit, driver, as NVML gave them (harness/measure/energy.py Card); None: older
    # files
    power: dict | None = None
    # a sustained-regime run (harness/measure/sustained.py): its name, rule, the burst run it took its rows from; None:
    # bursts
    regime: dict | None = None

    @property
    def probe_error(self) -> dict[float, float] | None:
        """The SM clock probe's error the run measured, by window length: the worst of its GPUs' at each length
        (harness/run/peaks.py); None where any GPU's was not measured."""
        every = [p for p in (self.peaks, *(self.peaks_by_device or {}).values()) if p is not None]
        if not every or any(p.probe_error is None for p in every):
            return None
        lengths = set.intersection(*(set(p.probe_error) for p in every))  # type: ignore[arg-type]
        return {ms: max(p.probe_error[ms] for p in every) for ms in sorted(lengths)} or None  # type: ignore[index]

    def to_json(self) -> dict:
        out = {"record": "run", "schema": self.schema, "started": self.started, "mode": self.mode,
               "device": self.device, "versions": self.versions, "argv": self.argv, "seed": self.seed,
               "problems": [p.to_json() for p in self.problems], "rep_ms": self.rep_ms}
        for name in ("sms", "l2_bytes", "devices", "shard", "timeout_s", "build", "rounds", "pairs", "power", "regime"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.aa:
            out["aa"] = True
        if self.peaks is not None:
            out["peaks"] = self.peaks.to_json()
        if self.peaks_by_device:
            out["peaks_by_device"] = {k: v.to_json() for k, v in self.peaks_by_device.items()}
        return out

    @classmethod
    def from_json(cls, data: dict) -> RunHeader:
        _need(data, "schema", what="run header")
        if data["schema"] != SCHEMA:
            newer = isinstance(data["schema"], int) and data["schema"] > SCHEMA
            raise ValueError(f"results schema {data['schema']!r}, this version reads {SCHEMA}"
                             + ("; the file is from a newer tile-rosetta: upgrade to read it" if newer else ""))
        _need(data, "started", "mode", "device", what="run header")
        by_device = data.get("peaks_by_device")
        return cls(str(data["started"]), str(data["mode"]), str(data["device"]), dict(data.get("versions") or {}),
                   list(data.get("argv") or []), int(data.get("seed", 0)),
                   [Problem.from_json(p) for p in data.get("problems") or []], float(data.get("rep_ms", 0.0)),
                   data.get("sms"), data.get("l2_bytes"),
                   Peaks.from_json(data["peaks"]) if data.get("peaks") else None, data.get("devices"),
                   {k: Peaks.from_json(v) for k, v in by_device.items()} if by_device else None,
                   data.get("shard"), data.get("timeout_s"), data.get("build"), data.get("rounds"),
                   bool(data.get("aa", False)), data.get("pairs"), power=data.get("power"), regime=data.get("regime"))


@dataclass
class RunEnd:
    finished: str
    failures: int
    results: int

    def to_json(self) -> dict:
        return {"record": "end", **asdict(self)}

    @classmethod
    def from_json(cls, data: dict) -> RunEnd:
        _need(data, "finished", "failures", "results", what="end record")
        return cls(str(data["finished"]), int(data["failures"]), int(data["results"]))
