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
- scaled: the random inputs with every element of A and B multiplied by 2^e, e drawn uniformly from the integers
  in [-20, 20] (fresh per check, seeded). Products then span 2^80, so an output is often dominated by a few terms and
  an operand split that drops relative 2^-16 of each product (bf16x3) shows where uniform inputs average it away.

Every layer past the exact one measures two errors against the float64 reference: the normwise forward error above
and the componentwise one, max over outputs of |out - ref| / (|alpha|*|A|@|B| + |beta|*|C|) at that output (an
output whose denominator is 0 must be exact). Both are held to the same bound, K*u plus the error per product term a
precision class allows (PRODUCT_ERROR), because the classical bound |C - fl(C)| <= gamma_K |A||B| holds element by
element; rows that are fp32-accurate are also held to a small multiple of the fp32 library's own error of each kind
on the same inputs.
Outputs are poisoned before every run: NaN, or, for kernels that read C even when beta == 0 (where
0*NaN would be NaN whatever the kernel did), a finite sentinel that a missed store leaves behind.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from harness.problems import Problem

if TYPE_CHECKING:  # torch loads where operands are made and checked, not where a record is read
    import torch

U_FP32 = 2.0**-24
# TF32 by truncation (the tensor core reading an fp32 operand's top 19 bits) is off by up to 2^-10 of the value
U_TF32_TRUNCATED = 2.0**-10
# bf16 keeps 8 significant bits; Triton's split rounds to nearest (arith.truncf, cvt.rn.bf16.f32 in the PTX)
U_BF16 = 2.0**-8
# The relative error of one product term a*b that a precision class allows beside fp32 summation's K*u; classes not
# named are held to K*u alone (fp32, and the fp32-accurate splits 3xtf32 and bf16x6).
# - tf32: each input cut to tf32, |a' - a| <= v|a| with v = 2^-10 for truncation (the coarser of the suite's
#   conversions; rounding gives 2^-11): |a'b' - ab| <= (2v + v^2)|ab|.
# - bf16x3: a = hi + mid + r with hi = rn_bf16(a), mid = rn_bf16(a - hi), so |mid| <= u(1+u)|a| and the residual
#   |r| <= u|a - hi| <= u^2|a| (u = 2^-8). The three products hi*hi + hi*mid + mid*hi (each exact in fp32) miss
#   ab - (hi_a + mid_a)(hi_b + mid_b) + mid_a*mid_b = mid_a*mid_b + r_a*b + (a - r_a)*r_b, so per term
#   |error| <= u^2(1+u)^2|ab| + u^2|ab| + (1+u^2)u^2|ab| = u^2 (3 + 2u + 2u^2)|ab|, about 3 * 2^-16: the dropped
#   mid*mid term and the two residuals of a two-part split. It is not fp32-accurate (fp32's u is 2^-24). The bound
#   is K*u plus that, normwise and componentwise alike (each term's error is relative to |a||b|).
PRODUCT_ERROR: dict[str, float] = {
    "tf32": 2 * U_TF32_TRUNCATED + U_TF32_TRUNCATED**2,
    "bf16x3": U_BF16**2 * (3 + 2 * U_BF16 + 2 * U_BF16**2),
}
# How far above the vendor library's own error an implementation may land on the same inputs.
VENDOR_MULTIPLE = 16.0
# lambda of recursive summation's probabilistic componentwise bound lambda*sqrt(n)*u (summation_floor): it fails
# with probability at most 2*exp(-lambda^2/2) per output, 7e-4 at 4
SUMMATION_LAMBDA = 4.0
# Written where an output must be overwritten, for kernels whose beta*C term turns NaN into NaN.
FINITE_SENTINEL = -7.0e30
EXACT_SCALARS = (2.0, -0.5)  # alpha, beta for kernels that compute alpha*A@B + beta*C
RANDOM_SCALARS = (1.25, -0.75)
LAYERS = ("exact", "random", "subnormal", "scaled")
# Each operand of the subnormal layer is scaled by this: products of two such numbers are at most 2^-128.
SUBNORMAL_SCALE = 2.0**-64
# The scaled layer multiplies each element of A and B by 2^e, e uniform over the integers in [-SCALED_EXPONENT,
# SCALED_EXPONENT]: every value stays normal in fp32 and bf16 (|a*b| >= 2^-88 for the smallest nonzero draws).
SCALED_EXPONENT = 20
FLUSH_REASON = "flushes subnormal values to zero"
# Where a check's result would stand when it could not run: a CUDA kernel built on a machine without a GPU.
NOT_CHECKED_NO_GPU = "numerics not checked: no GPU"


