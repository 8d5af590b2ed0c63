"""KernelResources: what a compiler allotted to one compiled kernel, and the facts read off its code; Resources:
the form a results record keeps of them (with the launch settings, counters and evidence read beside)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from harness.device.occupancy import Occupancy, sm90_occupancy

__all__ = ["KernelResources", "Resources"]


@dataclass(frozen=True)
class KernelResources:
    """Per thread or per block, as the compiler reports it.

    ``shared_bytes`` is everything the block needs at launch apart from the 1 KiB the driver reserves:
    static ``__shared__`` arrays, plus for Triton the dynamic shared memory its launcher always
    requests. CUDA kernels with ``extern __shared__`` buffers must pass that size to :meth:`occupancy`
    because it is only known at launch.

    ``spill_stores``/``spill_loads`` are ptxas's byte counts. Where no ptxas log was available they are
    0, and ``sass["LDL"]``/``sass["STL"]`` are the evidence of local-memory traffic (spills or indexed
    register arrays alike).

    ``facts`` are counts read off the compiled code that the SASS mix does not hold: for every kernel
    ptxas's named-barrier count; for Triton kernels the ttgir facts (``harness.inspect.ttgir``).
    """

    registers: int
    shared_bytes: int
    local_bytes: int
    spill_stores: int
    spill_loads: int
    sass: dict[str, int] = field(hash=False)
    kernel: str = ""  # mangled (CUDA) or Triton kernel name, for reports
    facts: dict[str, int] = field(default_factory=dict, hash=False)

    def occupancy(self, threads_per_block: int, dynamic_shared_bytes: int = 0) -> Occupancy:
        """Theoretical sm_90 occupancy; pass launch-time dynamic shared memory for CUDA kernels."""
        return sm90_occupancy(self.registers, self.shared_bytes + dynamic_shared_bytes, threads_per_block)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> KernelResources:
        return cls(**data)


@dataclass
class Resources:
    """What the compiler chose for one implementation (None where it was not read)."""

    registers: int | None = None
    spills: int | None = None
    shared_bytes: int | None = None          # static (Triton: what its launcher requests, all of it at launch)
    local_bytes: int | None = None
    sass: dict[str, int] = field(default_factory=dict)
    occupancy: float | None = None          # theoretical, 0..1, with the dynamic shared memory of the launch
    source: str = ""                        # how it was obtained
    driver: dict[str, int] | None = None    # what the driver reports for the loaded CUDA function
    config: dict | None = None              # a Triton launch's settings (the autotuner's choice included)
    profile: dict[str, float] | None = None  # hardware counters read by ncu
    error: str | None = None                # reading them failed: why
    evidence: dict[str, int | bool] | None = None  # facts the mapping claims are proven on (ttgir, source, ptxas)
    # a CUDA launch's dynamic shared memory (extern __shared__), on top of shared_bytes (None: files from before)
    dynamic_shared: int | None = None

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v not in (None, {}, "")}

    @classmethod
    def from_json(cls, data: dict) -> Resources:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
