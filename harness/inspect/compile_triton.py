"""Triton kernels compiled ahead of time for sm_90 (no GPU), and the same report from a GPU launch's handle.

Gluon kernels (a `@gluon.jit` function: kernels_gluon/) compile through the same path, from Gluon's own AST source
(its code is ttgir from the start: no TTIR facts). Every report also keeps the warps the compiled kernel launches with
(``meta.warps``: a warp-specialised kernel's partitions included, which its launch setting does not count).

Registers and stack come from ``cuobjdump -res-usage`` on the cubin, shared memory is static smem
plus ``metadata.shared`` (the dynamic size Triton's launcher requests), spills from the ptxas log
Triton prints with TRITON_DUMP_PTXAS_LOG; if that log is missing they are 0 and
``sass["LDL"]``/``sass["STL"]`` tell the story. The ttgir facts (shared allocations, async copies,
dots, layouts) come with every report: the mapping claims are proven on them.

Under TRITON_INTERPRET=1 (the CPU tier) a Triton kernel and its helpers are interpreter objects the compiler
cannot lower, so such compiles run in one child process with the interpreter off; each request's kernel says
whether it is one.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import os
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.catalog_types.declared_files import declared_module
from harness.device.kernel_resources import KernelResources
from harness.inspect import cache, ttgir
from harness.inspect.ptxas import parse_ptxas_log, res_usage, reserved_shared
from harness.inspect.sass import sass_mix

__all__ = ["TritonRequest", "handle_resources", "triton_resources", "triton_resources_many"]


@dataclass(frozen=True)
class TritonRequest:
    """One ahead-of-time compile: the kernel, its argument types and constexprs, and its launch options.

    ``divisible_by_16`` names the arguments marked ``tt.divisibility=16`` the way a launch marks
    16-byte-aligned pointers and integers that are multiples of 16; None marks every pointer, which is
    what a launch with freshly allocated tensors gets. Without the mark Triton cannot vectorise, so the
    SASS would not match the kernel that runs. ``options`` are extra compile options (e.g. maxnreg).
    """

    fn: Any
    signature: Mapping[str, str]
    constexprs: Mapping[str, object]
    num_warps: int
    num_stages: int
    arch: int = 90
    divisible_by_16: tuple[str, ...] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def to_child(self) -> dict:
        inner = getattr(self.fn, "fn", self.fn)
        # a user's file (harness/pairs) is a top-level module: the child imports it from its file
        file = inspect.getfile(inner) if "." not in inner.__module__ else None
        return {"module": inner.__module__, "file": file, "name": inner.__name__, "signature": dict(self.signature),
                "constexprs": dict(self.constexprs), "num_warps": self.num_warps, "num_stages": self.num_stages,
                "arch": self.arch, "divisible_by_16": None if self.divisible_by_16 is None
                else list(self.divisible_by_16), "options": dict(self.options)}


def _interpreted(request: TritonRequest) -> bool:
    """Was the request's kernel defined under Triton's interpreter (an InterpretedFunction: the CPU tier, where Triton
    read TRITON_INTERPRET as the kernel was defined)? Its helpers are then interpreter objects this process's
    compiler cannot lower: the compile runs in a child with the interpreter off."""
    from triton import knobs
    from triton.runtime.interpreter import InterpretedFunction

    # Triton 3.6's compiler reads the interpreter switch too: a constexpr function (gl.cdiv, a Gluon layout passed
    # to a jit helper) then returns a plain value, and the compile fails. In a process that interprets, every
    # compile goes to the child.
    if knobs.runtime.interpret:
        return True
    fn = request.fn
    for _ in range(8):
        if isinstance(fn, InterpretedFunction):
            return True
        fn = getattr(fn, "fn", None)
    return False


def _as_jit(fn: Any) -> Any:
    """A JITFunction for ``fn``: a JITFunction, an Autotuner/Heuristics wrapper (``.fn``), a plain function,
    or an InterpretedFunction (what ``@triton.jit`` returns under ``TRITON_INTERPRET=1``)."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    seen = 0
    while not isinstance(fn, (JITFunction, InterpretedFunction)) and hasattr(fn, "fn") and seen < 8:
        fn = fn.fn
        seen += 1
    if isinstance(fn, JITFunction):
        return fn
    if isinstance(fn, InterpretedFunction):
        return _reinterpreted_as_jit(fn, {}, JITFunction, InterpretedFunction)
    if callable(fn) and hasattr(fn, "__code__"):
        return JITFunction(fn)
    raise TypeError(f"expected a triton.jit function, got {type(fn).__name__}")


