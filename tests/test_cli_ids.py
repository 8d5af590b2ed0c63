"""Kernel ids as a user types them: any part that one id holds names that kernel, for `explain`, `profile`, `knobs`
and every --only alike (harness/cli/ids.py); a part several ids hold is refused with the list of them."""

from __future__ import annotations

import pytest

from harness import cli
from harness.cli.ids import choose, resolve
from harness.cli.options import UserError
from harness.registry import KERNELS


@pytest.mark.parametrize("part, kernel", [
    ("s000.gemm_block_tiling_v4", "s000.gemm_block_tiling_v4<128,128,8,16,16>"),
    ("gemm_naive", "s000.gemm_naive"),
    ("S003.NAIVE", "s003.naive_sgemv"),
    ("rosetta.tc_gemm<tf32,128,…,row>", "rosetta.tc_gemm<tf32,128,128,32,2,4,3,row>"),  # as a table shortens it
    ("tc_gemm<3xtf32...kmajor>", "rosetta.tc_gemm<3xtf32,128,128,32,2,4,3,kmajor>"),
])
def test_any_part_that_one_id_holds_names_that_kernel(part, kernel) -> None:
    assert resolve(part).id == kernel


def test_every_whole_id_names_its_own_kernel() -> None:
    assert all(resolve(k.id) is k for k in KERNELS)


def test_a_part_several_ids_hold_is_refused_with_the_list_of_them(capsys) -> None:
    assert cli.main(["explain", "naive"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert "'naive' is part of 4 kernel ids: s000.gemm_naive, s001.v1_naive, s003.naive_sgemv, s004.naive_gemm<32>" \
        in err


def test_explain_takes_a_unique_part(capsys) -> None:
    assert cli.main(["explain", "s000.gemm_block_tiling_v4"]) == 0
    assert capsys.readouterr().out.startswith("s000.gemm_block_tiling_v4<128,128,8,16,16>")


def test_only_takes_every_kernel_each_part_names_and_refuses_a_part_that_names_none() -> None:
    assert [k.id for k in choose(["s002"])] == ["s002.tiled_matmul<2>", "s002.tiled_matmul<16>"]
    assert [k.id for k in choose(["s002.tiled_matmul<2>"])] == ["s002.tiled_matmul<2>"]
    assert {k.op for k in choose(["naive"], "sgemv")} == {"sgemv"}
    with pytest.raises(UserError, match="no sgemv kernel id holds 'gemm_naive'"):
        choose(["s003", "gemm_naive"], "sgemv")  # a part that names nothing is never dropped silently


@pytest.mark.parametrize("argv", [["run", "--only", "nosuch"], ["profile", "--only", "nosuch"],
                                  ["sanitize", "--only", "nosuch"], ["referee", "--only", "nosuch"],
                                  ["knobs", "results/x.jsonl", "--only", "nosuch"], ["explain", "nosuch"]],
                         ids=lambda a: a[0])
def test_every_verb_that_takes_ids_reads_them_through_the_one_resolver(argv, capsys) -> None:
    assert cli.main(argv) == 2  # the resolver's words, before a GPU or a file is looked for
    err = capsys.readouterr().err
    assert "kernel id holds 'nosuch'" in err and len(err.splitlines()) == 1, err
