"""The numbers the mapping claims are proven on (harness/catalog_types/evidence.py), read off the compiled kernels:
one kernel, each of its Triton counterparts and each of its Gluon counterparts. The CPU tier compiles ahead of time for
sm_90; the GPU tier reads the handles of real launches (`on_gpu`); a run's records give the same numbers for what it
compiled (`cuda_numbers`, `triton_numbers` and `gluon_numbers` over the recorded resources,
harness/analysis/recorded_evidence.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from harness.catalog_types.evidence import Evidence, KernelEvidence, Numbers
from harness.catalog_types.gluon import GluonCounterpart
from harness.claims.compilers import installed
from harness.device.kernel_resources import KernelResources
from harness.inspect.compile_gluon import gluon_resources
from harness.inspect.resources import counterpart_resources, kernel_cuda_resources
from harness.inspect.source_facts import source_facts
from harness.registry import Counterpart, Kernel
from kernels_cuda import expanded, source_path

__all__ = ["Evidence", "KernelEvidence", "Numbers", "cuda_numbers", "gather", "gluon_numbers", "on_gpu",
           "triton_numbers"]


def _compiled(r: KernelResources) -> dict[str, int]:
    out: dict[str, int] = {"registers": r.registers, "spills": r.spill_stores + r.spill_loads,
                           "shared_bytes": r.shared_bytes, "local_bytes": r.local_bytes, **r.sass}
    for key, value in r.facts.items():
        # ttgir facts by bare name; the TTIR's and the PTX's carry their own prefix ("ttir.", "ptx.")
        out[key if key == "barriers" or "." in key else f"ttgir.{key}"] = int(value)
    return out


# fp32 -> tf32 conversions a CUDA source writes as inline PTX (inside an asm("...") string, not in a comment): the
# source text stands for the PTX until the suite's NVRTC build keeps the PTX it compiles.
_SRC_CVT_TF32 = {"src.cvt_rn_tf32": re.compile(r"\basm\s*(?:volatile\s*)?\(\s*\"[^\"]*\bcvt\.rn\.tf32\.f32\b"),
                 "src.cvt_rna_tf32": re.compile(r"\basm\s*(?:volatile\s*)?\(\s*\"[^\"]*\bcvt\.rna(?:\.satfinite)?"
                                                r"\.tf32\.f32\b"),
                 # a mask of the upper 19 bits (sign, exponent, 10 mantissa bits): truncation to tf32, or, after
                 # adding half a tf32 ulp to the bit pattern, rounding to nearest with ties away
                 "src.tf32_mask": re.compile(r"&\s*0xffffe000u?\b", re.IGNORECASE),
                 "src.tf32_round_bits": re.compile(r"\+\s*0x1000u?\s*\)\s*&\s*0xffffe000u?\b", re.IGNORECASE)}


def cuda_numbers(kernel: Kernel, r: KernelResources, driver: Mapping[str, int] | None = None) -> Numbers:
    """The CUDA side: ptxas's report from the suite's build, the source facts and the block geometry; a GPU run's
    driver attributes (what the loaded function really holds) replace the compile-time registers and memory."""
    out = _compiled(r)
    out.update({f"src.{k}": v for k, v in source_facts(source_path(kernel.source)).items()})
    text = expanded(source_path(kernel.source))  # with its headers, as the compiler reads it
    out.update({name: len(pattern.findall(text)) for name, pattern in _SRC_CVT_TF32.items()})
    out["src.tf32_mask"] -= out["src.tf32_round_bits"]  # what is left of the masks truncates
    out.setdefault("barriers", 0)
    out.update({"cfg.threads": kernel.threads, "cfg.tile_m": kernel.tile_m, "cfg.tile_n": kernel.tile_n,
                "cfg.tile_k": kernel.tile_k, "cfg.mma_passes": _PASSES.get(kernel.precision, 0),
                # dynamic shared memory is sized at launch (tensor-core kernels): not in ptxas's static count
                "cfg.dynamic_smem": int(getattr(kernel, "dynamic_smem", 0)),
                # "M % 128 == 0"-style preconditions: the shapes the kernel needs whole tiles of
                "cfg.tile_preconditions": sum(p.kind == "multiple" for p in kernel.preconditions)})
    if kernel.op == "sgemm":
        out["cfg.outputs_per_thread"] = kernel.tile_m * kernel.tile_n // kernel.threads
    for key in ("registers", "shared_bytes", "local_bytes"):
        if driver and key in driver:
            out[key] = int(driver[key])
    return Numbers(out)


def triton_numbers(kernel: Kernel, counterpart: Counterpart, r: KernelResources,
                   launched: Mapping[str, int] | None = None) -> Numbers:
    """The Triton side: the compiled counterpart's report, its ttgir facts and its launch settings (derived
    from the kernel; `launched` replaces them with what a GPU launch really used, e.g. an autotuner's choice)."""
    from harness.launch import triton as launch_triton

    out = _compiled(r)
    out.setdefault("barriers", 0)
    cfg = launch_triton.config(kernel, counterpart)
    for key in ("block_m", "block_n", "block_k", "num_warps", "num_stages", "group_m"):
        if isinstance(cfg.get(key), int) and not isinstance(cfg.get(key), bool):
            out[f"cfg.{key}"] = int(cfg[key])
    out.setdefault("cfg.num_stages", 1)
    group_m = launch_triton.constexprs(kernel, counterpart).get("GROUP_M")
    if isinstance(group_m, int):  # the program order the kernel text computes (1: row-major)
        out["cfg.group_m"] = group_m
    out.update({f"cfg.{k}": int(v) for k, v in (launched or {}).items()})
    # what the form's input_precision asks the compiler for: MMA passes (dots per K step) and parts per operand
    split = TRITON_SPLITS.get(str(cfg.get("input_precision", "")), (0, 0, 0))
    out["cfg.mma_passes"], out["cfg.split_parts"], out["cfg.split_bf16"] = split
    out["cfg.presplit"] = int(counterpart.presplit)
    if "cfg.block_m" in out and "cfg.block_n" in out:
        out["cfg.outputs_per_thread"] = out["cfg.block_m"] * out["cfg.block_n"] // (32 * out["cfg.num_warps"])
    return Numbers(out)