@dataclass
class Operands:
    """The tensors of one problem. sgemm: A, B, C_in (C's value before the run). sgemv: A, x."""

    problem: Problem
    A: torch.Tensor
    B: torch.Tensor
    C_in: torch.Tensor | None
    layer: str
    seed: int
    # |alpha|*|A|@|B| + |beta|*|C|, computed once (magnitudes()): every implementation checked on these operands
    # divides by it, and in float64 at 4096^3 it costs as much as the reference
    _magnitudes: torch.Tensor | None = field(default=None, repr=False, compare=False)

    def tensors(self, out: torch.Tensor) -> dict[str, torch.Tensor]:
        """The operands by the names an implementation binds them under, with `out` as the output."""
        if self.problem.op == "sgemv":
            return {"A": self.A, "x": self.B, "y": out}
        return {"A": self.A, "B": self.B, "C": out}

    def fresh_output(self, poison: float) -> torch.Tensor:
        """The output buffer a run writes: C_in when beta != 0 (read by the kernel), else poison."""
        import torch
        p = self.problem
        if p.op == "sgemv":
            return torch.full((p.M,), poison, dtype=torch.float32, device=self.A.device)
        if p.beta != 0.0:
            return self.C_in.clone()
        return torch.full((p.M, p.N), poison, dtype=torch.float32, device=self.A.device)


