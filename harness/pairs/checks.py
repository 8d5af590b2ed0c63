"""What a declared pair is checked for before anything of it is launched; each failure is one line (PairError).

- the CUDA function is there: a __global__ function of that name in the .cu (its headers expanded), taking as many
  parameters as cuda.args names, pointers where the operands are; then NVRTC compiles the name expression (template
  arguments included) for sm_90a with the suite's options, where NVRTC is installed;
- the Triton side imports, has its kernel (and launch and grid functions where declared), and every parameter of
  the kernel is one the suite gives;
- each grid covers the output: on every problem the run will give the pair (and the CPU tier's), the CUDA grid's
  blocks times each block's outputs, and the Triton grid's programs times each program's, reach every element of C
  (sgemv: y). A count, not a proof of the indexing: the NaN-poisoned outputs of every numerics layer catch a kernel
  that skips an element;
- the precision class is the one the compiled code computes in: fp32 means no tensor-core instruction (HMMA, HGMMA)
  in the SASS, tf32 and 3xtf32 mean some, on both sides (the Triton kernel compiled ahead of time for sm_90 where
  its parameters say how to). Whether a tensor-core kernel keeps fp32 accuracy (3xtf32) is the numerics' to judge:
  the fp32 bound of every layer.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from harness.catalog_types.declared_files import declared_function, module_name
from harness.catalog_types.kernel import PRECISION_CLASSES, Kernel
from harness.launch.declared import DeclaredForm, one_line
from harness.pairs.declaration import POINTERS, PairError
from harness.pairs.pair import Pair
from harness.problems import Problem
from harness.problems.preconditions import unmet

TENSOR_CORE_SASS = ("HMMA", "HGMMA")


def check(pair: Pair, problems: list[Problem]) -> DeclaredForm:
    """Every check of the module's docstring, cheapest first; returns the Triton side's form."""
    d, kernel = pair.declaration, pair.kernel
    cuda_parameters(pair)
    try:
        form = DeclaredForm(kernel, pair.counterpart)
    except ValueError as e:
        raise PairError(f"{d.who}: {e}") from None
    covers(pair, form, problems)
    built = cuda_build(pair)
    if built is not None:
        tensor_cores("the CUDA kernel's SASS (NVRTC, sm_90a)", built, kernel, d.who)
    compiled = triton_build(pair, form)
    if compiled is not None:
        tensor_cores("the Triton kernel's SASS (compiled ahead of time for sm_90)", compiled, kernel, d.who)
    return form


def module_names(pairs: list[Pair]) -> None:
    """Each user Python file is imported by its stem: refuse a stem an installed module or another file already
    answers to (the file would never be the one imported)."""
    stems: dict[str, str] = {}
    for p in pairs:
        d = p.declaration
        for file in dict.fromkeys([d.triton.file, *(g.rpartition(":")[0] for g in (d.cuda.grid, d.triton.grid) if g)]):
            stem = module_name(file)
            if not stem.isidentifier():
                raise PairError(f"{d.who}: {file}: a Python file is imported by its name, and {stem!r} is no module "
                                f"name")
            if stems.setdefault(stem, file) != file:
                raise PairError(f"{d.who}: {file} and {stems[stem]} would both be imported as {stem!r}: rename one")
            try:
                spec = importlib.util.find_spec(stem)
            except (ImportError, ValueError):
                spec = None
            origin = getattr(spec, "origin", None) if spec is not None else None
            if spec is not None and (origin is None or Path(origin).resolve() != Path(file).resolve()):
                raise PairError(f"{d.who}: {file} is imported by its name, {stem!r}, which is already "
                                f"{origin or 'a package'}: rename the file")


# ---------------------------------------------------------------------------------------------------------- CUDA
def cuda_parameters(pair: Pair) -> list[str]:
    """The __global__ function's parameters, read from the source; refuse a function that is not there or whose
    parameters do not match cuda.args."""
    d, kernel = pair.declaration, pair.kernel
    name = d.cuda.symbol.split("<")[0].strip().split("::")[-1]
    params = parameters(kernel.code, name)
    if params is None:
        found = sorted(set(re.findall(r"__global__[^;{(]*?\b(\w+)\s*\(", _without_comments(kernel.code))))
        raise PairError(f"{d.who}: cuda.symbol {d.cuda.symbol!r}: {d.cuda.file} has no __global__ function {name}"
                        + (f" (it has {', '.join(found)})" if found else ""))
    if len(params) != len(d.cuda.args):
        raise PairError(f"{d.who}: cuda.args names {len(d.cuda.args)} parameters ({', '.join(d.cuda.args)}), and "
                        f"{name} takes {len(params)} ({'; '.join(params)})")
    for arg, text in zip(d.cuda.args, params, strict=True):
        pointer = arg in POINTERS[d.op]
        if pointer != ("*" in text):
            raise PairError(f"{d.who}: cuda.args puts {arg} where {name} takes `{text}`: "
                            f"{'a pointer' if pointer else 'a value'} is declared")
    return params


def parameters(code: str, name: str) -> list[str] | None:
    """The parameter list of the __global__ function `name` in CUDA source text (None where there is none)."""
    text = _without_comments(code)
    for m in re.finditer(r"__global__\b", text):
        head = re.search(rf"\b{re.escape(name)}\s*\(", text[m.end():m.end() + 4000])
        if head is None or re.search(r"[;{}]", text[m.end():m.end() + head.start()]):
            continue  # a declaration of another function comes first
        start = m.end() + head.end()
        depth, i, parts, current = 1, start, [], []
        while i < len(text) and depth:
            ch = text[i]
            if ch in "([<":
                depth += 1
            elif ch in ")]>":
                depth -= 1
            if depth == 1 and ch == ",":
                parts.append("".join(current))
                current = []
            elif depth:
                current.append(ch)
            i += 1
        parts.append("".join(current))
        return [p.strip() for p in parts if p.strip() and p.strip() != "void"]
    return None


def _without_comments(code: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", code, flags=re.DOTALL)


def cuda_build(pair: Pair):
    """The declared name expression built by the suite's NVRTC build for sm_90a, its resources read (None where
    NVRTC is not installed: the run then records that nothing could be compiled)."""
    from harness.nvrtc.compiler import BuildError, available, build
    from harness.nvrtc.options import CPU_TIER_ARCH, DEFAULT

    if not available():
        return None
    from harness.inspect.compile_cuda import built_resources

    d, kernel = pair.declaration, pair.kernel
    try:
        built = build(Path(kernel.source), [kernel.symbol], CPU_TIER_ARCH, DEFAULT.options)
        return built_resources(built, kernel.symbol)
    except BuildError as e:
        errors = [ln for ln in str(e).splitlines() if "error" in ln.lower() and ln.strip() != str(e).splitlines()[0]]
        raise PairError(f"{d.who}: cuda.symbol {d.cuda.symbol!r} does not build (NVRTC, {CPU_TIER_ARCH}): "
                        f"{one_line(errors[0] if errors else str(e))}") from None


# ---------------------------------------------------------------------------------------------------------- grids
def covers(pair: Pair, form: DeclaredForm, problems: list[Problem]) -> None:
    """Each side's grid reaches every output element on each problem the run gives the pair."""
    d, kernel = pair.declaration, pair.kernel
    counterpart = pair.counterpart
    settings = counterpart.config(kernel)
    if d.cuda.grid:  # named, and there
        try:
            declared_function(d.cuda.grid)
        except ValueError as e:
            raise PairError(f"{d.who}: cuda.grid {d.cuda.grid.rpartition(':')[2]!r}: {e}") from None
    for p in problems:
        if p.op != d.op or unmet(kernel.preconditions, p):
            continue
        outputs = p.M * (p.N if p.op == "sgemm" else 1)
        per_block = kernel.tile_m * (kernel.tile_n if p.op == "sgemm" else 1)
        try:
            grid = kernel.grid(p)
        except Exception as e:
            raise PairError(f"{d.who}: cuda.grid fails on {p.label}: {type(e).__name__}: {one_line(str(e))}") from None
        shape = f"{kernel.tile_m}x{kernel.tile_n}" if p.op == "sgemm" else f"{kernel.tile_m}-row"
        _covers(d.who, "the CUDA grid", grid, per_block, outputs, p, f"block(s) of {shape}")
        if counterpart.unmet(p):  # the Triton side's own preconditions
            continue
        try:
            programs = form.programs(p.M, p.N, p.K, settings)
        except Exception as e:
            raise PairError(f"{d.who}: the Triton grid fails on {p.label}: {type(e).__name__}: "
                            f"{one_line(str(e))}") from None
        if programs is not None:
            bm, bn = int(settings["block_m"]), int(settings.get("block_n") or 1)
            _covers(d.who, "the Triton grid", programs, bm * (bn if p.op == "sgemm" else 1), outputs, p,
                    f"program(s) of {f'{bm}x{bn}' if p.op == 'sgemm' else f'{bm}-row'}")


