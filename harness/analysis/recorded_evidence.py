"""Mapping-claim evidence from a run's own records, so that proving the mapping compiles only what the run did not.

A run records, for every implementation it compiled, what the compiler allotted and the facts read off the code
(`Result.resources`: registers, spills, shared memory, the SASS mix, ptxas's barriers, the ttgir facts) and, for a
Triton launch, the settings it ran with (an autotuner's choice included). Those are the numbers the claims'
predicates read (harness.inspect.evidence), taken here from the kernels the run measured rather than compiled
again; a kernel the run has no compiled record of is left to the ahead-of-time compile.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from harness.catalog_types.evidence import KernelEvidence, Numbers
from harness.device.kernel_resources import KernelResources
from harness.identity import ImplId
from harness.inspect.evidence import cuda_numbers, gluon_numbers, triton_numbers
from harness.records.lines import Resources, Result
from harness.registry import Kernel

# Where a proof read the run's own compiled facts (nothing compiled again): the page and the record say this.
RUN_EVIDENCE = "this run's compiled kernels"

# Launch settings a record's config may hold that the evidence names as `cfg.<key>`.
_LAUNCH_KEYS = ("block_m", "block_n", "block_k", "group_m", "num_warps", "num_stages")


def _resources(r: Resources) -> KernelResources:
    facts = {k: int(v) for k, v in (r.evidence or {}).items() if not k.startswith("src.")}
    return KernelResources(registers=int(r.registers or 0), shared_bytes=int(r.shared_bytes or 0),
                           local_bytes=int(r.local_bytes or 0), spill_stores=int(r.spills or 0), spill_loads=0,
                           sass=dict(r.sass), facts=facts)


def _launched(config: dict | None) -> dict[str, int]:
    """The settings the launch ran with: an autotuner's choice over the derived ones."""
    cfg = dict(config or {})
    cfg.update(cfg.pop("autotuned", None) or {})
    return {k: int(cfg[k]) for k in _LAUNCH_KEYS if isinstance(cfg.get(k), int) and not isinstance(cfg[k], bool)}


def _compiled(results: list[Result], kernel_id: str, impl: str) -> Result | None:
    """The first record of an implementation that carries its compiled resources."""
    return next((r for r in results if r.kernel == kernel_id and r.impl == impl and r.resources is not None
                 and r.resources.registers is not None), None)


def from_run(results: Iterable[Result], kernels: list[Kernel],
             compilers: Mapping[str, str] | None = None) -> dict[str, KernelEvidence]:
    """Evidence for each kernel whose CUDA side and every Triton counterpart the run compiled and recorded, made by
    the run's `compilers` (its header's versions, by name), with the Gluon forms the run recorded (a form it did not,
    e.g. in a run without a GPU, has no numbers: its checks then ask for the ahead-of-time compile,
    harness/analysis/mapping.py)."""
    results = list(results)
    out: dict[str, KernelEvidence] = {}
    for kernel in kernels:
        cuda = _compiled(results, kernel.id, "cuda")
        sides = {c.name: _compiled(results, kernel.id, ImplId("triton", c.name).to_json()) for c in kernel.counterparts}
        gluon = {g.name: _compiled(results, kernel.id, ImplId("gluon", g.name).to_json()) for g in kernel.gluon}
        if cuda is None or cuda.resources is None or any(r is None or r.resources is None for r in sides.values()):
            continue
        triton = {name: triton_numbers(kernel, c, _resources(r.resources), _launched(r.resources.config))
                  for c in kernel.counterparts if (r := sides[(name := c.name)]) is not None and r.resources}
        out[kernel.id] = KernelEvidence(kernel, cuda_numbers(kernel, _resources(cuda.resources),
                                                             cuda.resources.driver), triton,
                                        where=RUN_EVIDENCE,
                                        gluon={g.name: gluon_numbers(kernel, g, _resources(r.resources))
                                               if (r := gluon[g.name]) is not None and r.resources is not None
                                               else Numbers() for g in kernel.gluon},
                                        compilers={k: v for k, v in (compilers or {}).items()
                                                   if k in ("triton", "nvrtc")})
    return out
