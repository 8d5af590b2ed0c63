"""Facts read off a Triton kernel's ttgir: what the compiler decided before it emitted any SASS.

The ttgir is where Triton's own decisions are visible by name: which operands it staged in shared
memory (``ttg.local_alloc`` into a ``#shared`` memdesc), whether the K loop was software-pipelined (async
copies and waits), whether a dot lowered to tensor cores (an ``#ttg.nvidia_mma`` accumulator,
``ttng.warp_group_dot``), whether the shared layout is swizzled, and how many layout conversions it inserted.

Two more texts of the same compile give facts the ttgir does not hold by name:

* the TTIR (before any layout), for each pointer argument: how many multiplications by a size argument
  (M, N, K: the strides of row-major operands) its address arithmetic does in 32 and in 64 bits
  (``ttir.size_mul_i32.<arg>``, ``ttir.size_mul_i64.<arg>``). An operand past 2^31 elements is addressed
  right only when the first is 0;
* the PTX: how fp32 operands become TF32 for the tensor cores (``ptx.cvt_rn_tf32``, ``ptx.cvt_rna_tf32``:
  the rounding conversions; ``ptx.mma_tf32``: MMA instructions that take tf32 operands), and bf16 for the bf16 splits
  (``ptx.cvt_rn_bf16``, ``ptx.mma_bf16``).
"""

from __future__ import annotations

import re

__all__ = ["FACTS_VERSION", "FACT_KEYS", "PTX_KEYS", "facts", "ptx_facts", "size_muls"]

# Part of the compile cache key: bump when a fact is added or its meaning changes.
FACTS_VERSION = 5

# fact -> the ttgir pattern counted
_COUNTED: dict[str, re.Pattern[str]] = {
    "local_alloc": re.compile(r"\bttg\.local_alloc\b"),
    "local_load": re.compile(r"\bttg\.local_load\b"),
    "async_copy": re.compile(r"\b(?:ttg\.async_copy_global_to_local|ttng\.async_tma_copy_global_to_local)\b"),
    "async_wait": re.compile(r"\b(?:ttg\.async_wait|ttng\.wait_barrier)\b"),
    "dot": re.compile(r"\btt\.dot\b"),
    "warp_group_dot": re.compile(r"\bttng\.warp_group_dot\b"),
    # wgmma dots whose A operand is a register tensor (a dot_op operand: the RS form) rather than a shared memdesc
    "warp_group_dot_reg_a": re.compile(r"\bttng\.warp_group_dot [^\n]*? : tensor<"),
    "reduce": re.compile(r"\btt\.reduce\b"),
    "convert_layout": re.compile(r"\bttg\.convert_layout\b"),
    "loops": re.compile(r"\bscf\.for\b"),
    "loads": re.compile(r"\btt\.load\b"),
    "descriptor_loads": re.compile(r"\btt\.descriptor_load\b"),
    # loads, stores and async copies given a mask (a second operand, or `mask`): bounds handled in the program
    "masked": re.compile(r"\btt\.load %[\w#.]+, %|\btt\.store %[\w#.]+, %[\w#.]+, %"
                         r"|\bttg\.async_copy_global_to_local [^\n]* mask %"),
    # how the compiler splits fp32 operands for input_precision "tf32x3", "bf16x3", "bf16x6" (its F32DotTC pass):
    # dots whose operands are bf16, conversions to bf16 (arith.truncf) and to tf32 (cvt.rna as inline asm), the
    # subtractions that form each remainder, and the NaN guard (cmpf uno) before the last dot of a split
    "dot_bf16": re.compile(r"\b(?:ttng\.warp_group_dot|tt\.dot) [^\n]*? : (?:tensor|!ttg\.memdesc)<[\dx]*xbf16"),
    "to_bf16": re.compile(r"\barith\.truncf [^\n]* to tensor<[\dx]*xbf16"),
    "to_tf32_rna": re.compile(r"\btt\.elementwise_inline_asm \"cvt\.rna\.tf32\.f32"),
    "split_sub": re.compile(r"\barith\.subf\b"),
    "nan_guard": re.compile(r"\barith\.cmpf uno\b"),
    # warp specialisation: a region whose partitions run on warps of their own (Gluon's gl.warp_specialize, or the
    # compiler's own split of a Triton loop asked for with warp_specialize=True)
    "warp_specialize": re.compile(r"\bttg\.warp_specialize\b"),
}
_MMA_LAYOUT = re.compile(r"#ttg\.nvidia_mma<\{versionMajor = (\d+)")
_SWIZZLED = re.compile(r"#ttg\.swizzled_shared<\{vec = (\d+), perPhase = (\d+), maxPhase = (\d+)")
_NVMMA_SHARED = re.compile(r"#ttg\.nvmma_shared<\{swizzlingByteWidth = (\d+)")