def _covers(who: str, what: str, grid: tuple[int, ...], per_block: int, outputs: int, p: Problem, tile: str) -> None:
    blocks = 1
    for size in grid:
        blocks *= size
    if any(size < 1 for size in grid) or blocks * per_block < outputs:
        raise PairError(f"{who}: {what} {tuple(grid)} on {p.label} has {blocks} {tile} outputs: "
                        f"{blocks * per_block} < the {outputs} outputs, so it does not cover the output")


# ---------------------------------------------------------------------------------------------------------- Triton
def triton_build(pair: Pair, form: DeclaredForm):
    """The Triton kernel compiled ahead of time for sm_90 at the declared settings (None where its parameters do
    not say how to call it, or where the compiler itself is missing: the run says what happens then)."""
    from harness.inspect.compile_triton import TritonRequest, triton_resources_many

    kernel, counterpart = pair.kernel, pair.counterpart
    runtime = [n for n, p in form.params.items() if n not in form.constexpr_names]
    if any(n not in form.SIGNATURE for n in runtime):
        return None  # a launch function's kernel with parameters of its own: only its launch knows them
    settings = counterpart.config(kernel)
    cx = form.constexprs(**settings)
    signature = {**form.SIGNATURE, **dict.fromkeys(cx, "constexpr")}
    aligned = tuple(n for n, ty in form.SIGNATURE.items() if ty.startswith("*") or ty == "i32")
    request = TritonRequest(form.KERNEL, signature, cx, int(settings["num_warps"]), int(settings.get("num_stages", 1)),
                            90, aligned)
    try:
        got = triton_resources_many([request], return_errors=True)[0]
    except Exception:  # the compile child itself could not start or answer: nothing to say about the kernel
        return None
    if isinstance(got, Exception):
        text = f"{type(got).__name__}: {got}"   # the compile child's errors carry their type's name in their text
        if "CompilationError" in text or "CompileTimeAssertionFailure" in text:
            # Triton says where ("at 2:8:"), quotes the code, and ends with why: the place and the why, on one line
            lines = [ln.strip() for ln in text.split("CompilationError", 1)[-1].lstrip(": ").splitlines() if ln.strip()]
            where = lines[0].rstrip(":") if lines and lines[0].startswith("at ") else ""
            raise PairError(f"{pair.declaration.who}: the Triton kernel does not compile for sm_90"
                            + (f" ({where} of the kernel)" if where else "") + f": {lines[-1] if lines else text}"
                            ) from None
        return None
    return got


def tensor_cores(what: str, resources, kernel: Kernel, who: str) -> None:
    """Refuse a class the compiled code does not compute in: tensor-core instructions where fp32 is declared, none
    where a tensor-core class is."""
    found = sum(int(resources.sass.get(k, 0)) for k in TENSOR_CORE_SASS)
    cls = PRECISION_CLASSES[kernel.precision]
    if cls.tensor_cores and not found:
        raise PairError(f"{who}: precision {kernel.precision} is declared, and {what} has no tensor-core instruction "
                        f"({', '.join(TENSOR_CORE_SASS)}): it computes in fp32 SIMT; declare precision = \"fp32\"")
    if not cls.tensor_cores and found:
        raise PairError(f"{who}: precision fp32 is declared, and {what} has {found} tensor-core instructions "
                        f"({', '.join(TENSOR_CORE_SASS)}): declare the class it computes in (tf32 or 3xtf32)")