def make_operands(problem: Problem, layer: str, seed: int, device: torch.device | str) -> Operands:
    """Draw inputs on the CPU with a seeded generator (the same numbers on any machine), then move them."""
    import torch
    if layer not in LAYERS:
        raise ValueError(f"unknown numerics layer {layer!r}: expected one of {', '.join(LAYERS)}")
    g = torch.Generator().manual_seed(seed)
    p = problem
    b_shape = (p.N,) if p.op == "sgemv" else (p.K, p.N)
    c_shape = (p.M, p.N) if p.op == "sgemm" and p.beta != 0.0 else None

    def values(shape: tuple[int, ...]) -> torch.Tensor:
        import torch
        if layer == "exact":
            # int8, not the default int64: at 2^31 elements the draw would otherwise need 17 GB of host memory
            return torch.randint(-3, 4, shape, generator=g, dtype=torch.int8).to(torch.float32)
        t = torch.rand(shape, generator=g, dtype=torch.float32) * 2 - 1
        if layer == "subnormal":
            t = t * SUBNORMAL_SCALE  # a power of two: exact, and each scaled value is still normal
        return t

    def draw(shape: tuple[int, ...]) -> torch.Tensor:
        return values(shape).to(device)

    def scaled(shape: tuple[int, ...]) -> torch.Tensor:
        # multiplied by powers of two, so the scaling itself is exact
        import torch
        e = torch.randint(-SCALED_EXPONENT, SCALED_EXPONENT + 1, shape, generator=g, dtype=torch.int8)
        return torch.ldexp(values(shape), e.to(torch.float32)).to(device)

    operand = scaled if layer == "scaled" else draw
    return Operands(p, operand((p.M, p.K if p.op == "sgemm" else p.N)), operand(b_shape),
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


def magnitudes(ops: Operands) -> torch.Tensor:
    """|alpha|*|A|@|B| + |beta|*|C| in float64, output by output: the denominator of the componentwise error."""
    if ops._magnitudes is None:
        p = ops.problem
        A, B = ops.A.double().abs(), ops.B.double().abs()
        scale = abs(p.alpha) * (A @ B)
        if p.op == "sgemm" and p.beta != 0.0:
            scale = scale + abs(p.beta) * ops.C_in.double().abs()
        ops._magnitudes = scale
    return ops._magnitudes


def forward_error(out: torch.Tensor, ref: torch.Tensor, scale: float) -> float:
    return float((out.double() - ref).abs().max()) / scale


def componentwise_error(out: torch.Tensor, ref: torch.Tensor, denominators: torch.Tensor) -> float:
    """max over outputs of |out - ref| / denominator; where the denominator is 0 (a zero row of A or column of B)
    the output must be exact: 0 if it is, inf if not."""
    import torch
    diff = (out.double() - ref).abs()
    zero = denominators == 0
    ratio = diff / torch.where(zero, torch.ones_like(denominators), denominators)
    ratio = torch.where(zero & (diff > 0), torch.full_like(ratio, float("inf")), torch.where(zero, 0.0, ratio))
    return float(ratio.max()) if ratio.numel() else 0.0


def errors(out: torch.Tensor, ops: Operands, ref: torch.Tensor) -> tuple[float, float]:
    """(normwise, componentwise) forward error of an output."""
    denominators = magnitudes(ops)
    return forward_error(out, ref, float(denominators.max()) or 1.0), componentwise_error(out, ref, denominators)


def error_bound(problem: Problem, tf32: bool = False, precision: str | None = None) -> float:
    """K*u for fp32 recursive summation, plus the error per product term its precision class allows (PRODUCT_ERROR;
    `tf32` names the TF32 class). The same bound holds normwise and componentwise."""
    depth = problem.K if problem.op == "sgemm" else problem.N
    return depth * U_FP32 + PRODUCT_ERROR.get(precision or ("tf32" if tf32 else "fp32"), 0.0)


@dataclass
class Verdict:
    passed: bool
    layer: str
    error: float | None = None          # normwise forward error
    bound: float | None = None          # held to by both errors
    vendor_error: float | None = None
    reason: str = ""
    seed: int | None = None
    # componentwise forward error and the library's on the same inputs (None in files from before they were measured)
    componentwise: float | None = None
    vendor_componentwise: float | None = None

    @property
    def worst(self) -> float | None:
        """The larger of the two errors (the normwise one alone in older files)."""
        found = [e for e in (self.error, self.componentwise) if e is not None]
        return max(found) if found else None

    def to_json(self) -> dict:
        out = asdict(self)
        for key in ("componentwise", "vendor_componentwise"):  # absent, not null, where not measured
            if out[key] is None:
                del out[key]
        return out

    @classmethod
    def from_json(cls, data: dict) -> Verdict:
        return cls(bool(data["passed"]), str(data["layer"]), data.get("error"), data.get("bound"),
                   data.get("vendor_error"), str(data.get("reason") or ""), data.get("seed"),
                   data.get("componentwise"), data.get("vendor_componentwise"))


def check(out: torch.Tensor, ops: Operands, ref: torch.Tensor, *, poison: float,
          vendor_error: float | None = None, tf32: bool = False, declares_flush: bool = False,
          vendor_componentwise: float | None = None, precision: str | None = None,
          fp32_accurate: bool = True) -> Verdict:
    """Every element written, finite, and right: exactly (exact layer) or within the bounds (the other layers).

    `precision` names the class whose bound applies (error_bound; `tf32` names TF32). The library's errors, where
    given, hold a row that is `fp32_accurate` to VENDOR_MULTIPLE times each of them (normwise and componentwise);
    they are recorded either way, so a row that is not fp32-accurate (bf16x3) still shows how far it is from fp32.

    A failure says what the layer saw: how many outputs are wrong, where the first is (its index, its value and the
    reference's, its error against the bound); the cause is `failure`'s to name, from every layer. On the subnormal
    layer a kernel that declares flushing passes with that recorded, and a declared flusher that keeps subnormals
    fails: the declaration is checked, like the beta == 0 one.
    """
    verdict = _check(out, ops, ref, poison=poison, vendor=(vendor_error, vendor_componentwise),
                     bound=error_bound(ops.problem, tf32, precision), held_to_vendor=fp32_accurate and not tf32)
    if ops.layer != "subnormal" or verdict.error is None:
        return verdict
    if not verdict.passed:  # a cause is named by `failure`, which sees every layer; a declaration is the kernel's
        if declares_flush:
            verdict.passed, verdict.reason = True, f"{FLUSH_REASON} (declared): {verdict.reason}"
    elif declares_flush:
        verdict.passed = False
        verdict.reason = (f"declared to flush subnormals, but its subnormal-layer error {verdict.error:.3g} is within "
                          f"the bounds: the declaration (or the build variant) is wrong")
    return verdict


def _first(wrong: torch.Tensor) -> tuple[int, list[int]]:
    """How many outputs `wrong` marks, and the index of the first (row-major)."""
    return int(wrong.sum()), wrong.nonzero()[0].tolist()


def _where(wrong: torch.Tensor, what: str, o: torch.Tensor, ref: torch.Tensor | None = None) -> str:
    """'<n> of <all> outputs <what>, first at [i, j]' (and its value beside the reference's)."""
    count, first = _first(wrong)
    at = f": {o[tuple(first)].item():.7g} vs {ref[tuple(first)].item():.7g}" if ref is not None else ""
    return f"{count} of {wrong.numel()} outputs {what}, first at {first}{at}"


def _check(out: torch.Tensor, ops: Operands, ref: torch.Tensor, *, poison: float,
           vendor: tuple[float | None, float | None], bound: float, held_to_vendor: bool) -> Verdict:
    import torch
    o = out.detach()
    seed = ops.seed
    layer = ops.layer
    for wrong, what in ((torch.isnan(o), "NaN"), (torch.isinf(o), "infinite"),
                        (o == FINITE_SENTINEL if poison == FINITE_SENTINEL else None, "never written")):
        if wrong is not None and bool(wrong.any()):
            return Verdict(False, layer, reason=f"{layer} layer: {_where(wrong, what, o)}", seed=seed)
    if layer == "exact":
        wrong = o.double() != ref
        if bool(wrong.any()):
            return Verdict(False, "exact", error=float((o.double() - ref).abs().max()), bound=0.0, seed=seed,
                           reason=f"exact layer: {_where(wrong, 'differ from the float64 result', o, ref)}")
        return Verdict(True, "exact", error=0.0, bound=0.0, seed=seed)
    err, cw = errors(o, ops, ref)
    vendor_err, vendor_cw = vendor
    denominators = magnitudes(ops)
    diff = (o.double() - ref).abs()

    def verdict(reason: str = "") -> Verdict:
        return Verdict(not reason, layer, err, bound, vendor_err, reason, seed, cw, vendor_cw)

    def past(limit: float, normwise: bool) -> str:
        """How many outputs are past `limit` (by their own error, or normwise: against the largest magnitude) and
        the first of them, its error beside the limit."""
        scale = denominators.max() if normwise else torch.where(denominators == 0, torch.ones_like(denominators),
                                                                 denominators)
        wrong = (diff / scale > limit) | ((denominators == 0) & (diff > 0))
        if not bool(wrong.any()):
            return ""
        first = tuple(_first(wrong)[1])
        error = float(diff[first] / (scale[first] if scale.dim() else scale))
        return f"; {_where(wrong, 'past it', o, ref)} (its error {error:.3g} against {limit:.3g})"

    for name, value, normwise in (("forward error", err, True), ("componentwise error", cw, False)):
        if value > bound:
            return verdict(f"{layer} layer: {name} {value:.3g} exceeds the bound {bound:.3g}{past(bound, normwise)}")
    if held_to_vendor:
        # on the scaled layer an output is dominated by a few terms, so the worst output's error (normwise) is set by
        # the order of summation as much as the componentwise one; elsewhere one rounding (U_FP32) stays the floor
        # of the normwise check, the one that tells a TF32 product from an fp32 one on uniform magnitudes
        floor = summation_floor(ops.problem)
        floors = (floor if layer == "scaled" else U_FP32, floor)
        for (name, value, theirs, normwise), floor in zip((("forward error", err, vendor_err, True),
                                                           ("componentwise error", cw, vendor_cw, False)), floors,
                                                          strict=True):
            if theirs is None:
                continue
            allowed = max(VENDOR_MULTIPLE * max(theirs, U_FP32), floor)
            if value > allowed:
                return verdict(f"{layer} layer: {name} {value:.3g} is over {VENDOR_MULTIPLE:g}x the library's "
                               f"{theirs:.3g} on the same inputs"
                               + (f" and over recursive summation's {floor:.3g}" if floor > U_FP32 else "")
                               + past(allowed, normwise))
    return verdict()


def failure(layers: dict[str, Verdict]) -> list[str]:
    """What a failed check says, from every layer's verdict: what the first layer to fail saw (in LAYERS' order, the
    one that tells most first), which others fail too, and a cause only where the layers tell it apart: the subnormal
    layer failing alone is a kernel that flushes subnormals to zero; the exact layer passing where a rounding layer
    fails is arithmetic coarser than the class (the indexing is right: every output was bit-identical on integers)."""
    failed = [name for name in LAYERS if name in layers and not layers[name].passed]
    if not failed:
        return []
    said = [layers[failed[0]].reason or f"{failed[0]} layer: failed"]
    if others := failed[1:]:
        said.append(f"the {', '.join(others[:-1]) + ' and ' if others[:-1] else ''}{others[-1]} layer"
                    f"{'s fail' if others[:-1] else ' fails'} too")
    rounding = [name for name in failed if layers[name].error is not None]  # a bound missed, not NaN or unwritten
    if failed == ["subnormal"] and rounding:
        said.append(f"only the subnormal layer fails: it {FLUSH_REASON}")
    elif "exact" in layers and layers["exact"].passed and rounding == failed and "random" in failed:
        said.append("the exact layer passes, so the indexing is right: its arithmetic is coarser than its class "
                    "(reduced precision)")
    return said


def summation_floor(problem: Problem) -> float:
    """The componentwise error an fp32 kernel that sums its depth-n dot products one term after another may have:
    SUMMATION_LAMBDA * sqrt(n) * u, the probabilistic bound of recursive summation (Higham and Mary, 2019).

    A library's blocked sums can be far more accurate per output than that: on elements scaled over 2^-20..2^20 an
    output is dominated by a few terms and every later addition rounds against them, so a multiple of the library's
    componentwise error alone would fail a faithful seed kernel for its order of summation, not its precision (seed
    003's naive sgemv at 16384x16384: 1.5e-6 against cuBLAS fp32's 7.7e-8). On the scaled layer the same holds of
    the normwise error, which is the worst output's. A split that drops precision per product (bf16x3: about
    2^-16) still lands past this floor at the depths the checker's own tests use.
    """
    depth = problem.K if problem.op == "sgemm" else problem.N
    return SUMMATION_LAMBDA * depth**0.5 * U_FP32


def poison_for(reads_c_when_beta_zero: bool) -> float:
    return FINITE_SENTINEL if reads_c_when_beta_zero else float("nan")


def beta_zero_verdict(out_after_nan_c: torch.Tensor) -> str:
    """'honours' when NaN placed in C did not reach the output with beta == 0, else 'leaks NaN'."""
    import torch
    return "leaks NaN" if bool(torch.isnan(out_after_nan_c).any()) else "honours"


def layer_problem(problem: Problem, layer: str, computes_alpha_beta: bool) -> Problem:
    """The problem a numerics layer launches: an sgemm with the layer's scalars, an sgemv as it is."""
    if problem.op == "sgemv":
        return problem
    return problem.with_scalars(*scalars_for(layer, computes_alpha_beta))


def scalars_for(layer: str, computes_alpha_beta: bool) -> tuple[float, float]:
    # the subnormal layer isolates A*B: alpha = 1 and no C term, whose normal-range values would hide the products
    if not computes_alpha_beta or layer == "subnormal":
        return 1.0, 0.0
    return EXACT_SCALARS if layer == "exact" else RANDOM_SCALARS