def gluon_numbers(kernel: Kernel, form: GluonCounterpart, r: KernelResources) -> Numbers:
    """The Gluon side: the compiled form's report, its ttgir facts and its settings (the CUDA kernel's): cfg.block_m,
    cfg.block_n, cfg.block_k, cfg.num_warps (its warps as compiled, a warp-specialised kernel's partitions included),
    cfg.stages and cfg.group_m where it has them, and the outputs a thread of the block holds."""
    out = _compiled(r)
    out.setdefault("barriers", 0)
    cfg = form.config(kernel)
    out.update({"cfg.block_m": int(cfg["BM"]), "cfg.block_n": int(cfg["BN"]), "cfg.block_k": int(cfg["BK"])})
    warps = int(r.facts.get("meta.warps", kernel.threads // 32))
    out["cfg.num_warps"] = warps
    for key, name in (("STAGES", "cfg.stages"), ("GROUP", "cfg.group_m"), ("GROUP_M", "cfg.group_m")):
        if isinstance(cfg.get(key), int) and not isinstance(cfg.get(key), bool):
            out[name] = int(cfg[key])
    out.setdefault("cfg.group_m", 1)
    # the CUDA kernel's preconditions are the form's (harness/launch/gluon.py binds it with them)
    out["cfg.tile_preconditions"] = sum(p.kind == "multiple" for p in kernel.preconditions)
    out["cfg.outputs_per_thread"] = out["cfg.block_m"] * out["cfg.block_n"] // (32 * warps)
    return Numbers(out)


# Tensor-core products per output per k: none for FFMA kernels, one for TF32, three for 3xTF32.
_PASSES = {"fp32": 0, "tf32": 1, "3xtf32": 3}
# Triton's input_precision -> (dots per K step, parts each operand is split into, 1 where the parts are bf16): what
# the split forms are by definition (3xTF32: big + small, three products; bf16x3: two bf16 parts, three products;
# bf16x6: three bf16 parts, six products). The mapping claim "operand split" holds the compiled ttgir to it.
TRITON_SPLITS: dict[str, tuple[int, int, int]] = {"tf32": (1, 1, 0), "tf32x3": (3, 2, 0), "bf16x3": (3, 2, 1),
                                                  "bf16x6": (6, 3, 1)}


def _reason(e: BaseException) -> str:
    return f"{type(e).__name__}: {str(e).strip()[-600:]}"


def gather(kernels: Iterable[Kernel]) -> dict[str, KernelEvidence]:
    """Every kernel's evidence, compiled ahead of time (cached on disk; all Triton compiles in one go)."""
    kernels = list(kernels)
    pairs = [(k, c) for k in kernels for c in k.counterparts]
    compiled = dict(zip([(k.id, c.name) for k, c in pairs], counterpart_resources(pairs, return_errors=True),
                        strict=True))
    gluon_pairs = [(k, g) for k in kernels for g in k.gluon]
    gluon_compiled = dict(zip([(k.id, g.name) for k, g in gluon_pairs],
                              gluon_resources(gluon_pairs, return_errors=True), strict=True))
    out: dict[str, KernelEvidence] = {}
    compilers = installed()
    for k in kernels:
        errors: dict[str, str] = {}
        try:
            cuda = cuda_numbers(k, kernel_cuda_resources(k))
        except Exception as e:  # one source that does not compile fails its own claims, not the others'
            cuda, errors["cuda"] = Numbers(), _reason(e)
        triton: dict[str, Numbers] = {}
        for c in k.counterparts:
            r = compiled[(k.id, c.name)]
            if isinstance(r, Exception):
                triton[c.name], errors[c.name] = Numbers(), _reason(r)
            else:
                triton[c.name] = triton_numbers(k, c, r)
        gluon: dict[str, Numbers] = {}
        for g in k.gluon:
            r = gluon_compiled[(k.id, g.name)]
            if isinstance(r, Exception):
                gluon[g.name], errors[f"gluon:{g.name}"] = Numbers(), _reason(r)
            else:
                gluon[g.name] = gluon_numbers(k, g, r)
        out[k.id] = KernelEvidence(k, cuda, triton, errors=errors, gluon=gluon, compilers=compilers)
    return out


def _launched(handle: object, counterpart: Counterpart) -> dict[str, int]:
    """What the launch really used: the handle's warps and stages, and an autotuner's tile where the
    counterpart's module reports its choice (`chosen_config`)."""
    from harness.launch import triton as launch_triton

    meta = getattr(handle, "metadata", None)
    out = {k: int(getattr(meta, k)) for k in ("num_warps", "num_stages") if isinstance(getattr(meta, k, None), int)}
    for key, value in (launch_triton.chosen_config(counterpart) or {}).items():
        name = {"BLOCK_M": "block_m", "BLOCK_N": "block_n", "BLOCK_K": "block_k", "GROUP_M": "group_m"}.get(key, key)
        if name in ("block_m", "block_n", "block_k", "group_m", "num_warps", "num_stages") and isinstance(value, int):
            out[name] = value
    return out


def on_gpu(kernel: Kernel) -> KernelEvidence:
    """The same evidence from the GPU: each counterpart's handle from a real launch, and the CUDA kernel's
    driver attributes over ptxas's report (source facts and SASS come from the same cubin the launch loaded)."""
    import torch

    from harness.inspect.compile_triton import handle_resources
    from harness.launch import cuda as launch_cuda
    from harness.launch import triton as launch_triton
    from harness.measure import numerics
    from harness.problems import Problem
    from harness.problems.preconditions import allowed_shape

    want = Problem("sgemm", 512, 512, 512) if kernel.op == "sgemm" else Problem("sgemv", 1024, 1024)
    p = allowed_shape(kernel.preconditions, want)
    ops = numerics.make_operands(p, "exact", 0, "cuda")
    tensors = ops.tensors(ops.fresh_output(0.0))
    triton: dict[str, Numbers] = {}
    for c in kernel.counterparts:
        handle = launch_triton.bind(kernel, c, tensors, p.alpha, p.beta, "cuda")()
        torch.cuda.synchronize()
        triton[c.name] = triton_numbers(kernel, c, handle_resources(handle), _launched(handle, c))
    gluon: dict[str, Numbers] = {}
    if kernel.gluon:
        from harness.launch import gluon as launch_gluon

        for g in kernel.gluon:
            handle = launch_gluon.bind(kernel, g, tensors, p.alpha, p.beta, "cuda")()
            torch.cuda.synchronize()
            gluon[g.name] = gluon_numbers(kernel, g, handle_resources(handle))
    cuda = cuda_numbers(kernel, kernel_cuda_resources(kernel), launch_cuda.attributes(kernel))
    return KernelEvidence(kernel, cuda, triton, where=f"GPU launch at {p.shape_label}", gluon=gluon,
                          compilers=installed())
