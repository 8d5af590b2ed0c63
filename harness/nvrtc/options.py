"""The one declared set of NVRTC options every CUDA kernel of the suite is built with, and the arch it targets.

Why the suite owns these rather than CuPy: `cupy.RawModule(code=...)` appends `-ftz=true` to every NVRTC compile
(so subnormal inputs, products and partial sums are flushed to zero, which Triton's `ieee` dot and cuBLAS do not
do) and compiles for the integer compute capability (`sm_90`, never `sm_90a`, so `wgmma` and `setmaxnreg` cannot be
assembled). With these options the comparison is fp32 against fp32 on the same architecture features.
"""

from __future__ import annotations

from dataclasses import dataclass

# -ftz=false: keep subnormals (IEEE fp32, as Triton's `ieee` dot and cuBLAS).
# -prec-div/-prec-sqrt=true and -fmad=true are NVRTC's defaults, written out so that the record says what they were.
# -std=c++17: the sources use `if constexpr` and inline constexpr variables.
DEFAULT_OPTIONS: tuple[str, ...] = ("-ftz=false", "-prec-div=true", "-prec-sqrt=true", "-fmad=true", "-std=c++17")

# What `cupy.RawModule(code=..., options=("-std=c++17",))` compiles with (cupy/cuda/compiler.py appends -ftz=true
# and the integer arch): studied once per run as the "cuda:cupy" variant of the seed kernels, so that the report
# can say what CuPy's default build costs and buys.
CUPY_DEFAULT_OPTIONS: tuple[str, ...] = ("-ftz=true", "-std=c++17")

# The arch the CPU tier compiles for (no GPU to ask): the H100/H200 the suite measures on.
CPU_TIER_ARCH = "sm_90a"


@dataclass(frozen=True)
class Variant:
    """A named set of build options and why it exists; `default` is what every kernel uses unless declared."""

    name: str
    options: tuple[str, ...]
    why: str
    plain_arch: bool = False    # build for sm_90 where the device's exact target is sm_90a (CuPy's integer arch)

    @property
    def flushes(self) -> bool:
        """Built to flush subnormals to zero: its subnormal-layer failure is declared, not a defect."""
        return "-ftz=true" in self.options

    def arch(self, exact: str) -> str:
        return exact.removesuffix("a") if self.plain_arch else exact


DEFAULT = Variant("default", DEFAULT_OPTIONS, "IEEE fp32 semantics (subnormals kept), as Triton's ieee dot and cuBLAS; "
                  "the device's exact arch")
CUPY = Variant("cupy", CUPY_DEFAULT_OPTIONS, "what cupy.RawModule(code=...) builds: -ftz=true (subnormals flushed to "
               "zero) for the integer arch (sm_90 on Hopper)", plain_arch=True)
VARIANTS: dict[str, Variant] = {v.name: v for v in (DEFAULT, CUPY)}


def arch_for(major: int, minor: int) -> str:
    """The exact target of a device: Hopper (9.0) gets `sm_90a` for wgmma and setmaxnreg; others plain `sm_XY`.

    `sm_90a` code runs only on 9.0 devices, which is what the suite wants: the arch-specific instructions are the
    point of the Hopper rungs. Blackwell's arch-specific targets (`sm_100a`) are left out until a kernel needs them.
    """
    arch = f"sm_{major}{minor}"
    return f"{arch}a" if (major, minor) == (9, 0) else arch
