"""KernelResources: what a compiler allotted to one compiled kernel, and the facts read off its code."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from harness.inspect.occupancy import Occupancy, sm90_occupancy

__all__ = ["KernelResources"]


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
