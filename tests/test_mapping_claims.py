"""Every mapping claim the report states, proven on every kernel of its idea, every Triton form and every Gluon form.

CPU tier: the CUDA sources through the suite's NVRTC build for sm_90a and the counterparts (Triton and Gluon) through
Triton's AOT compiler for sm_90 (each compiled once, cached on disk). GPU tier (marker `gpu`): the same predicates on
the kernels a GPU launch compiled (Triton and Gluon handles, the driver's attributes of the loaded CUDA functions).
Where the installed Triton has no usable Gluon, the Gluon column is left out with the reason.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.analysis import mapping
from harness.analysis.proven import changed_and_false
from harness.catalog_types.claim import version_in
from harness.catalog_types.evidence import Evidence, KernelEvidence, Numbers
from harness.claims import CLAIMS, COMPILER, PROGRAMMER, ByCompiler, ByForm, ByKernel, Check, compilers
from harness.claims.compilers import installed, is_tested
from harness.launch.gluon import unavailable as gluon_unavailable
from harness.nvrtc.compiler import available as nvrtc_available
from harness.registry import BY_ID, IDEAS, KERNELS, Role

NO_GLUON = gluon_unavailable()

needs_nvrtc = pytest.mark.skipif(not nvrtc_available(), reason="needs NVRTC (cuda-bindings + nvidia-cuda-nvrtc) to "
                                 "build the CUDA sources")

# (idea, claim index, kernel id) for every claim of every idea and every kernel of that idea in the registry.
CASES = [(k.idea, i, k.id) for k in KERNELS if k.idea in CLAIMS for i in range(len(CLAIMS[k.idea]))]


def _case_id(case: tuple[str, int, str]) -> str:
    idea, i, kernel_id = case
    return f"{idea}/{CLAIMS[idea][i].decision}/{kernel_id}"


@pytest.fixture(scope="module")
def evidence() -> dict[str, KernelEvidence]:
    from harness.inspect.evidence import gather

    return gather(KERNELS)


def _failures(verdicts: list[mapping.Verdict]) -> str:
    return "\n".join(f"  {v.label} ({v.where}, {v.made_on or 'compiler not recorded'}): {v.check or v.error} -- "
                     f"evidence: {v.evidence or '-'}" for v in verdicts if not v.holds)


def test_every_idea_with_kernels_states_its_claims():
    missing = sorted({k.idea for k in KERNELS} - set(CLAIMS))
    assert not missing, (f"ideas with kernels but no mapping claims: {missing} "
                         "(harness/catalog: each family declares its ideas' claims)")
    assert set(CLAIMS) <= set(IDEAS), f"claims for unknown ideas: {set(CLAIMS) - set(IDEAS)}"


def test_ideas_hold_no_mapping_rows():
    # The mapping is stated once, as claims with predicates; the idea table keeps key, title and lesson.
    for idea in IDEAS.values():
        assert set(vars(idea)) == {"key", "title", "lesson"}


def test_claims_are_well_formed():
    for idea, claims in CLAIMS.items():
        decisions = [c.decision for c in claims]
        assert len(set(decisions)) == len(decisions), f"{idea}: a decision is stated twice"
        for c in claims:
            assert c.decided_by in (PROGRAMMER, COMPILER), (idea, c.decision)
            assert c.cuda.strip() and c.triton.strip(), (idea, c.decision)


@needs_nvrtc
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_claim_holds_on_the_compiled_kernels(case, evidence):
    idea, i, kernel_id = case
    claim = CLAIMS[idea][i]
    verdicts = mapping.check_claim(idea, claim, evidence[kernel_id])
    gluon_forms = len(BY_ID[kernel_id].gluon) if claim.gluon is not None else 0
    assert len(verdicts) == 1 + len(BY_ID[kernel_id].counterparts) + gluon_forms
    if NO_GLUON:  # the Gluon column could not be compiled: its verdicts say so, the other columns still hold
        assert all(NO_GLUON in v.error for v in verdicts if v.side == "gluon")
        verdicts = [v for v in verdicts if v.side != "gluon"]
    _hold_or_changed(f"{idea} / {claim.decision}", verdicts)


def _hold_or_changed(what: str, verdicts: list[mapping.Verdict]) -> None:
    """Every check holds on a compiler version pyproject declares tested; where one does not hold on any other version,
    the mapping changed there: the test says what the compiled code does now, and does not fail."""
    changed, false = changed_and_false(verdicts)
    assert not false, f"{what} is false:\n{_failures(false)}"
    if changed:
        pytest.skip(f"changed mapping, {what}: " + "; ".join(v.changed for v in changed))


def _checks(side, ev: Evidence) -> Check:
    return side if isinstance(side, Check) else side.pick(ev)


def _mutations(numbers: Numbers, key: str) -> list[Numbers]:
    value = numbers[key]
    return [Numbers({**numbers, key: v}) for v in {0, value + 1, 2 * value + 17, max(value - 1, 0)} if v != value]


@needs_nvrtc
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_each_check_reads_the_evidence_it_shows(case, evidence):
    """A predicate that no change of its shown numbers can falsify proves nothing: change each number it shows
    and at least one change must turn the verdict."""
    idea, i, kernel_id = case
    claim = CLAIMS[idea][i]
    ke = evidence[kernel_id]
    sides = [("cuda", claim.cuda_check, Evidence(ke.kernel, ke.cuda))]
    sides += [("triton", claim.triton_check, ev) for ev in ke.sides()]
    if claim.gluon is not None and not NO_GLUON:
        sides += [("gluon", claim.gluon.check, ev) for ev in ke.gluon_sides()]
    for side, check_side, ev in sides:
        check = _checks(check_side, ev)
        assert check.shows, f"{claim.decision} [{side}]: the check shows no evidence"
        flipped = False
        for key in check.shows:
            for mutated in _mutations(getattr(ev, side), key):
                changed = replace(ev, **{side: mutated})
                flipped = flipped or not check.holds(changed)
        assert flipped, f"{idea} / {claim.decision} [{side}, {ev.form or 'cuda'}]: no change of {check.shows} " \
                        f"falsifies '{check.text}'"


def test_every_claim_of_an_idea_with_a_gluon_kernel_has_a_gluon_column():
    """The mapping tables gain the Gluon column wherever a Gluon counterpart runs: each claim of such an idea says what
    the Gluon form writes, who decides it in Gluon and how it is proven; no idea without one has a Gluon column."""
    with_gluon = {k.idea for k in KERNELS if k.gluon}
    assert with_gluon, "no kernel has a Gluon counterpart"
    for idea, claims in CLAIMS.items():
        for c in claims:
            if idea in with_gluon:
                assert c.gluon is not None, f"{idea} / {c.decision}: no Gluon column (harness/catalog/gluon.py SIDES)"
                assert c.gluon.text.strip() and c.gluon.decided_by in (PROGRAMMER, COMPILER), (idea, c.decision)
            else:
                assert c.gluon is None, f"{idea} / {c.decision}: a Gluon column on an idea with no Gluon kernel"


def test_a_kernel_or_form_no_case_names_fails_with_a_reason():
    kernel = KERNELS[0]
    ev = Evidence(kernel, Numbers({"BAR": 0}), Numbers({"BAR": 0}), form="no-such-form")
    with pytest.raises(LookupError, match="no-such-form"):
        ByForm({Role.PLAIN: Check("x", lambda e: True, ("BAR",))}).pick(ev)
    with pytest.raises(LookupError, match="state one"):
        ByKernel({"no-such-kernel": Check("x", lambda e: True, ("BAR",))}).pick(ev)
    with pytest.raises(KeyError, match="no evidence named"):
        Numbers({"BAR": 1})["LDS.32"]


def test_a_form_is_checked_by_the_role_it_declares_and_a_role_no_case_names_fails():
    kernel = BY_ID["s000.gemm_block_tiling_v4<128,128,8,16,16>"]
    plain, rank1 = Check("plain", lambda e: True, ("BAR",)), Check("rank1", lambda e: True, ("BAR",))
    # the same forms under other names are checked the same way
    renamed = replace(kernel, counterparts=tuple(replace(c, name=f"renamed-{c.name}") for c in kernel.counterparts))
    for form in kernel.counterparts:
        ev = Evidence(renamed, Numbers(), Numbers(), form=f"renamed-{form.name}")
        assert ByForm({Role.PLAIN: plain, Role.RANK1: rank1}).pick(ev).text == form.role.value
    with pytest.raises(LookupError, match="role 'rank1'"):
        ByForm({Role.PLAIN: plain}).pick(Evidence(kernel, Numbers(), Numbers(), form="rank1"))


def test_a_side_that_did_not_compile_fails_its_checks_with_the_reason():
    kernel = BY_ID["s000.gemm_naive"]
    broken = KernelEvidence(kernel, Numbers(), {"naive": Numbers()}, errors={"cuda": "RuntimeError: nvcc failed"})
    verdicts = mapping.check_claim("naive", CLAIMS["naive"][0], broken)
    assert [v.holds for v in verdicts] == [False, False]
    assert all("not compiled: RuntimeError: nvcc failed" in v.error for v in verdicts)


def test_rows_without_proof_need_no_compiler():
    for idea in CLAIMS:
        rows = mapping.rows(idea, prove=False)
        assert [r.decision for r in rows] == [c.decision for c in CLAIMS[idea]]
        assert all(not r.verdicts for r in rows)
    with pytest.raises(KeyError, match="no mapping claims"):
        mapping.rows("no-such-idea", prove=False)


@needs_nvrtc
def test_rows_and_evaluate_give_every_kernels_verdicts_and_numbers(evidence):
    rows = mapping.rows("gemv_vector", evidence)
    kernels = [k for k in KERNELS if k.idea == "gemv_vector"]
    for row in rows:
        assert row.holds
        assert {v.kernel for v in row.verdicts} == {k.id for k in kernels}
        assert {v.side for v in row.verdicts} == {"cuda", "triton"}
        assert all(v.evidence and v.check for v in row.verdicts)
    reduction = next(r for r in rows if r.decision == "combining a row's partial sums")
    cuda = {v.kernel: v.evidence for v in reduction.verdicts if v.side == "cuda"}
    assert "BAR 1" in cuda["rosetta.sgemv_float4<256,1>"] and "shared_bytes 32" in cuda["rosetta.sgemv_float4<256,1>"]
    assert "BAR 0" in cuda["rosetta.sgemv_float4<128,4>"]
    verdicts = mapping.evaluate(BY_ID["s000.gemm_naive"], evidence["s000.gemm_naive"])
    assert len(verdicts) == 2 * len(CLAIMS["naive"]) and all(v.holds for v in verdicts)


@needs_nvrtc
def test_a_false_claim_fails(evidence):
    """The checks can fail: the naive kernels' evidence refutes the shared-memory tile's claims."""
    for kernel_id in ("s000.gemm_naive", "s004.naive_gemm<32>"):
        ke = evidence[kernel_id]
        borrowed = KernelEvidence(BY_ID["s004.block_tiling_gemm<32>"], ke.cuda,
                                  {"dot": next(iter(ke.triton.values()))})
        verdicts = [v for c in CLAIMS["smem_tile"] for v in mapping.check_claim("smem_tile", c, borrowed)]
        assert sum(not v.holds for v in verdicts) >= 4


@pytest.mark.gpu
@needs_nvrtc
@pytest.mark.parametrize("kernel_id", [k.id for k in KERNELS if k.idea in CLAIMS])
def test_claims_hold_on_the_gpus_kernels(kernel_id):
    from harness.inspect.evidence import on_gpu

    kernel = BY_ID[kernel_id]
    verdicts = mapping.evaluate(kernel, on_gpu(kernel))
    assert verdicts
    _hold_or_changed(f"{kernel_id} on the GPU", verdicts)


@needs_nvrtc
def test_the_tf32_conversion_claim_fails_when_the_registry_states_another_rounding(evidence):
    """The row is proven on the code, not copied from the registry: TF32 evidence (no cvt in Triton's PTX, cvt.rn in
    the CUDA source) refutes a registry that says rounding-with-ties-away or truncation."""
    from harness.catalog.tensor_cores import TF32_CONVERSION

    tf32 = next(k for k in KERNELS if k.precision == "tf32")
    x3 = next(k for k in KERNELS if k.precision == "3xtf32" and k.b_layout == tf32.b_layout)
    held = mapping.check_claim("tensor_core", TF32_CONVERSION, evidence[tf32.id])
    assert held and all(v.holds for v in held)
    borrowed = KernelEvidence(x3, evidence[tf32.id].cuda, evidence[tf32.id].triton)
    triton_side = [v for v in mapping.check_claim("tensor_core", TF32_CONVERSION, borrowed) if v.side == "triton"]
    assert triton_side and not any(v.holds for v in triton_side), "3xTF32 (cvt.rna) read off a truncating kernel"
    for wrong in ("rna", "truncate", "truncate_rna"):
        stated = KernelEvidence(replace(tf32, tf32_conversion=wrong), evidence[tf32.id].cuda, {})
        assert not any(v.holds for v in mapping.check_claim("tensor_core", TF32_CONVERSION, stated))


# class -> (dots, bf16 dots, truncf to bf16, cvt.rna.tf32, subf), both operands together, as each tested Triton
# compiles the 3xTF32 kernels' forms: 3.6 and 3.9 alike; 3.8 makes A's parts but the last a second time
SPLIT_COUNTS = {"3.6": {"3xtf32": (3, 0, 0, 2, 2), "bf16x3": (3, 3, 4, 0, 2), "bf16x6": (6, 6, 6, 0, 4)},
                "3.8": {"3xtf32": (3, 0, 0, 3, 2), "bf16x3": (3, 3, 5, 0, 2), "bf16x6": (6, 6, 8, 0, 5)}}
SPLIT_COUNTS["3.9"] = SPLIT_COUNTS["3.6"]


@needs_nvrtc
def test_the_operand_split_claim_counts_each_forms_split_in_the_ttgir(evidence):
    """The counted facts the claim states, on the compiled forms of the 3xTF32 kernels: tf32x3 two parts (one
    cvt.rna each), bf16x3 two bf16 parts and three bf16 dots, bf16x6 three parts and six (Triton 3.8: A's parts but
    the last made twice); a form's numbers under another split's name refute it."""
    from harness.catalog.tensor_cores import OPERAND_SPLIT

    triton = installed()["triton"]
    counted = next((c for prefix, c in SPLIT_COUNTS.items() if version_in(triton, prefix)), None)
    assert set(SPLIT_COUNTS) == set(compilers.tested()["triton"]), "a tested Triton whose counts are not pinned here"
    facts = ("ttgir.warp_group_dot", "ttgir.dot_bf16", "ttgir.to_bf16", "ttgir.to_tf32_rna", "ttgir.split_sub")
    carriers = [k for k in KERNELS if any(c.precision for c in k.counterparts)]
    assert carriers
    for kernel in carriers:
        ke = evidence[kernel.id]
        # on a Triton the suite is not tested on, the claim's own test reports what changed
        assert counted is not None or not is_tested("triton", triton)
        for c in kernel.counterparts if counted is not None else ():
            seen = ke.triton[c.name]
            assert tuple(seen[f] for f in facts) == counted[c.precision_of(kernel)], (kernel.id, c.name)
            assert seen["ttgir.nan_guard"] == 1
        verdicts = mapping.check_claim(kernel.idea, OPERAND_SPLIT, ke)
        assert counted is None or (verdicts and all(v.holds for v in verdicts)), _failures(verdicts)
        bf16x3 = next(c.name for c in kernel.counterparts if c.precision == "bf16x3")
        bf16x6 = next(c.name for c in kernel.counterparts if c.precision == "bf16x6")
        swapped = KernelEvidence(kernel, ke.cuda, {bf16x6: Numbers({**ke.triton[bf16x3], "cfg.mma_passes": 6,
                                                                    "cfg.split_parts": 3})})
        refuted = [v for v in mapping.check_claim(kernel.idea, OPERAND_SPLIT, swapped) if v.side == "triton"]
        assert refuted and not any(v.holds for v in refuted), "bf16x3's code passed for bf16x6"


# ------------------------------------------------------------------------------------------------ compiler versions
def test_a_claim_side_states_what_each_compiler_version_makes_where_it_differs():
    kernel = KERNELS[0]
    three = Check("three conversions", lambda e: e.triton["cvt"] == 3, ("cvt",))
    two = Check("two conversions", lambda e: e.triton["cvt"] == 2, ("cvt",))
    side = ByCompiler("triton", {"3.8": three}, otherwise=two)

    def on(version: str) -> Evidence:
        return Evidence(kernel, Numbers(), Numbers({"cvt": 3}), form="dot", compilers={"triton": version})

    assert side.pick(on("3.8.0")) is three and side.pick(on("3.8.1+git")).holds(on("3.8.1+git"))
    # the statement for 3.8 does not speak for another version: there the general one is held to the code
    for version in ("3.9.0", "3.80.0", "3", ""):
        assert side.pick(on(version)) is two and not two.holds(on(version)), version
    assert version_in("13.5", "13") and not version_in("13.5", "13.50") and not version_in("", "3")


def test_a_false_check_is_a_changed_mapping_only_on_a_version_the_suite_is_not_tested_on():
    newest = max(compilers.tested()["triton"], key=lambda v: tuple(int(p) for p in v.split(".")))
    untested = f"{newest.split('.')[0]}.{int(newest.split('.')[1]) + 1}.0"
    assert not is_tested("triton", untested) and is_tested("triton", f"{newest}.0")

    def verdict(version: str, holds: bool = False) -> mapping.Verdict:
        return mapping.Verdict("tensor_core", "operand split", "rosetta.k", "triton", "dot", "the split", holds,
                               "ttgir.to_tf32_rna 3", compiler="triton", compiler_version=version)

    found = [verdict(untested), verdict(f"{newest}.0"), verdict(""), verdict(untested, True)]
    changed, false = changed_and_false(found)
    assert [v.compiler_version for v in changed] == [untested]
    assert [v.compiler_version for v in false] == [f"{newest}.0", ""]  # a record that names no compiler must hold
    said = changed[0].changed
    assert f"Triton {untested}" in said and "ttgir.to_tf32_rna 3" in said and "rosetta.k [dot]" in said


@needs_nvrtc
def test_every_proof_records_the_compiler_version_it_was_made_on(evidence):
    kernel = next(k for k in KERNELS if k.precision == "3xtf32")
    verdicts = mapping.evaluate(kernel, evidence[kernel.id])
    here = installed()
    assert {(v.compiler, v.compiler_version) for v in verdicts if v.side == "cuda"} == {("nvrtc", here["nvrtc"])}
    assert {(v.compiler, v.compiler_version) for v in verdicts if v.side == "triton"} == {("triton", here["triton"])}
    back = mapping.Row.from_json("x", mapping.Row("d", "c", "t", COMPILER, tuple(verdicts)).to_json())
    assert back.verdicts == tuple(replace(v, idea="x", decision="d") for v in verdicts)


def test_ci_proves_the_claims_on_every_tested_triton():
    """.ci/run runs the claims' tests on every tested Triton but the one bootstrap.py installs, read from pyproject
    through this module (so a version added there is tested there)."""
    from pathlib import Path

    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text(encoding="utf-8")
    assert "from harness.claims.compilers import tested" in ci and 'tested()["triton"]' in ci
    assert '"triton==$version.*"' in ci and "nvrtc_version()" in ci
    assert "tests/test_mapping_claims.py" in ci and "tests/test_tiny_launches.py" in ci
