"""FLOPs, bytes and operational intensity of a problem, and the peaks a device was measured at."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from harness.problems import Problem

FP32 = 4


def flops(p: Problem) -> float:
    """2*M*N*K for sgemm (the alpha/beta epilogue is not counted), 2*M*N for sgemv."""
    return p.flops


def operand_bytes(p: Problem) -> int:
    """The fewest bytes any implementation must move: every input read once, the output written once."""
    if p.op == "sgemv":
        return FP32 * (p.M * p.N + p.N + p.M)
    c_reads = p.M * p.N if p.beta != 0.0 else 0
    return FP32 * (p.M * p.K + p.K * p.N + p.M * p.N + c_reads)


def tile_bytes(p: Problem, tile_m: int, tile_n: int, reads_c: bool) -> int:
    """Bytes a tiled kernel moves from global memory when each block reads its A rows and B columns once.

    A is read once per column of blocks (N / tile_n times), B once per row of blocks (M / tile_m);
    a kernel with no on-chip reuse is the 1 x 1 tile. Caches can only lower this.
    """
    if p.op == "sgemv":
        return operand_bytes(p)
    a = p.M * p.K * -(-p.N // tile_n)
    b = p.K * p.N * -(-p.M // tile_m)
    c = p.M * p.N * (2 if reads_c or p.beta != 0.0 else 1)
    return FP32 * (a + b + c)


def intensity(p: Problem, moved_bytes: int) -> float:
    return flops(p) / moved_bytes


@dataclass
class Peaks:
    fp32_tflops: float      # FFMA throughput, all SMs
    copy_gbps: float        # device-to-device copy, bytes read + written
    device: str

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Peaks:
        return cls(float(data["fp32_tflops"]), float(data["copy_gbps"]), str(data.get("device", "")))


@dataclass(frozen=True)
class TensorRoof:
    """The tensor cores' roof a run measured: the fastest TF32 rate it timed, with the SM clock it ran at and the same
    work per cycle scaled to the GPU's maximum SM clock. The spec sheet's dense figure (harness/device/specs.py) assumes
    a clock of its own; a rate per SM cycle compares with it whatever clock either ran at."""

    tflops: float             # the rate as timed (median time)
    clock_mhz: float          # the mean SM clock of its timed runs (readings above the maximum corrected)
    max_mhz: float            # the GPU's maximum SM clock (NVML)
    sms: int
    source: str               # what was timed: "cuBLAS TF32 on sgemm 8192x8192x8192"

    @property
    def flop_per_sm_cycle(self) -> float:
        return self.tflops * 1e12 / (self.clock_mhz * 1e6 * self.sms)

    @property
    def at_max_clock(self) -> float:
        """TFLOP/s at the GPU's maximum SM clock, the same work per cycle."""
        return self.tflops * self.max_mhz / self.clock_mhz

    @property
    def text(self) -> str:
        """What was timed, at what clock, and the same work per cycle at the GPU's maximum clock."""
        return (f"{self.tflops:.0f} TFLOP/s timed ({self.source}) at a mean {self.clock_mhz:.0f} MHz: "
                f"{self.flop_per_sm_cycle:.0f} FLOP per SM cycle, {self.at_max_clock:.0f} TFLOP/s at the GPU's "
                f"maximum {self.max_mhz:.0f} MHz")