def _reinterpreted_as_jit(interp: Any, memo: dict[int, Any], jit_cls: type, interp_cls: type) -> Any:
    """A JITFunction built from an InterpretedFunction's Python function.

    The interpreter process needs it only for the cache key: it must hash what the compiling child
    hashes. ``triton.jit`` would hand back another InterpretedFunction while the interpreter knob is on,
    so JITFunction is constructed directly; helpers called by global name are converted the same way in
    a private copy of the globals.
    """
    import inspect
    import types

    raw = interp.fn
    if id(raw) in memo:
        return memo[id(raw)]
    new_globals = dict(raw.__globals__)
    clone = types.FunctionType(raw.__code__, new_globals, raw.__name__, raw.__defaults__, raw.__closure__)
    clone.__qualname__ = raw.__qualname__
    clone.__kwdefaults__ = raw.__kwdefaults__
    clone.__module__ = raw.__module__
    accepted = inspect.signature(jit_cls.__init__).parameters
    kwargs = {k: v for k, v in getattr(interp, "kwargs", {}).items() if k in accepted}
    jit = jit_cls(clone, **kwargs)
    memo[id(raw)] = jit
    for name in raw.__code__.co_names:
        value = new_globals.get(name)
        if isinstance(value, interp_cls):
            new_globals[name] = _reinterpreted_as_jit(value, memo, jit_cls, interp_cls)
    return jit


def _compile(src: Any, target: Any, options: Mapping[str, Any]) -> tuple[Any, str]:
    """Compile and capture ptxas's ``-v`` report.

    Triton runs ptxas with ``-v`` and prints the log when ``knobs.nvidia.dump_ptxas_log``
    (TRITON_DUMP_PTXAS_LOG) is set -- true for 3.6 and 3.9 -- but only when ptxas actually runs, so
    Triton's own cache is bypassed with ``always_compile`` for this one call.
    """
    import triton
    from triton import knobs

    buffer = io.StringIO()
    with contextlib.ExitStack() as stack:
        for group_name, knob in (("compilation", "always_compile"), ("nvidia", "dump_ptxas_log")):
            group = getattr(knobs, group_name, None)
            # Knobs are data descriptors on the class; hasattr() on the class would call __get__ with no
            # instance and fail.
            if group is not None and any(knob in vars(cls) for cls in type(group).__mro__):
                stack.enter_context(group.scope())
                setattr(group, knob, True)
        stack.enter_context(warnings.catch_warnings())
        # 3.9 warns that its fp-fusion default will change; the default is what a launch uses.
        warnings.filterwarnings("ignore", message=".*TRITON_DEFAULT_FP_FUSION.*")
        stack.enter_context(contextlib.redirect_stdout(buffer))
        compiled = triton.compile(src, target=target, options=dict(options))
    return compiled, buffer.getvalue()


def _env_key() -> Any:
    # TRITON_INTERPRET only decides where the compile runs (here or in a child), not what it produces.
    try:
        from triton._C.libtriton import get_cache_invalidating_env_vars

        env = get_cache_invalidating_env_vars()
    except (ImportError, AttributeError):
        env = dict(sorted((k, v) for k, v in os.environ.items() if k.startswith("TRITON_")))
    if isinstance(env, dict):
        return sorted((k, v) for k, v in env.items() if k != "TRITON_INTERPRET")
    return env