# a local_alloc whose result lives in shared memory under a shared encoding (#shared..., #smem)
_SHARED_ALLOC = re.compile(r"\bttg\.local_alloc\b[^\n]*!ttg\.memdesc<[^\n]*#shared\w*, #smem")

# the result types of a loop (scf.for ... -> (types)), and among them the 1-D fp32 slices of a distributed layout: a
# fragment of A's column or B's row carried from one iteration into the next (loaded before the step that uses it)
_LOOP_TYPES = re.compile(r"\bscf\.for [^\n]*?-> \(([^\n]*)\)")
_SLICE_FRAGMENT = re.compile(r"tensor<\d+xf32, #ttg\.slice<")

FACT_KEYS: tuple[str, ...] = (*_COUNTED, "mma_version", "shared_swizzled", "local_alloc_shared", "carried_fragments")

_PTX: dict[str, re.Pattern[str]] = {
    "ptx.cvt_rn_tf32": re.compile(r"\bcvt\.rn\.tf32\.f32\b"),
    "ptx.cvt_rna_tf32": re.compile(r"\bcvt\.rna(?:\.satfinite)?\.tf32\.f32\b"),
    "ptx.mma_tf32": re.compile(r"\b(?:wgmma\.mma_async|mma\.sync)\.[\w.]*\.tf32\b"),
    # fp32 to bf16, rounded to nearest even (one value or a packed pair), and MMAs that take bf16 operands
    "ptx.cvt_rn_bf16": re.compile(r"\bcvt\.rn\.bf16(?:x2)?\.f32\b"),
    "ptx.mma_bf16": re.compile(r"\b(?:wgmma\.mma_async|mma\.sync)\.[\w.]*\.bf16\b"),
}
PTX_KEYS: tuple[str, ...] = tuple(_PTX)


def facts(text: str, ttir: str = "", ptx: str = "") -> dict[str, int]:
    """Counts of the ops above, plus ``mma_version`` (0: no tensor-core layout; 2: mma.sync; 3: wgmma),
    ``shared_swizzled`` (1 when any shared layout permutes addresses: maxPhase > 1 or an NVMMA swizzle) and
    ``local_alloc_shared`` (allocations into a shared encoding); with the TTIR and the PTX, the facts of
    `size_muls` and `ptx_facts` (named with their ``ttir.`` and ``ptx.`` prefixes)."""
    out = {name: len(pattern.findall(text)) for name, pattern in _COUNTED.items()}
    out["carried_fragments"] = sum(len(_SLICE_FRAGMENT.findall(types)) for types in _LOOP_TYPES.findall(text))
    out["local_alloc_shared"] = len(_SHARED_ALLOC.findall(text))
    out["mma_version"] = max((int(v) for v in _MMA_LAYOUT.findall(text)), default=0)
    swizzled = any(int(max_phase) > 1 for _, _, max_phase in _SWIZZLED.findall(text))
    swizzled = swizzled or any(int(width) > 0 for width in _NVMMA_SHARED.findall(text))
    out["shared_swizzled"] = int(swizzled)
    if ttir:
        for arg, (i32, i64) in size_muls(ttir).items():
            out[f"ttir.size_mul_i32.{arg}"] = i32
            out[f"ttir.size_mul_i64.{arg}"] = i64
    if ptx:
        out.update(ptx_facts(ptx))
    return out


def ptx_facts(ptx: str) -> dict[str, int]:
    """How fp32 becomes tf32 in a kernel's PTX: rounding conversions by mode, and tf32 MMA instructions."""
    return {name: len(pattern.findall(ptx)) for name, pattern in _PTX.items()}


# ---------------------------------------------------------------------------------------------- TTIR address widths
_ARG = re.compile(r"%(\w+): (!tt\.ptr<[^>]*>|i32|i64)")
_DEF = re.compile(r"^\s*(%[^=]+?)\s*=\s*([\w.]+)\b(.*)$")
_VALUE = re.compile(r"%[\w]+(?:#\d+)?")
_FOR = re.compile(r"iter_args\((.*?)\)\s*->")
_LOC = re.compile(r"\s+loc\((?:[^()]|\([^()]*\))*\)")
# ops through which a value keeps its identity (shape or width changes only)
_SAME_VALUE = {"tt.splat", "tt.broadcast", "tt.expand_dims", "arith.extsi", "arith.extui", "ttg.convert_layout",
               "tt.reshape", "arith.index_cast"}


def _names(results: str) -> list[str]:
    out = []
    for part in results.split(","):
        part = part.strip()
        if ":" in part:  # "%acc:3": three results, used as %acc#0 ...
            name, count = part.split(":")
            out += [f"{name}#{i}" for i in range(int(count))]
        else:
            out.append(part)
    return out


