"""`rosetta --help` and every verb's --help render (a '%' in a help text once crashed argparse)."""

from __future__ import annotations

import argparse

import pytest

from harness.cli import build_parser, main
from harness.cli.options import GPU_ONLY


def _verbs(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(subs) == 1
    return dict(subs[0].choices)


VERBS = sorted(_verbs(build_parser()))


@pytest.mark.trust
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_top_level_help_renders_and_exits_0(flag, capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main([flag])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert all(verb in out for verb in VERBS)


@pytest.mark.parametrize("verb", VERBS)
def test_every_verbs_help_renders_and_exits_0(verb, capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main([verb, "--help"])
    assert done.value.code == 0
    assert f"rosetta {verb}" in capsys.readouterr().out


def test_every_subparser_formats_its_help_without_error() -> None:
    # Iterates the parser itself, so a verb added later is covered without a list to update.
    for verb, sub in _verbs(build_parser()).items():
        assert sub.format_help(), verb


def test_run_help_marks_exactly_the_gpu_only_options() -> None:
    run = _verbs(build_parser())["run"]
    marked = {a.dest for a in run._actions if a.help and "GPU only" in a.help}
    assert marked == set(GPU_ONLY)


@pytest.mark.parametrize("verb", VERBS)
def test_every_option_and_argument_of_a_verb_says_what_it_is_for(verb) -> None:
    parser = _verbs(build_parser())[verb]
    silent = [a.dest for a in parser._actions if not isinstance(a, argparse._HelpAction) and not a.help]
    assert not silent, f"rosetta {verb}: no help text for {silent}"


def test_the_cli_is_small_modules_behind_the_one_entry_point() -> None:
    from pathlib import Path

    import tomllib

    root = Path(__file__).resolve().parents[1]
    entry = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]["rosetta"]
    assert entry == "harness.cli:main"
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in (root / "harness" / "cli").glob("*.py")}
    assert sizes and max(sizes.values()) <= 350, sizes
