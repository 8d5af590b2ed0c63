"""Findings about what Triton can express of the CUDA designs: several ideas as one Triton kernel with
different launch settings, CUDA settings Triton cannot take, and where its compiler overrides a design.

Each rule returns the sentence (with its numbers) and the link to its evidence, or None.
"""

from __future__ import annotations

from harness.registry import IDEAS
from harness.report import anchors, fmt
from harness.report.claims import TIE
from harness.report.doc import Evidenced, Inline, Link, Mono
from harness.report.measured import Measured, config_text, ideas_of, triton_modules
from harness.run.records import Result


def idea_link(key: str) -> Link:
    return Link(IDEAS[key].title if key in IDEAS else key, anchors.href(anchors.idea(key)))


def who(r: Result) -> list[Inline]:
    """'`kernel`' for CUDA, 'Triton dot of `kernel`' for a counterpart, 'cuBLAS fp32' for a baseline."""
    if r.kernel is None:
        return [r.label]
    return [Mono(r.kernel)] if r.impl_id.is_cuda else [f"{r.label} of ", Mono(r.kernel)]


def shared_finding(m: Measured) -> Evidenced:
    modules = {mod: pairs for mod, pairs in triton_modules(m.kernels).items() if len(ideas_of(pairs)) >= 2}
    if not modules:
        return None
    ranked = sorted(modules.items(), key=lambda kv: -len(ideas_of(kv[1])))
    module, pairs = ranked[0]
    ideas = ideas_of(pairs)
    parts: list[Inline] = [f"{len(ideas)} ideas ("]
    named = ideas if len(ideas) <= 5 else ideas[:4]
    for i, key in enumerate(named):
        parts += [", “" if i else "“", idea_link(key), "”"]
    if len(named) < len(ideas):
        parts.append(f" and {len(ideas) - len(named)} more")
    parts += [") are one Triton kernel, ", Mono(f"kernels_triton/{module}.py"), ", launched with different settings"]
    problem = m.headline(pairs[0][0].op)
    names = {(k.id, f"triton:{c.name}") for k, c in pairs}
    scored = [(m.pct(r), r) for r in m.all if (r.kernel, r.impl) in names and problem and r.problem == problem]
    scored = [(p, r) for p, r in scored if p is not None]
    if len(scored) >= 2:
        (p0, r0), (p1, r1) = min(scored, key=lambda s: s[0]), max(scored, key=lambda s: s[0])
        parts += [f": on {problem.label} it runs from {fmt.pct(p0)} of cuBLAS ({config_text(m.config(r0))}, for ",
                  Mono(r0.kernel or ""), f") to {fmt.pct(p1)} ({config_text(m.config(r1))}, for ",
                  Mono(r1.kernel or ""), ")"]
    else:
        configs = {config_text(c.config(k)): k.id for k, c in pairs}
        parts.append(": ")
        for i, (cfg, kid) in enumerate(list(configs.items())[:3]):
            parts += ["; " if i else "", f"{cfg} for ", Mono(kid)]
    for i, (other, other_pairs) in enumerate(ranked[1:]):
        parts += ["; likewise " if i == 0 else " and ", Mono(f"{other}.py"), f" ({len(ideas_of(other_pairs))} ideas)"]
    parts.append(".")
    return parts, Link("Triton kernels shared by several ideas", anchors.href(anchors.SHARED_TRITON))


def limits_finding(m: Measured) -> Evidenced:
    why: dict[str, dict[str, list[str]]] = {}      # reason -> "block_k = 16" -> kernel ids
    first_idea = ""
    for k in m.kernels:
        for c in k.counterparts:
            for key, dev in c.deviations.items():
                ids = why.setdefault(dev.why, {}).setdefault(f"{key} = {dev.value}", [])
                if k.id not in ids:  # two forms of one kernel (dot, tuned) deviate alike: the kernel once
                    ids.append(k.id)
                first_idea = first_idea or k.idea
    spills = _compiler_spills(m)
    if not why and not spills:
        return None
    parts: list[Inline] = []
    if why:
        total = sum(len(ids) for uses in why.values() for ids in uses.values())
        ranked = sorted(why.items(), key=lambda kv: -sum(len(v) for v in kv[1].values()))
        parts.append(f"Triton cannot take {fmt.plural(total, 'CUDA launch decision')} as written: ")
        for i, (reason, uses) in enumerate(ranked[:2]):
            parts += [" and " if i else "", f"“{reason}” ("]
            for j, (setting, ids) in enumerate(uses.items()):
                parts += ["; " if j else "", f"{setting} for "]
                for n, kid in enumerate(ids):
                    parts += [", " if n else "", Mono(kid)]
            parts.append(")")
        rest = sum(len(v) for _, uses in ranked[2:] for v in uses.values())
        if rest:
            parts.append(f", with {rest} more in the idea sections")
    if spills:
        tri, cuda = spills[0]
        assert tri.resources and cuda.resources
        parts += ["; " if parts else "", "where it can take them, its compiler may override the design: ",
                  *who(tri), f" spills {tri.resources.spills} B at {tri.resources.registers} registers where the "
                  f"CUDA kernel holds {cuda.resources.registers} with none"]
        pt, pc = m.pct(tri), m.pct(cuda)
        if pt is not None and pc is not None:
            parts.append(f", and runs at {fmt.pct(pt)} of cuBLAS against CUDA's {fmt.pct(pc)}")
        facts = tri.kernel_facts
        first_idea = first_idea or (facts.idea if facts else "")
    parts.append(".")
    return parts, idea_link(first_idea)


def _compiler_spills(m: Measured) -> list[tuple[Result, Result]]:
    """(Triton record, CUDA record) where the compiled Triton kernel spills and the CUDA one does not. A form the
    registry labels deliberately different (rank-1 updates from global memory) is a design choice of the suite,
    not the compiler overriding one, and is left out."""
    out = []
    for kid, impl in m.implementations:
        if not impl.startswith("triton:"):
            continue
        tri, cuda = m.compiled(kid, impl), m.compiled(kid, "cuda")
        if tri is not None and m.deliberately_different(tri):
            continue
        if tri and cuda and tri.resources and cuda.resources and (tri.resources.spills or 0) > 0 \
                and not cuda.resources.spills:
            same = [r for r in m.of_kernel(kid, impl) if r.timed and m.baseline(r.problem)]
            tri = same[0] if same else tri
            cuda = next((r for r in m.of_kernel(kid, "cuda") if r.problem == tri.problem and r.timed), cuda)
            pt, pc = m.pct(tri), m.pct(cuda)
            # only where it costs: a spilling Triton kernel that ties or beats the CUDA one overrides nothing
            if pt is not None and pc is not None and pt >= pc * (1 - TIE):
                continue
            out.append((tri, cuda))
    return sorted(out, key=lambda tc: -(tc[0].resources.spills or 0) if tc[0].resources else 0)
