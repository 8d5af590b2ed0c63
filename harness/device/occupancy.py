"""Theoretical occupancy on sm_90 (H100/H200), computed one way for every table and record.

The limits mirror cuda_occupancy.h, so the numbers agree with the CUDA occupancy calculator and
Nsight Compute's "theoretical occupancy".
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SM90_MAX_WARPS_PER_SM", "SM90_SHARED_RESERVED_PER_BLOCK", "Occupancy", "sm90_occupancy"]

SM90_REGISTERS_PER_SM = 65536
SM90_REGISTERS_PER_BLOCK = 65536
SM90_REGISTER_SUBPARTITIONS = 4
SM90_REGISTER_ALLOCATION_UNIT = 256  # registers per warp, i.e. 8 per thread
SM90_MAX_REGISTERS_PER_THREAD = 255
SM90_MAX_THREADS_PER_BLOCK = 1024
SM90_MAX_WARPS_PER_SM = 64
SM90_MAX_BLOCKS_PER_SM = 32
SM90_SHARED_PER_SM = 228 * 1024
SM90_SHARED_RESERVED_PER_BLOCK = 1024
SM90_SHARED_ALLOCATION_UNIT = 128
SM90_MAX_SHARED_PER_BLOCK = 227 * 1024
WARP_SIZE = 32


@dataclass(frozen=True)
class Occupancy:
    """Theoretical occupancy of one launch configuration on one SM.

    ``limiter`` names the resource that caps ``blocks_per_sm`` so a report can say what to change; on a
    tie the hardware ceilings ("threads", "blocks") win, because trimming registers or shared memory
    would not help then.
    """

    blocks_per_sm: int
    warps_per_sm: int
    fraction: float
    limiter: str


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def sm90_occupancy(registers: int, shared_bytes: int, threads_per_block: int) -> Occupancy:
    """Theoretical occupancy on sm_90, following cuda_occupancy.h.

    Registers are allocated per warp in units of 256 and per sub-partition (a quarter of the register
    file), which is why e.g. 200 registers/thread fits 8 warps rather than the naive 10. Shared memory
    assumes the maximum carveout (228 KiB) and that large allocations were opted into.
    """
    if threads_per_block <= 0:
        raise ValueError(f"threads_per_block must be positive, got {threads_per_block}")
    if registers < 0 or shared_bytes < 0:
        raise ValueError("registers and shared_bytes must be non-negative")

    warps_per_block = -(-threads_per_block // WARP_SIZE)
    too_big = threads_per_block > SM90_MAX_THREADS_PER_BLOCK
    by_threads = 0 if too_big else SM90_MAX_WARPS_PER_SM // warps_per_block
    by_blocks = SM90_MAX_BLOCKS_PER_SM

    regs_per_warp = _round_up(registers * WARP_SIZE, SM90_REGISTER_ALLOCATION_UNIT)
    # The hardware launch check assumes every sub-partition gets the same number of warps, hence warps
    # rounded up to a multiple of 4.
    regs_assumed_per_block = regs_per_warp * _round_up(warps_per_block, SM90_REGISTER_SUBPARTITIONS)
    if (registers > SM90_MAX_REGISTERS_PER_THREAD or regs_assumed_per_block > SM90_REGISTERS_PER_BLOCK
            or regs_per_warp * warps_per_block > SM90_REGISTERS_PER_BLOCK):
        by_registers = 0
    elif regs_per_warp == 0:
        by_registers = by_blocks
    else:
        per_partition = SM90_REGISTERS_PER_SM // SM90_REGISTER_SUBPARTITIONS
        warps = (per_partition // regs_per_warp) * SM90_REGISTER_SUBPARTITIONS
        by_registers = warps // warps_per_block

    if shared_bytes > SM90_MAX_SHARED_PER_BLOCK:
        by_shared = 0
    else:
        allocated = _round_up(shared_bytes + SM90_SHARED_RESERVED_PER_BLOCK, SM90_SHARED_ALLOCATION_UNIT)
        by_shared = SM90_SHARED_PER_SM // allocated

    limits = {"threads": by_threads, "blocks": by_blocks, "registers": by_registers, "shared memory": by_shared}
    blocks = min(limits.values())
    limiter = next(name for name, value in limits.items() if value == blocks)
    warps = blocks * warps_per_block
    return Occupancy(blocks_per_sm=blocks, warps_per_sm=warps, fraction=warps / SM90_MAX_WARPS_PER_SM,
                     limiter=limiter)
