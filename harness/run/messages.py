"""What passes between the parent and a worker process (run/worker.py), one dataclass per message.

The pipe pickles them, so each field is a plain value or a type of the harness; both ends import this module.
Parent to worker: a WorkerOptions at spawn, then a Task per problem and a Stop. Worker to parent: Ready once, then
for each implementation of a task Started, and either Finished (its record) or Checked (it waits for the rounds);
a Started with its round before each burst of the interleaved rounds, a Finished per timed implementation after
them, Done at the end of the task, and Poisoned where a failure left the CUDA context unusable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.catalog import CATALOG
from harness.catalog_types.tables import Catalog
from harness.device.roofline import Peaks
from harness.env import has_gpu
from harness.identity import ImplId, RecordKey
from harness.measure.rounds import REP_MS, ROUNDS
from harness.problems import SEED, Problem
from harness.records.lines import Result


@dataclass(frozen=True)
class ImplKey:
    """One implementation of a plan: its kernel (None for a baseline), its identity, its op."""

    kernel: str | None
    impl: ImplId
    op: str

    def on(self, problem: Problem) -> RecordKey:
        """The key of this implementation's record of `problem` (Result.key)."""
        return RecordKey.of(self.kernel, self.impl, problem)

    def same_as(self, result: Result) -> bool:
        """Is this the implementation the record measured?"""
        return self.on(result.problem) == result.key

    def __str__(self) -> str:
        return f"{self.kernel or self.impl} [{self.impl}]"


@dataclass(frozen=True)
class WorkerOptions:
    """How a worker measures: the run's catalog (its declared pairs too), the run's settings, and what to prepare
    before the first task."""

    catalog: Catalog = CATALOG                      # the kernels the run's keys name (pickled to the worker)
    gpu: bool = field(default_factory=has_gpu)      # measure on the GPU; False: the CPU tier (the interpreter)
    rep_ms: float = REP_MS
    seed: int = SEED
    rounds: int = ROUNDS
    aa: bool = False
    peaks: bool = False                             # measure the GPU's peaks at start
    build_variants: tuple[str, ...] = ("default",)  # the CUDA builds the plan loads (harness/nvrtc/options.py)
    cuda_kernels: tuple[str, ...] = ()              # kernel ids whose compile records to read ahead


@dataclass(frozen=True)
class DeviceFacts:
    """What a worker read of its GPU, so that the parent never opens a context itself (None: not read, no GPU)."""

    sms: int | None
    l2_bytes: int | None
    free_bytes: int | None
    arch: str | None


NO_DEVICE_FACTS = DeviceFacts(sms=None, l2_bytes=None, free_bytes=None, arch=None)


@dataclass(frozen=True)
class Ready:
    peaks: Peaks | None
    device: str | None
    facts: DeviceFacts = NO_DEVICE_FACTS


@dataclass(frozen=True)
class Task:
    problem: Problem
    keys: tuple[ImplKey, ...]
    peaks: Peaks | None


@dataclass(frozen=True)
class Stop:
    """No more tasks: the worker returns."""


@dataclass(frozen=True)
class Started:
    """An implementation is now on the GPU: its check begins, or (with a round) its burst in the interleaved rounds,
    so that the parent blames a crash or a hang on it."""

    key: ImplKey
    round: int | None = None


@dataclass(frozen=True)
class Finished:
    """An implementation's record: failed, skipped or untimed after its checks, or timed after the rounds."""

    result: Result


@dataclass(frozen=True)
class Checked:
    key: ImplKey  # its checks passed; nothing of it runs until its first burst in the rounds


@dataclass(frozen=True)
class Poisoned:
    """A failure left the CUDA context unusable (its record is sent): the worker exits."""

    reason: str


@dataclass(frozen=True)
class Done:
    """Every implementation of the task has its record."""


FromWorker = Ready | Started | Checked | Finished | Poisoned | Done
