"""Numerics: inputs, the float64 reference, poison, and the checks every implementation must pass.

Three layers (see DESIGN):
- exact: integers in [-3, 3] and power-of-two alpha/beta. Every partial sum is an integer below 2^24,
  so fp32 arithmetic is exact in any order and a correct kernel equals the float64 reference bit for
  bit: indexing and tiling bugs show with no tolerance to argue about. The layer holds for tensor
  cores too: tf32 keeps 10 mantissa bits, so it rounds integers only above 2^11, and these inputs are
  at most 3 (3xTF32's remainder is then 0); products are summed in fp32. It would not hold for
  integer inputs above 2^11, which is why they are kept this small.
- random: uniform inputs in [-1, 1), fresh per check (the seed is recorded). The error is measured in
  forward-error units, max|out - ref| / max(|alpha|*|A|@|B| + |beta|*|C|), against K*u (u = 2^-24,
  the worst-case bound of fp32 recursive summation) and against a small multiple of the vendor
  library's error on the same inputs, which catches reduced precision (tf32) that K*u alone misses.
- subnormal: the random inputs scaled by 2^-64 each, so that every product (|a*b| < 2^-128) and most partial
  sums lie below fp32's smallest normal number (2^-126). IEEE arithmetic keeps them (the forward error stays
  near the random layer's); an implementation that flushes subnormals to zero (CUDA built with -ftz=true, CuPy's
  default) loses them all and fails, with a reason that says so, unless it declares flushing.
Outputs are poisoned before every run: NaN, or, for kernels that read C even when beta == 0 (where
0*NaN would be NaN whatever the kernel did), a finite sentinel that a missed store leaves behind.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch

from harness.problems import Problem

U_FP32 = 2.0**-24
U_TF32 = 2.0**-11
# How far above the vendor library's own error an implementation may land on the same inputs.
VENDOR_MULTIPLE = 16.0
# Written where an output must be overwritten, for kernels whose beta*C term turns NaN into NaN.
FINITE_SENTINEL = -7.0e30
EXACT_SCALARS = (2.0, -0.5)  # alpha, beta for kernels that compute alpha*A@B + beta*C
RANDOM_SCALARS = (1.25, -0.75)
LAYERS = ("exact", "random", "subnormal")
# Each operand of the subnormal layer is scaled by this: products of two such numbers are at most 2^-128.
SUBNORMAL_SCALE = 2.0**-64
FLUSH_REASON = "flushes subnormal values to zero"


@dataclass
class Operands:
    """The tensors of one problem. sgemm: A, B, C_in (C's value before the run). sgemv: A, x."""

    problem: Problem
    A: torch.Tensor
    B: torch.Tensor
    C_in: torch.Tensor | None
    layer: str
    seed: int

    def fresh_output(self, poison: float) -> torch.Tensor:
        """The output buffer a run writes: C_in when beta != 0 (read by the kernel), else poison."""
        p = self.problem
        if p.op == "sgemv":
            return torch.full((p.M,), poison, dtype=torch.float32, device=self.A.device)
        if p.beta != 0.0:
            return self.C_in.clone()
        return torch.full((p.M, p.N), poison, dtype=torch.float32, device=self.A.device)


def make_operands(problem: Problem, layer: str, seed: int, device: torch.device | str) -> Operands:
    """Draw inputs on the CPU with a seeded generator (the same numbers on any machine), then move them."""
    if layer not in LAYERS:
        raise ValueError(f"unknown numerics layer {layer!r}: expected one of {', '.join(LAYERS)}")
    g = torch.Generator().manual_seed(seed)
    p = problem
    b_shape = (p.N,) if p.op == "sgemv" else (p.K, p.N)
    c_shape = (p.M, p.N) if p.op == "sgemm" and p.beta != 0.0 else None

    def draw(shape: tuple[int, ...]) -> torch.Tensor:
        if layer == "exact":
            # int8, not the default int64: at 2^31 elements the draw would otherwise need 17 GB of host memory
            t = torch.randint(-3, 4, shape, generator=g, dtype=torch.int8).to(torch.float32)
        else:
            t = torch.rand(shape, generator=g, dtype=torch.float32) * 2 - 1
            if layer == "subnormal":
                t = t * SUBNORMAL_SCALE  # a power of two: exact, and each scaled value is still normal
        return t.to(device)

    return Operands(p, draw((p.M, p.K if p.op == "sgemm" else p.N)), draw(b_shape),
                    draw(c_shape) if c_shape else None, layer, seed)


def reference(ops: Operands) -> torch.Tensor:
    """The float64 result (computed on the operands' device, in float64 throughout)."""
    p = ops.problem
    A, B = ops.A.double(), ops.B.double()
    if p.op == "sgemv":
        return A @ B
    out = p.alpha * (A @ B)
    if p.beta != 0.0:
        out = out + p.beta * ops.C_in.double()
    return out


def error_scale(ops: Operands) -> float:
    """max(|alpha|*|A|@|B| + |beta|*|C|): the forward-error unit of this problem."""
    p = ops.problem
    A, B = ops.A.double().abs(), ops.B.double().abs()
    scale = abs(p.alpha) * (A @ B)
    if p.op == "sgemm" and p.beta != 0.0:
        scale = scale + abs(p.beta) * ops.C_in.double().abs()
    return float(scale.max()) or 1.0


def forward_error(out: torch.Tensor, ref: torch.Tensor, scale: float) -> float:
    return float((out.double() - ref).abs().max()) / scale


def error_bound(problem: Problem, tf32: bool = False) -> float:
    """K*u for fp32 recursive summation; tf32 adds the rounding of both inputs (2*u_tf32)."""
    depth = problem.K if problem.op == "sgemm" else problem.N
    return depth * U_FP32 + (2 * U_TF32 if tf32 else 0.0)


@dataclass
class Verdict:
    passed: bool
    layer: str
    error: float | None = None
    bound: float | None = None
    vendor_error: float | None = None
    reason: str = ""
    seed: int | None = None

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Verdict:
        return cls(bool(data["passed"]), str(data["layer"]), data.get("error"), data.get("bound"),
                   data.get("vendor_error"), str(data.get("reason") or ""), data.get("seed"))


def check(out: torch.Tensor, ops: Operands, ref: torch.Tensor, *, poison: float,
          vendor_error: float | None = None, tf32: bool = False, declares_flush: bool = False) -> Verdict:
    """Every element written, finite, and right: exactly (exact layer) or within the bounds (random, subnormal).

    On the subnormal layer a miss of the bounds means the implementation flushed: it fails saying so, unless it
    declares flushing (then it passes with that reason recorded, and a declared flusher that keeps subnormals
    fails: the declaration is checked, like the beta == 0 one).
    """
    verdict = _check(out, ops, ref, poison=poison, vendor_error=vendor_error, tf32=tf32)
    if ops.layer != "subnormal" or verdict.error is None:
        return verdict
    if not verdict.passed:
        verdict.reason = f"subnormal inputs: {verdict.reason}: it {FLUSH_REASON}"
        if declares_flush:
            verdict.passed, verdict.reason = True, f"{FLUSH_REASON} (declared): {verdict.reason}"
    elif declares_flush:
        verdict.passed = False
        verdict.reason = (f"declared to flush subnormals, but its subnormal-layer error {verdict.error:.3g} is within "
                          f"the bounds: the declaration (or the build variant) is wrong")
    return verdict


def _check(out: torch.Tensor, ops: Operands, ref: torch.Tensor, *, poison: float,
           vendor_error: float | None, tf32: bool) -> Verdict:
    o = out.detach()
    seed = ops.seed
    nan = torch.isnan(o)
    if bool(nan.any()):
        where = nan.nonzero()[0].tolist()
        return Verdict(False, ops.layer, reason=f"{int(nan.sum())} NaN outputs (first at {where})", seed=seed)
    if not bool(torch.isfinite(o).all()):
        return Verdict(False, ops.layer, reason="Inf in the output", seed=seed)
    if poison == FINITE_SENTINEL:
        left = o == FINITE_SENTINEL
        if bool(left.any()):
            return Verdict(False, ops.layer, reason=f"{int(left.sum())} outputs never written "
                                                    f"(first at {left.nonzero()[0].tolist()})", seed=seed)
    if ops.layer == "exact":
        wrong = o.double() != ref
        if bool(wrong.any()):
            first = wrong.nonzero()[0].tolist()
            return Verdict(False, "exact", error=float((o.double() - ref).abs().max()), bound=0.0,
                           reason=f"{int(wrong.sum())} outputs differ from the exact result "
                                  f"(first at {first}: {float(o[tuple(first)])} vs {float(ref[tuple(first)])})",
                           seed=seed)
        return Verdict(True, "exact", error=0.0, bound=0.0, seed=seed)
    err = forward_error(o, ref, error_scale(ops))
    bound = error_bound(ops.problem, tf32)
    layer = ops.layer
    if err > bound:
        return Verdict(False, layer, err, bound, vendor_error,
                       f"forward error {err:.3g} exceeds the bound {bound:.3g}", seed)
    if vendor_error is not None and not tf32:
        allowed = VENDOR_MULTIPLE * max(vendor_error, U_FP32)
        if err > allowed:
            return Verdict(False, layer, err, bound, vendor_error,
                           f"forward error {err:.3g} is over {VENDOR_MULTIPLE:g}x the library's "
                           f"{vendor_error:.3g} on the same inputs (reduced precision?)", seed)
    return Verdict(True, layer, err, bound, vendor_error, seed=seed)


def poison_for(reads_c_when_beta_zero: bool) -> float:
    return FINITE_SENTINEL if reads_c_when_beta_zero else float("nan")


def beta_zero_verdict(out_after_nan_c: torch.Tensor) -> str:
    """'honours' when NaN placed in C did not reach the output with beta == 0, else 'leaks NaN'."""
    return "leaks NaN" if bool(torch.isnan(out_after_nan_c).any()) else "honours"


def scalars_for(layer: str, computes_alpha_beta: bool) -> tuple[float, float]:
    # the subnormal layer isolates A*B: alpha = 1 and no C term, whose normal-range values would hide the products
    if not computes_alpha_beta or layer == "subnormal":
        return 1.0, 0.0
    return EXACT_SCALARS if layer == "exact" else RANDOM_SCALARS