def size_muls(ttir: str) -> dict[str, tuple[int, int]]:
    """For each pointer argument of the TTIR's kernel: (32-bit, 64-bit) multiplications by a size argument (an
    i32 argument, through splats, broadcasts and sign extensions) in the offsets added to it, loop-carried
    pointers and offsets followed through scf.for / scf.if / scf.yield."""
    header = next((line for line in ttir.splitlines() if "tt.func" in line), "")
    args = dict(_ARG.findall(header))
    pointers = [a for a, ty in args.items() if ty.startswith("!tt.ptr")]
    sizes = {f"%{a}" for a, ty in args.items() if ty == "i32"}
    defs: dict[str, tuple[str, list[str], str]] = {}   # value -> (op, operands, result type)
    feeds: dict[str, set[str]] = {}                     # value -> values it is also bound to (iter args, yields)
    addptrs: list[tuple[str, str]] = []                 # (pointer operand, offset operand)
    regions: list[list[str]] = []                       # per open region: the values its scf.yield binds

    def bind(target: str, source: str) -> None:
        feeds.setdefault(target, set()).add(source)

    for raw in ttir.splitlines():
        line = _LOC.sub("", raw).rstrip()
        stripped = line.strip()
        if stripped.startswith("}"):
            closed = regions.pop() if regions else []
            if stripped.endswith("{"):  # "} else {": the same results, bound by the else region's yield
                regions.append(closed)
            continue
        if stripped.startswith("scf.yield"):
            targets = regions[-1] if regions else []
            for target, value in zip(targets, _VALUE.findall(stripped.split(":")[0]), strict=False):
                bind(target, value)
            continue
        m = _DEF.match(line)
        if not m:
            if stripped.endswith("{"):
                regions.append([])
            continue
        results, op, rest = _names(m.group(1)), m.group(2), m.group(3)
        if op == "scf.for":
            pairs = [p.split("=") for p in (_FOR.search(rest).group(1).split(",") if _FOR.search(rest) else [])]
            iters = [p[0].strip() for p in pairs]
            for it, init in pairs:
                bind(it.strip(), init.strip())
            for res, it in zip(results, iters, strict=False):
                bind(res, it)
            regions.append(iters)  # the body's yield feeds the iter args (and through them the results)
            continue
        if op == "scf.if":
            regions.append(results)
            continue
        operands = _VALUE.findall(rest.split(" : ")[0] if " : " in rest else rest)
        rtype = rest.rsplit(":", 1)[-1] if ":" in rest else ""
        for r in results:
            defs[r] = (op, operands, rtype)
        if op == "tt.addptr" and len(operands) >= 2:
            addptrs.append((operands[0], operands[1]))
        if stripped.endswith("{"):
            regions.append(results)

    def roots(value: str, through: set[str] | None, seen: set[str]) -> set[str]:
        """Function arguments a value comes from (through all ops, or only those in `through`)."""
        if value in seen:
            return set()
        seen.add(value)
        out = {value} if value.lstrip("%") in args else set()
        for source in feeds.get(value, ()):
            out |= roots(source, through, seen)
        op, operands, _ = defs.get(value, ("", [], ""))
        if op and (through is None or op in through):
            for v in operands:
                out |= roots(v, through, seen)
        return out

    def pointer_roots(value: str, seen: set[str]) -> set[str]:
        if value in seen:
            return set()
        seen.add(value)
        out = {value.lstrip("%")} if value.lstrip("%") in pointers else set()
        for source in feeds.get(value, ()):
            out |= pointer_roots(source, seen)
        op, operands, _ = defs.get(value, ("", [], ""))
        if (op == "tt.addptr" or op in _SAME_VALUE) and operands:
            out |= pointer_roots(operands[0], seen)
        return out

    def muls(value: str, seen: set[str]) -> set[str]:
        """Every arith.muli the value is computed from."""
        if value in seen:
            return set()
        seen.add(value)
        out: set[str] = set()
        for source in feeds.get(value, ()):
            out |= muls(source, seen)
        op, operands, _ = defs.get(value, ("", [], ""))
        if op == "arith.muli":
            out.add(value)
        for v in operands:
            out |= muls(v, seen)
        return out

    found: dict[str, set[str]] = {p: set() for p in pointers}
    for pointer, offset in addptrs:
        for root in pointer_roots(pointer, set()):
            found[root] |= muls(offset, set())
    out: dict[str, tuple[int, int]] = {}
    for p, products in found.items():
        by_size = [v for v in products if any(roots(o, _SAME_VALUE, set()) & sizes for o in defs[v][1])]
        wide = sum("i64" in defs[v][2] for v in by_size)
        out[p] = (len(by_size) - wide, wide)
    return out
