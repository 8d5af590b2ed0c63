"""bootstrap.py, the README's two commands: what it reads off the machine and what it then runs.

The setup itself (pip, a venv) is exercised by CI, which runs the README's test command from a fresh clone.
"""

from __future__ import annotations

import importlib.util
import re
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_bootstrap():
    spec = importlib.util.spec_from_file_location("bootstrap", ROOT / "bootstrap.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bootstrap = _load_bootstrap()

# nvidia-smi's banner as an H100 with a CUDA 13.0 driver prints it.
BANNER = """Tue Nov 24 13:39:38 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
"""


def test_the_driver_cuda_major_is_read_from_the_nvidia_smi_banner():
    assert bootstrap.cuda_major_of(BANNER) == 13
    assert bootstrap.cuda_major_of(BANNER.replace("13.0", "12.8")) == 12


def test_a_banner_without_a_cuda_version_means_no_usable_gpu():
    assert bootstrap.cuda_major_of("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.") \
        is None


def test_the_flavour_follows_the_driver_and_a_newer_driver_keeps_cuda13():
    assert bootstrap.flavour_for(None) == "cpu"
    assert bootstrap.flavour_for(12) == "cuda12"
    assert bootstrap.flavour_for(13) == "cuda13"
    assert bootstrap.flavour_for(14) == "cuda13"


def test_a_driver_older_than_cuda_12_is_refused_with_the_reason():
    with pytest.raises(SystemExit, match="CUDA 11"):
        bootstrap.flavour_for(11)


def test_every_gpu_flavour_is_an_extra_of_pyproject():
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for major in (12, 13):
        flavour = bootstrap.flavour_for(major)
        assert flavour in extras
        assert any(req.startswith("cupy-") for req in extras[flavour]), flavour


def test_the_stamp_changes_with_pyproject_the_flavour_and_the_reused_python():
    key = bootstrap.stamp_key(b"deps = 1", "cpu", None)
    assert key == bootstrap.stamp_key(b"deps = 1", "cpu", None)
    assert key != bootstrap.stamp_key(b"deps = 2", "cpu", None)
    assert key != bootstrap.stamp_key(b"deps = 1", "cuda13", None)
    assert key != bootstrap.stamp_key(b"deps = 1", "cpu", "/opt/torch/.venv")


def test_the_lowest_python_is_read_from_pyproject():
    text = (ROOT / "pyproject.toml").read_text()
    declared = re.search(r'requires-python = ">=(\d+)\.(\d+)"', text)
    assert declared is not None
    assert bootstrap.min_python(text) == (int(declared.group(1)), int(declared.group(2)))
    with pytest.raises(SystemExit):
        bootstrap.min_python("[project]\nname = 'x'\n")


def test_test_runs_pytest_with_its_arguments_and_anything_else_runs_rosetta():
    python = Path("/x/.venv/bin/python")
    cmd, said = bootstrap.command(python, ["test", "-m", "gpu", "-n", "6"])
    assert cmd == [str(python), "-m", "pytest", "-m", "gpu", "-n", "6"]
    assert said == "pytest -m gpu -n 6"
    cmd, said = bootstrap.command(python, ["run", "--op", "sgemv", "--only", "s003"])
    assert cmd == ["/x/.venv/bin/rosetta", "run", "--op", "sgemv", "--only", "s003"]
    assert said == "rosetta run --op sgemv --only s003"


def test_an_index_that_does_not_answer_is_given_up_on_quickly():
    started = time.monotonic()
    assert not bootstrap.reachable("http://127.0.0.1:9/", timeout=2.0)  # the discard port: nothing listens
    assert time.monotonic() - started < 5.0


def test_without_a_command_it_prints_its_usage_and_fails(capsys):
    assert bootstrap.main([]) == 2
    assert "bootstrap.py test" in capsys.readouterr().out


def test_ci_runs_the_readmes_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    test_lines = [ln for ln in ci if ln.startswith("python3 bootstrap.py test")]
    assert test_lines == ["python3 bootstrap.py test"]
    assert re.search(r"^python3 bootstrap\.py test\s+#", readme, re.MULTILINE)


def test_the_readme_names_every_seed_document_by_its_registry_title_and_gpu():
    from harness.registry import SEEDS

    rows = {cells[0]: cells for ln in (ROOT / "README.md").read_text().splitlines()
            if re.match(r"^\| \d{3} \|", ln) for cells in [[c.strip() for c in ln.strip("|").split("|")]]}
    assert sorted(rows) == sorted(SEEDS)
    for key, seed in SEEDS.items():
        assert rows[key][1].startswith(seed.title), (key, rows[key][1], seed.title)
        if seed.title_en != seed.title:
            assert seed.title_en in rows[key][1], key
        assert rows[key][3] == seed.gpu, key



def test_the_requirements_are_pyprojects_dependencies_and_the_extras_and_its_scripts_come_with_them():
    tomllib = pytest.importorskip("tomllib")
    text = (ROOT / "pyproject.toml").read_text()
    project = tomllib.loads(text)["project"]
    plain, scripts = bootstrap.requirements_of(text, [])
    assert plain == project["dependencies"]
    assert scripts == project["scripts"]
    with_extra, _ = bootstrap.requirements_of(text, ["cuda13", "test"])
    extras = project["optional-dependencies"]
    assert with_extra == [*project["dependencies"], *extras["cuda13"], *extras["test"]]


def test_an_installed_package_satisfies_its_requirement_and_a_missing_or_old_one_is_named():
    assert bootstrap.unmet(["pytest>=1"]) == []
    missing = bootstrap.unmet(["pytest>=999", "no-such-package-tile-rosetta>=1"])
    assert missing is not None and len(missing) == 2
    assert missing[0].startswith("pytest ") and "(needs >=999)" in missing[0]
    assert missing[1] == "no-such-package-tile-rosetta absent"


def test_the_cuda_of_a_torch_build_is_read_from_its_version_file_and_a_cpu_build_has_none():
    cuda_build = "__version__ = '2.11.0+cu130'\ndebug = False\ncuda: Optional[str] = '13.0'\ngit_version = 'x'\n"
    cpu_build = "__version__ = '2.13.0+cpu'\ndebug = False\ncuda: Optional[str] = None\n"
    assert bootstrap.torch_cuda_of(cuda_build) == "13.0"
    assert bootstrap.torch_cuda_of(cpu_build) is None


def test_a_linked_console_script_runs_its_command_as_main_only_and_not_again_in_a_spawned_process():
    text = bootstrap.console_script(Path("/x/.venv/bin/python"), "json:dumps")
    assert text.startswith("#!/x/.venv/bin/python\n")
    exec(compile(text, "rosetta", "exec"), {"__name__": "__mp_main__"})   # what a spawned child runs: nothing
    with pytest.raises(TypeError):   # as the command: json.dumps() is called (and wants an argument)
        exec(compile(text, "rosetta", "exec"), {"__name__": "__main__"})


def test_run_from_inside_its_own_venv_it_runs_again_with_the_python_that_made_it_and_sets_nothing_up(
        tmp_path, monkeypatch):
    # `. .venv/bin/activate; python3 bootstrap.py report ...`: .venv's Python would take .venv's own packages for a
    # parent Python's, set up again and empty setup.log
    (tmp_path / "pyvenv.cfg").write_text("home = /opt/py/bin\nversion = 3.12.4\nexecutable = /opt/py/bin/python3.12\n")
    monkeypatch.setattr(bootstrap, "VENV", tmp_path)
    monkeypatch.setattr(bootstrap.sys, "prefix", str(tmp_path))
    monkeypatch.setattr(bootstrap, "setup", lambda: pytest.fail("set up again from inside .venv"))
    ran = []

    def execv(path, args):
        ran.append((path, args))
        raise SystemExit(0)

    monkeypatch.setattr(bootstrap.os, "execv", execv)
    with pytest.raises(SystemExit):
        bootstrap.main(["report", "results/x.jsonl"])
    assert ran == [("/opt/py/bin/python3.12", ["/opt/py/bin/python3.12", str(ROOT / "bootstrap.py"), "report",
                                               "results/x.jsonl"])]
    (tmp_path / "pyvenv.cfg").write_text("home = /opt/py/bin\nversion = 3.10.14\n")  # 3.10 writes no executable
    assert bootstrap.outside_python() == "/opt/py/bin/python3.10"
    monkeypatch.setattr(bootstrap.sys, "prefix", "/usr")
    assert bootstrap.outside_python() is None


@pytest.mark.parametrize("flavour, project", [("cpu", ".[test]"), ("cuda13", ".[cuda13,test]")])
def test_the_setup_installs_what_the_tests_need_with_the_machines_own(flavour, project, tmp_path, monkeypatch):
    # the test command runs docs/export.md's pandas: CI, which runs it from a fresh clone, must have pandas
    tomllib = pytest.importorskip("tomllib")
    text = (ROOT / "pyproject.toml").read_text()
    assert any(r.startswith("pandas") for r in tomllib.loads(text)["project"]["optional-dependencies"]["test"])
    installed = []
    monkeypatch.setattr(bootstrap, "ROOT", tmp_path)
    monkeypatch.setattr(bootstrap, "LOG", tmp_path / "setup.log")
    monkeypatch.setattr(bootstrap, "reachable", lambda url: False)
    monkeypatch.setattr(bootstrap, "pip", lambda args, log: installed.append(args) or True)
    bootstrap.install(flavour, None, text)
    assert installed and installed[0][-2:] == ["-e", project]
