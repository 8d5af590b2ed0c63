"""Paths as a user gives them: every path argument of every verb, given what it cannot take, ends in one line and exit
code 2 with nothing written; a run never writes into a file it has not checked; a cut-off or foreign file is said for
what it is. In-process through harness.cli.main, no GPU, tiny inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import cli
from harness.records.file import ResultsWriter, load
from harness.records.lines import RunEnd
from tests.recorded import recorded_gpu_run

ROOT = Path(__file__).resolve().parents[1]
ONE = "s002.tiled_matmul<2>"  # the smallest kernel: a run that got past the checks would still be short

# What a bad path is, per kind of argument: a file where a folder is needed, a folder where a file is, a place that
# cannot be written (a folder under a device file), a folder whose parent does not exist, and (for a file to write or
# read) a file that exists and is not what the verb takes.
FOR_FOLDER = ("a file", "unwritable", "missing parent")
FOR_NEW_FILE = ("a folder", "unwritable", "missing parent", "a file")
FOR_INPUT = ("a folder", "unwritable", "missing parent", "a file")

# (verb and argument, the command with X for the bad path and R for a good results file, what X is tried as)
CASES = [
    ("report --out", ["report", "R", "--out", "X"], FOR_FOLDER),
    ("run --out", ["run", "--only", ONE, "--out", "X"], FOR_FOLDER),
    ("profile --out", ["profile", "--out", "X"], FOR_FOLDER),
    ("sanitize --out", ["sanitize", "--out", "X"], FOR_FOLDER),
    ("compare --html", ["compare", "R", "R", "--html", "X"], FOR_NEW_FILE),
    ("merge --out", ["merge", "R", "--out", "X"], FOR_NEW_FILE),
    ("run --results", ["run", "--only", ONE, "--results", "X"], FOR_NEW_FILE),
    ("report results", ["report", "X", "--out", "fresh"], FOR_INPUT),
    ("analyse results", ["analyse", "X"], FOR_INPUT),
    ("compare a", ["compare", "X", "R", "--html", "page.html"], FOR_INPUT),
    ("compare b", ["compare", "R", "X", "--html", "page.html"], FOR_INPUT),
    ("merge files", ["merge", "R", "X", "--out", "merged.jsonl"], FOR_INPUT),
    ("claims results", ["claims", "X"], FOR_INPUT),
    ("knobs results", ["knobs", "X"], FOR_INPUT),
    ("run --resume", ["run", "--only", ONE, "--resume", "X"], FOR_INPUT),
    ("profile --results", ["profile", "--results", "X"], FOR_INPUT),
    ("export results", ["export", "X", "--csv", "rows.csv"], FOR_INPUT),
    ("export --csv", ["export", "R", "--csv", "X"], FOR_NEW_FILE),
    ("export --samples", ["export", "R", "--samples", "X"], FOR_NEW_FILE),
    ("clock results", ["clock", "X"], FOR_INPUT),
    ("clock --out", ["clock", "--measure", "--out", "X"], FOR_FOLDER),
    ("run --pair", ["run", "--pair", "X"], FOR_INPUT),
    ("gluon results", ["gluon", "X"], FOR_INPUT),
    ("gluon --profile", ["gluon", "R", "--profile", "X"], FOR_INPUT),
    ("ablate results", ["ablate", "X"], FOR_INPUT),
    ("ablate --out", ["ablate", "R", "--out", "X"], FOR_NEW_FILE),
]


def small_results(folder: Path) -> Path:
    """A whole results file of a few records: the header and the first records of the committed GPU run, and an end."""
    src = recorded_gpu_run()
    if src is None:
        pytest.skip("no recorded GPU run under results/")
    lines = src.read_text(encoding="utf-8").splitlines()[:7]
    end = RunEnd("2026-01-01T00:00:00+00:00", 0, len(lines) - 1).to_json()
    path = folder / "small.jsonl"
    path.write_text("\n".join([*lines, json.dumps(end)]) + "\n", encoding="utf-8")
    return path


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


def bad_path(kind: str, tmp_path: Path) -> str:
    if kind == "a file":
        target = tmp_path / "README.md"
        target.write_bytes((ROOT / "README.md").read_bytes())
        return str(target)
    if kind == "a folder":
        (tmp_path / "folder").mkdir(exist_ok=True)
        (tmp_path / "folder" / "kept.txt").write_text("kept\n")
        return str(tmp_path / "folder")
    if kind == "unwritable":
        return "/dev/null/x"
    return str(tmp_path / "no" / "such" / "x")


def one_line_and_nothing_written(argv: list[str], tmp_path: Path, capsys) -> str:
    before = snapshot(tmp_path)
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (argv, out, err)
    assert len(err.splitlines()) == 1 and err.startswith(f"rosetta {argv[0]}: error: "), err
    assert "Traceback" not in err and not out, (out, err)
    assert snapshot(tmp_path) == before, "a file was written or changed"
    return err


@pytest.mark.parametrize("name, argv, kind", [(n, a, k) for n, a, kinds in CASES for k in kinds],
                         ids=[f"{n}: {k}" for n, _, kinds in CASES for k in kinds])
def test_every_path_argument_given_what_it_cannot_take_says_one_line_and_writes_nothing(
        name, argv, kind, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)  # where the verbs' default folders would be made
    results = str(small_results(tmp_path))
    bad = bad_path(kind, tmp_path)
    err = one_line_and_nothing_written([{"X": bad, "R": results}.get(a, a) for a in argv], tmp_path, capsys)
    assert bad in err or (kind == "a file" and "README.md" in err), err


def test_every_path_argument_of_every_verb_is_among_the_cases() -> None:
    """An argument whose help names a file or a folder is a path; each has its case above (a new verb's too)."""
    covered = {name for name, _, _ in CASES}
    parser = cli.build_parser()
    verbs = next(a for a in parser._actions if a.dest == "command").choices
    paths = set()
    for verb, sub in verbs.items():
        for action in sub._actions:
            words = (action.help or "").lower()
            # a choice among fixed words (--regime) is no path, whatever its help says of the files it leads to
            if action.metavar != "ID" and ("file" in words or "folder" in words) and not action.const \
                    and not action.choices:
                paths.add(f"{verb} {action.option_strings[0] if action.option_strings else action.dest}")
    assert paths - covered == set(), "path arguments without a case"


README_CASES = {
    "README.md as --results": lambda r, readme, tmp: ["--results", str(readme)],
    "a copy of a results file as --results": lambda r, readme, tmp: ["--results", str(r)],
    "--out pointing at a file": lambda r, readme, tmp: ["--out", str(readme)],
    "README.md as --resume": lambda r, readme, tmp: ["--resume", str(readme)],
    "another run's file as --resume": lambda r, readme, tmp: ["--resume", str(r)],
}


@pytest.mark.parametrize("case", list(README_CASES))
def test_a_run_never_writes_into_a_file_it_has_not_validated(case, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    results = small_results(tmp_path)
    readme = Path(bad_path("a file", tmp_path))
    copy, page = results.read_bytes(), readme.read_bytes()
    err = one_line_and_nothing_written(["run", "--only", ONE, *README_CASES[case](results, readme, tmp_path)],
                                       tmp_path, capsys)
    assert results.read_bytes() == copy and readme.read_bytes() == page  # byte for byte
    if case == "another run's file as --resume":
        assert f"--only {ONE}: the run in {results} was started without --only" in err, err


def _session(path: Path, argv: list[str], **kw):
    from harness.problems import CPU_SGEMV
    from harness.registry import select
    from harness.run.session import RunSession

    return RunSession(select(["s003"], "sgemv"), [CPU_SGEMV], path, argv, **kw)


def _header_of(session):
    """The header the session would write, without starting a worker."""
    from harness.records.lines import RunHeader

    return RunHeader("2026-01-01T00:00:00+00:00", "gpu" if session.gpu else "cpu", "the device", session.versions(),
                     session.argv, session.seed, session.planned_problems(session.plan()), session.rep_ms,
                     shard=f"{session.shard[0]}/{session.shard[1]}" if session.shard else None, rounds=session.rounds,
                     aa=session.aa)


def test_resume_continues_only_the_run_that_wrote_the_file(tmp_path) -> None:
    argv = ["run", "--only", "s003", "--op", "sgemv"]
    mine = _header_of(_session(tmp_path / "r.jsonl", argv))
    assert _session(tmp_path / "r.jsonl", ["run", "--op", "sgemv", "--only", "s003"]).differences(mine) == []
    for other, named in [(_session(tmp_path / "r.jsonl", ["run", "--only", "s00"]), "kernels chosen"),
                         (_session(tmp_path / "r.jsonl", argv, seed=1), "seed"),
                         (_session(tmp_path / "r.jsonl", argv, shard=(0, 2)), "shard")]:
        assert any(d.startswith(named) for d in other.differences(mine)), named
    assert _session(tmp_path / "r.jsonl", argv).differences(mine, device="another device")[0].startswith("device")
    mine.versions = {**mine.versions, "triton": "0.0"}
    assert any(d.startswith("versions: triton 0.0 there") for d in _session(tmp_path / "r.jsonl", argv)
               .differences(mine))
    mine.problems = mine.problems[:-1]
    assert any(d.startswith("problems:") for d in _session(tmp_path / "r.jsonl", argv).differences(mine))


def test_a_new_results_file_holds_its_whole_header_from_the_start_and_nothing_else_is_left(tmp_path) -> None:
    header = _header_of(_session(tmp_path / "r.jsonl", ["run"]))
    with ResultsWriter.new(tmp_path / "r.jsonl", header):
        assert load(tmp_path / "r.jsonl").header == header
    assert [p.name for p in tmp_path.iterdir()] == ["r.jsonl"]


def test_resume_drops_a_line_cut_off_mid_write_so_that_the_file_stays_readable(tmp_path) -> None:
    path = small_results(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:4]) + lines[4][:50], encoding="utf-8")  # killed while writing line 5
    assert "line 5 cut off mid-write, left out" in load(path).notes[0]
    with ResultsWriter.continuing(path) as out:
        out.write(load(tmp_path / "small.jsonl").results[0])
    again = load(path)
    assert len(again.results) == 4 and not any("cut off" in n for n in again.notes)


