"""Seed 002's worked example (N = 4, TILE_SIZE = 2): which global indices each block loads in each phase.

Two witnesses, both running real code:
- GPU: the CUDA kernel itself, built with one line added after its tile loads that writes TILE_A and
  TILE_B of every (block, thread, phase) to a __device__ array (the instrumented copy is made from
  the .cu file at run time, so it cannot drift from the source).
- CPU: the Triton counterpart in the interpreter, with the interpreter's masked load observed: the
  flat offsets into A and B each program reads in each K step (Triton has programs, not threads, so
  its table is per program).
Both must reproduce the document's tables; tests pin them.
"""

from __future__ import annotations

from collections import defaultdict

from harness.registry import get
from kernels_cuda import source_path

N, TILE = 4, 2
KERNEL_ID = "s002.tiled_matmul<2>"
# The document's tables for block (0,0), keyed by phase: (A indices, B indices).
DOCUMENT_BLOCK_00 = {0: ((0, 1, 4, 5), (0, 1, 4, 5)), 1: ((2, 3, 6, 7), (8, 9, 12, 13))}
_ANCHOR = "tile_B[threadIdx.y][threadIdx.x] = B[TILE_B];"
_PROBE = (
    " { int slot = ((((blockIdx.y * gridDim.x + blockIdx.x) * blockDim.y + threadIdx.y) * blockDim.x"
    " + threadIdx.x) * (N / TILE_SIZE) + t) * 2; rosetta_trace[slot] = TILE_A; rosetta_trace[slot + 1] = TILE_B; }"
)


def instrumented_source() -> str:
    src = source_path(get(KERNEL_ID).source).read_text()
    if src.count(_ANCHOR) != 1:
        raise RuntimeError(f"trace: the tile-load line {_ANCHOR!r} is not in the source once; update the probe")
    return "__device__ int rosetta_trace[4096];\n" + src.replace(_ANCHOR, _ANCHOR + _PROBE)


def trace_cuda() -> dict:
    """{(block_y, block_x): {phase: {(thread_y, thread_x): (TILE_A, TILE_B)}}} from the GPU."""
    import cupy as cp
    import numpy as np

    kernel = get(KERNEL_ID)
    module = cp.RawModule(code=instrumented_source(), options=("-std=c++17",), name_expressions=[kernel.symbol])
    fn = module.get_function(kernel.symbol)
    buf = cp.ndarray((4096,), cp.int32, module.get_global("rosetta_trace"))
    buf.fill(-1)
    a = cp.arange(N * N, dtype=cp.float32)
    b = cp.arange(N * N, dtype=cp.float32)
    c = cp.empty(N * N, dtype=cp.float32)
    grid = (N // TILE, N // TILE, 1)
    fn(grid, kernel.block, (a, b, c, np.int32(N)))
    cp.cuda.Device().synchronize()
    data = buf.get()
    out: dict = defaultdict(lambda: defaultdict(dict))
    phases = N // TILE
    for by in range(grid[1]):
        for bx in range(grid[0]):
            for ty in range(TILE):
                for tx in range(TILE):
                    for t in range(phases):
                        slot = ((((by * grid[0] + bx) * TILE + ty) * TILE + tx) * phases + t) * 2
                        out[(by, bx)][t][(ty, tx)] = (int(data[slot]), int(data[slot + 1]))
    return out


def trace_triton() -> dict:
    """{(program_m, program_n): {phase: (A offsets, B offsets)}} from the interpreter."""
    import torch
    from triton.runtime import interpreter

    from harness.launch import triton as launch_triton

    kernel = get(KERNEL_ID)
    counterpart = kernel.counterparts[0]
    block_k = int(launch_triton.config(kernel, counterpart)["block_k"])
    A = torch.arange(N * N, dtype=torch.float32).reshape(N, N)
    B = torch.arange(N * N, dtype=torch.float32).reshape(N, N)
    C = torch.empty(N, N)
    base = {"A": A.data_ptr(), "B": B.data_ptr()}
    loads: dict = defaultdict(list)
    builder = interpreter.interpreter_builder
    original = builder.create_masked_load

    def observed(ptrs, mask, other, *rest):
        addrs = ptrs.data.reshape(-1)[mask.data.reshape(-1).astype(bool)]
        for name in ("A", "B"):
            offs = (addrs.astype("int64") - base[name]) // 4
            inside = offs[(offs >= 0) & (offs < N * N)]
            if len(inside) == len(addrs) and len(addrs):
                x, y, _ = builder.grid_idx
                loads[(int(y), int(x))].append((name, tuple(sorted(int(o) for o in inside))))
        return original(ptrs, mask, other, *rest)

    builder.create_masked_load = observed
    try:
        launch_triton.bind(kernel, counterpart, {"A": A, "B": B, "C": C}, device_type="cpu")()
    finally:
        builder.create_masked_load = original
    out: dict = {}
    for program, seq in loads.items():
        per_phase: dict = defaultdict(lambda: ({"A": set(), "B": set()}))
        a_steps = [offs for name, offs in seq if name == "A"]
        b_steps = [offs for name, offs in seq if name == "B"]
        for step, (oa, ob) in enumerate(zip(a_steps, b_steps, strict=True)):
            per_phase[step // block_k]["A"].update(oa)
            per_phase[step // block_k]["B"].update(ob)
        out[program] = {t: (tuple(sorted(v["A"])), tuple(sorted(v["B"]))) for t, v in per_phase.items()}
    return out


def block_sets(cuda_trace: dict, block: tuple[int, int]) -> dict:
    """Per phase, the A and B index sets a CUDA block loads (the union over its threads)."""
    return {t: (tuple(sorted(v[0] for v in threads.values())), tuple(sorted(v[1] for v in threads.values())))
            for t, threads in cuda_trace[block].items()}


def trace(gpu: bool) -> dict:
    return {"gpu": gpu, "table": trace_cuda() if gpu else trace_triton()}


def print_trace(result: dict, console, source: str) -> None:
    from harness.term_table import Column, print_table

    title = f"Seed 002 worked example (N={N}, TILE_SIZE={TILE}) - {source}"
    rows: list[list[str]] = []
    if result["gpu"]:
        headers = ("block (y,x)", "phase t", "thread (y,x)", "TILE_A index", "TILE_B index")
        for blk, phases in sorted(result["table"].items()):
            for t, threads in sorted(phases.items()):
                for thr, (ia, ib) in sorted(threads.items()):
                    rows.append([str(blk), str(t), str(thr), str(ia), str(ib)])
    else:
        headers = ("program (m,n)", "K step (phase)", "A offsets", "B offsets")
        for prog, phases in sorted(result["table"].items()):
            for t, (ia, ib) in sorted(phases.items()):
                rows.append([str(prog), str(t), str(ia), str(ib)])
    # The offset columns are tuples of indices: they wrap, the block/program/phase columns stay whole.
    print_table(console, title, [Column(h, wrap=20 if h.endswith(("offsets", "index")) else None)
                                 for h in headers], rows)
    console.print(f"The document, block (0,0): phase 1 A {DOCUMENT_BLOCK_00[0][0]} B {DOCUMENT_BLOCK_00[0][1]}; "
                  f"phase 2 A {DOCUMENT_BLOCK_00[1][0]} B {DOCUMENT_BLOCK_00[1][1]}")
