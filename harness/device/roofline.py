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
    """What a worker measured of its GPU at its start (harness/run/peaks.py): the FP32 FMA peak with the SM clock it
    ran at, the copy bandwidth, and the SM clock probe's own error by window length."""

    fp32_tflops: float      # FFMA throughput, all SMs
    copy_gbps: float        # device-to-device copy, bytes read + written
    device: str
    # the mean SM clock the probe read over the FMA peak's runs (corrected to the GPU's maximum); None: older files,
    # which recorded none
    fp32_mhz: float | None = None
    fp32_tries: int = 1     # measurements taken: another where the clock was more than PEAK_CLOCK_DROP below the max
    # the probe's error by window length (ms -> relative error): the 95th percentile of |probe reading / NVML's clock
    # - 1| over windows of that length; None: not measured
    probe_error: dict[float, float] | None = None

    def to_json(self) -> dict:
        out = asdict(self)
        if self.probe_error is not None:  # JSON keys are strings
            out["probe_error"] = {f"{ms:g}": e for ms, e in self.probe_error.items()}
        return out

    @classmethod
    def from_json(cls, data: dict) -> Peaks:
        probe = data.get("probe_error")
        return cls(float(data["fp32_tflops"]), float(data["copy_gbps"]), str(data.get("device", "")),
                   data.get("fp32_mhz"), int(data.get("fp32_tries", 1)),
                   {float(ms): float(e) for ms, e in probe.items()} if probe else None)


@dataclass(frozen=True)
class TensorRoof:
    """The tensor cores' roof a run measured: the fastest TF32 rate it timed per SM cycle, with the SM clock the probe
    read while it ran. The spec sheet's dense figure (harness/device/specs.py) is stated at a clock of its own (the
    H100 SXM's at 1829 MHz, under the GPU's maximum 1980): the two compare per SM cycle, or, the same, the measured rate
    per cycle at the sheet's clock (`at_mhz`); never a rate projected to the maximum clock against a figure stated at
    a lower one."""

    tflops: float             # the rate as timed (median time)
    clock_mhz: float          # the mean SM clock of its timed runs (readings above the maximum corrected)
    max_mhz: float            # the GPU's maximum SM clock (NVML)
    sms: int
    source: str               # what was timed: "cuBLAS TF32 on sgemm 8192x8192x8192"

    @property
    def flop_per_sm_cycle(self) -> float:
        return self.tflops * 1e12 / (self.clock_mhz * 1e6 * self.sms)

    def at_mhz(self, mhz: float) -> float:
        """TFLOP/s at another SM clock, the same work per cycle."""
        return self.tflops * mhz / self.clock_mhz

    @property
    def text(self) -> str:
        """What was timed, at what clock, and its work per SM cycle."""
        return (f"{self.tflops:.0f} TFLOP/s timed ({self.source}) at a mean {self.clock_mhz:.0f} MHz as the clock "
                f"probe read it: {self.flop_per_sm_cycle:.0f} FLOP per SM cycle")