@pytest.mark.parametrize("verb", ["report", "analyse", "compare", "merge"])
def test_a_results_file_cut_off_mid_write_is_said_in_the_terminal(verb, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    path = small_results(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:5]) + lines[5][:40], encoding="utf-8")
    argv = {"report": ["report", str(path), "--out", "page"], "analyse": ["analyse", str(path)],
            "compare": ["compare", str(path), str(path), "--html", "c.html"],
            "merge": ["merge", str(path), "--out", "merged.jsonl"]}[verb]
    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    assert f"rosetta {verb}: {path}: line 6 cut off mid-write, left out" in err, err


def _committed(pattern: str) -> Path:
    found = sorted((ROOT / "results").glob(pattern))
    if not found:
        pytest.skip(f"no committed {pattern}")
    return found[-1]


@pytest.mark.parametrize("pattern, said", [
    ("profile-*.json", "is an ncu profile (`rosetta profile` writes it), not a results file"),
    ("*.analysis.json", "is an analysis record (`rosetta analyse` writes it"),
    ("*.knobs.json", "is a knob study (`rosetta knobs` writes it"),
    ("pytest-benchmark-*.json", "is a pytest-benchmark file"),
    ("sanitize-*.json", "is a compute-sanitizer summary"),
    ("compare-*.html", "is an HTML page, not a results file"),
])
def test_a_file_that_is_not_a_results_file_is_named_for_what_it_is(pattern, said, capsys) -> None:
    path = _committed(pattern)
    assert cli.main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.splitlines()) == 1, err
    if pattern.endswith(("analysis.json", "knobs.json")):
        assert f"give {json.loads(path.read_text())['source']} itself" in err


def test_other_json_is_named_by_its_keys(tmp_path, capsys) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"alpha": 1, "beta": 2}, indent=1))
    assert cli.main(["report", str(path)]) == 2
    assert "is JSON with the keys alpha, beta, not a results file" in capsys.readouterr().err


# A verb given one file twice: as both of its outputs, or as what it reads and what it writes.
ONE_FILE_TWICE = {
    "export --csv F --samples F": lambda r: ["export", str(r), "--csv", "same.csv", "--samples", "same.csv"],
    "export --csv F --samples ./F": lambda r: ["export", str(r), "--csv", "same.csv", "--samples", "./same.csv"],
    "report F.md --out F's folder": lambda r: ["report", str(r.rename(r.with_suffix(".md"))), "--out",
                                               str(r.parent)],
}


@pytest.mark.parametrize("case", list(ONE_FILE_TWICE))
def test_one_file_given_twice_to_one_verb_is_refused_before_anything_is_written(case, tmp_path, monkeypatch,
                                                                                capsys) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ONE_FILE_TWICE[case](small_results(tmp_path))
    err = one_line_and_nothing_written(argv, tmp_path, capsys)
    assert "are one file" in err, err