def _source(request: TritonRequest) -> tuple[Any, dict, str]:
    """The ASTSource, the compile options and the cache key of a request (the interpreter's function
    object is swapped for the compiled one of the same module and name first)."""
    import triton
    from triton.compiler import ASTSource

    jit_fn = _as_jit(request.fn)
    arg_names = list(jit_fn.arg_names)
    marked = (list(request.divisible_by_16) if request.divisible_by_16 is not None
              else [name for name, ty in request.signature.items() if ty.startswith("*")])
    if unknown := [name for name in marked if name not in arg_names]:
        raise ValueError(f"divisible_by_16 names {unknown} are not arguments of {jit_fn.__name__}{arg_names}")
    attrs = {(arg_names.index(name),): [["tt.divisibility", 16]] for name in marked}
    source_class = ASTSource
    if getattr(jit_fn, "is_gluon", lambda: False)():
        from triton.experimental.gluon._runtime import GluonASTSource

        source_class = GluonASTSource
    src = source_class(fn=jit_fn, signature=dict(request.signature), constexprs=dict(request.constexprs), attrs=attrs)
    options = {"num_warps": request.num_warps, "num_stages": request.num_stages, **request.options}
    key = cache.digest({"kind": "triton", "facts": ttgir.FACTS_VERSION, "triton": triton.__version__,
                        "source": src.hash(), "options": sorted((k, repr(v)) for k, v in options.items()),
                        "arch": request.arch, "env": _env_key()})
    return src, options, key


def _compile_request(request: TritonRequest) -> KernelResources:
    from triton.backends.compiler import GPUTarget

    src, options, key = _source(request)
    if (cached := cache.load(key)) is not None:
        return KernelResources.from_json(cached)
    compiled, log = _compile(src, GPUTarget("cuda", request.arch, 32), options)
    kernel = compiled.metadata.name
    with tempfile.TemporaryDirectory(prefix="rosetta-triton-") as tmp:
        cubin = Path(tmp) / f"{kernel}.cubin"
        cubin.write_bytes(compiled.asm["cubin"])
        usage = res_usage(cubin).get(kernel, {})
        sass = sass_mix(cubin, function=kernel)
    record = parse_ptxas_log(log).get(kernel)
    if record is not None:
        static_shared = record["smem"]
        spill_stores, spill_loads = record["spill_stores"], record["spill_loads"]
    else:
        static_shared = max(0, usage.get("SHARED", 0) - reserved_shared(request.arch))
        spill_stores = spill_loads = 0
    facts = ttgir.facts(compiled.asm["ttgir"], compiled.asm.get("ttir", ""), compiled.asm.get("ptx", ""))
    facts["meta.warps"] = int(compiled.metadata.num_warps)
    if record is not None:
        facts["barriers"] = record["barriers"]
    resources = KernelResources(registers=usage.get("REG", record["registers"] if record else 0),
                                shared_bytes=static_shared + int(compiled.metadata.shared),
                                local_bytes=usage.get("STACK", 0) + usage.get("LOCAL", 0), spill_stores=spill_stores,
                                spill_loads=spill_loads, sass=sass, kernel=kernel, facts=facts)
    cache.store(key, resources.to_json())
    return resources


def triton_resources_many(requests: Sequence[TritonRequest],
                          return_errors: bool = False) -> list[KernelResources | Exception]:
    """Every request's resources, in order; under the interpreter all uncached ones compile in one child.

    With return_errors, a request that fails to compile gives its exception in its place (the others are
    still compiled); otherwise the first failure raises.
    """
    found: list[KernelResources | Exception | None] = []
    for request in requests:
        try:
            cached = cache.load(_source(request)[2])
            found.append(None if cached is None else KernelResources.from_json(cached))
        except Exception as e:
            found.append(e)
    missing = [i for i, r in enumerate(found) if r is None]
    if missing:
        compiled = (_in_child([requests[i] for i in missing]) if any(_interpreted(requests[i]) for i in missing)
                    else [_compile_or_error(requests[i]) for i in missing])
        for i, r in zip(missing, compiled, strict=True):
            found[i] = r
    out = [r for r in found if r is not None]
    if not return_errors:
        for r in out:
            if isinstance(r, Exception):
                raise r
    return out


def _compile_or_error(request: TritonRequest) -> KernelResources | Exception:
    try:
        return _compile_request(request)
    except Exception as e:
        return e


def triton_resources(fn: Any, signature: dict[str, str], constexprs: dict[str, object], num_warps: int,
                     num_stages: int, arch: int = 90, *, divisible_by_16: Iterable[str] | None = None,
                     options: Mapping[str, Any] | None = None) -> KernelResources:
    """Resources of one Triton kernel compiled ahead of time for sm_<arch> (see TritonRequest)."""
    request = TritonRequest(fn, signature, constexprs, num_warps, num_stages, arch,
                            None if divisible_by_16 is None else tuple(divisible_by_16), dict(options or {}))
    result = triton_resources_many([request])[0]
    assert isinstance(result, KernelResources)  # failures raised above
    return result


def handle_resources(handle: Any) -> KernelResources:
    """The same report from the handle a GPU launch returned (specialised on that launch's arguments).

    Cached on disk by the cubin's digest: disassembling it is a subprocess per kernel, and the same kernel comes
    back in every run (and from the run's precompile pool, which fills this cache ahead of the worker).
    """
    import hashlib

    asm = handle.asm
    kernel = handle.metadata.name
    key = cache.digest({"kind": "triton-handle", "cubin": hashlib.sha256(asm["cubin"]).hexdigest(), "name": kernel,
                        "facts": ttgir.FACTS_VERSION})
    if (cached := cache.load(key)) is not None:
        return KernelResources.from_json(cached)
    facts = ttgir.facts(asm["ttgir"], asm.get("ttir", ""), asm.get("ptx", "")) if "ttgir" in asm else {}
    facts["meta.warps"] = int(handle.metadata.num_warps)
    resources = KernelResources(registers=int(handle.n_regs), shared_bytes=int(handle.metadata.shared),
                                local_bytes=0, spill_stores=int(handle.n_spills), spill_loads=0,
                                sass=sass_mix(asm["cubin"], function=kernel), kernel=kernel, facts=facts)
    cache.store(key, resources.to_json())
    return resources


def _in_child(requests: Sequence[TritonRequest]) -> list[KernelResources | Exception]:
    """Compile in a fresh interpreter with TRITON_INTERPRET unset; each request's fn must be importable."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([root, os.getcwd(), env.get("PYTHONPATH", "")])
    payload = json.dumps([r.to_child() for r in requests])
    proc = subprocess.run([sys.executable, "-m", "harness.inspect.compile_triton"], input=payload, env=env,
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        names = ", ".join(sorted({r.to_child()["name"] for r in requests}))
        raise RuntimeError(f"Triton compile of {names} failed: {proc.stderr.strip()[-2000:]}")
    answers = json.loads(proc.stdout.strip().splitlines()[-1])
    return [RuntimeError(a["error"]) if "error" in a else KernelResources.from_json(a) for a in answers]


def _child_main() -> None:
    import importlib

    out = []
    for req in json.loads(sys.stdin.read()):
        try:
            module = declared_module(req["file"]) if req.get("file") else importlib.import_module(req["module"])
            fn = getattr(module, req["name"])
            request = TritonRequest(fn, req["signature"], req["constexprs"], req["num_warps"], req["num_stages"],
                                    req["arch"],
                                    None if req["divisible_by_16"] is None else tuple(req["divisible_by_16"]),
                                    req["options"])
            out.append(_compile_request(request).to_json())
        except Exception as e:  # one kernel's failure is its own; the others are still compiled
            out.append({"error": f"Triton compile of {req['module']}.{req['name']} failed: {type(e).__name__}: "
                                 f"{str(e)[-1500:]}"})
    sys.stdout.write("\n" + json.dumps(out) + "\n")


if __name__ == "__main__":
    _child_main()
