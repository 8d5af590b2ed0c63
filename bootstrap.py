#!/usr/bin/env python3
"""Set tile-rosetta up in ./.venv, then run it: the two commands of the README.

    python3 bootstrap.py test [pytest arguments]      set up, then pytest
    python3 bootstrap.py run [rosetta run arguments]  set up, then `rosetta run`
    python3 bootstrap.py COMMAND [arguments]          set up, then `rosetta COMMAND` (list, report, explain, ...)
    python3 bootstrap.py setup                        set up only

Setting up is done once, and again only when pyproject.toml changes (a stamp in .venv holds its hash).
What it installs depends on the machine, which is why this is a script and not a lock file:
- no GPU (no working nvidia-smi): the CPU build of torch, pinned, and the project without CuPy;
- a GPU: CuPy and NVRTC wheels of the driver's CUDA major (the `cuda12` or `cuda13` extra);
- a Python that already has torch (a GPU image, often without network): .venv sees that Python's
  packages, and only what is missing is installed; with everything present, .venv only links this checkout
  (no pip, nothing downloaded).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".rosetta-setup"
LOG = VENV / "setup.log"
LINK = "rosetta-parent-site.pth"  # in .venv's site-packages: puts the parent Python's packages on sys.path

# The CPU wheel on a machine without a GPU: PyPI's Linux torch is a CUDA build with several GB of CUDA libraries.
CPU_TORCH = "torch==2.13.0"
CPU_TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
PROBE_TIMEOUT_S = 3.0  # an unreachable index costs this much at most, once per setup


def min_python(pyproject: str) -> tuple[int, int]:
    """The lowest Python the project takes, from pyproject's `requires-python = ">=3.X"`."""
    match = re.search(r'^requires-python\s*=\s*">=\s*(\d+)\.(\d+)', pyproject, re.MULTILINE)
    if match is None:
        raise SystemExit('pyproject.toml has no requires-python = ">=X.Y"')
    return int(match.group(1)), int(match.group(2))


def step(message: str) -> None:
    print(f"[bootstrap] {message}", flush=True)


def cuda_major_of(nvidia_smi_output: str) -> int | None:
    """The driver's CUDA major from nvidia-smi's banner ("CUDA Version: 13.0"), None if it names none."""
    match = re.search(r"CUDA Version:\s*(\d+)\.\d+", nvidia_smi_output)
    return int(match.group(1)) if match else None


def driver_cuda() -> tuple[int | None, str]:
    """(CUDA major of the driver or None without a usable GPU, what was found, in words)."""
    if shutil.which("nvidia-smi") is None:
        return None, "no GPU (nvidia-smi not found)"
    try:
        proc = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"no usable GPU (nvidia-smi: {exc})"
    major = cuda_major_of(proc.stdout)
    if proc.returncode != 0 or major is None:
        first = (proc.stdout + proc.stderr).strip().splitlines()[:1]
        return None, f"no usable GPU (nvidia-smi: {first[0] if first else f'exit {proc.returncode}'})"
    version = re.search(r"CUDA Version:\s*([\d.]+)", proc.stdout)
    return major, f"GPU, driver CUDA {version.group(1) if version else major}"


def flavour_for(cuda_major: int | None) -> str:
    """'cpu', or the extra whose CuPy and NVRTC wheels match the driver (a newer driver runs older CUDA)."""
    if cuda_major is None:
        return "cpu"
    if cuda_major < 12:
        raise SystemExit(f"the driver supports CUDA {cuda_major}; tile-rosetta needs CUDA 12 or 13: update the driver")
    return "cuda12" if cuda_major == 12 else "cuda13"


def stamp_key(pyproject: bytes, flavour: str, parent: str | None) -> str:
    """What a finished setup was made from: a different key means setting up again."""
    return f"{hashlib.sha256(pyproject).hexdigest()} {flavour} {parent or '-'}\n"


def parent_with_torch() -> str | None:
    """This Python's prefix when it already has torch (a prepared image): .venv then reuses its packages."""
    return sys.prefix if importlib.util.find_spec("torch") is not None else None


def reachable(url: str, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether a package index answers at all; any HTTP status counts, no answer in `timeout` does not."""
    try:
        urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout).close()
    except urllib.error.HTTPError:
        return True
    except (OSError, ValueError):
        return False
    return True


def venv_python() -> Path:
    return VENV / "bin" / "python"


def venv_site() -> Path:
    """.venv's site-packages, as its own Python names it."""
    return Path(subprocess.run([str(venv_python()), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())


def venv_version() -> str | None:
    """The Python version .venv was made with (pyvenv.cfg), e.g. '3.11'."""
    cfg = VENV / "pyvenv.cfg"
    if not cfg.is_file():
        return None
    match = re.search(r"^version(?:_info)?\s*=\s*(\d+\.\d+)", cfg.read_text(), re.MULTILINE)
    return match.group(1) if match else None


def pip(args: list[str], log: Path) -> bool:
    """`pip install` into .venv, its output appended to `log`; whether it succeeded."""
    cmd = [str(venv_python()), "-m", "pip", "install", "--disable-pip-version-check", "-q", *args]
    with log.open("a") as out:
        out.write(f"\n$ {' '.join(cmd)}\n")
        out.flush()
        return subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, check=False).returncode == 0


def make_venv(parent: str | None) -> None:
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    made = venv_version()
    if made is not None and made != here:
        raise SystemExit(f".venv was made with Python {made}, this is {here} ({sys.executable}): "
                         f"run bootstrap.py with that Python, or remove .venv and run again")
    if not venv_python().exists():
        if VENV.exists() and any(VENV.iterdir()):
            raise SystemExit(f"{VENV} exists but is not a virtual environment: remove it and run again")
        step(f"creating .venv with Python {sys.version.split()[0]} ({sys.executable})")
        cmd = [sys.executable, "-m", "venv", str(VENV)]
        borrow = parent is not None and importlib.util.find_spec("pip") is not None
        # A .venv that reuses a parent Python borrows that Python's pip through the link: installing a pip of its own
        # (ensurepip) took seconds of every fresh setup, and some distributions' Pythons have no ensurepip at all.
        made_ok = subprocess.run([*cmd, "--without-pip"] if borrow else cmd, check=False).returncode == 0
        if not made_ok:
            raise SystemExit("could not create .venv (on Debian/Ubuntu: apt-get install python3-venv)")
    site = venv_site()
    link = site / LINK
    if parent is None:
        link.unlink(missing_ok=True)
        return
    # `venv --system-site-packages` would expose the base installation, not this Python's own environment
    # (a venv itself on GPU images); addsitedir also reads that environment's .pth files.
    dirs = [p for p in dict.fromkeys((sysconfig.get_path("purelib"), sysconfig.get_path("platlib"),
                                      *(p for p in sys.path if p.endswith(("site-packages", "dist-packages")))))
            if Path(p).is_dir() and Path(p).resolve() != site.resolve()]
    link.write_text("".join(f"import site; site.addsitedir({d!r})\n" for d in dirs))
    pytest = VENV / "bin" / "pytest"
    if not pytest.exists():
        # pytest's own script stays with the parent Python; this one runs it with .venv's, which has the project.
        pytest.write_text(console_script(venv_python(), "pytest:main"))
        pytest.chmod(0o755)
    step(f".venv reuses the packages of {sys.executable} (torch found there)")


def requirements_of(pyproject: str, extras: list[str]) -> tuple[list[str], dict[str, str]] | None:
    """(the project's requirements, with those of `extras`, and its [project.scripts]); None where this Python cannot
    read TOML (3.10 has no tomllib), and pip decides."""
    try:
        import tomllib
    except ImportError:
        return None
    project = tomllib.loads(pyproject)["project"]
    optional = project.get("optional-dependencies", {})
    return [*project.get("dependencies", []), *(r for e in extras for r in optional.get(e, []))], \
        dict(project.get("scripts", {}))


def unmet(requirements: list[str]) -> list[str] | None:
    """The requirements this Python's installed packages do not satisfy, in words ("name have (needs spec)"); None
    where that cannot be told here (no `packaging`, not even pip's own copy), and pip decides."""
    import importlib.metadata as metadata

    try:
        from packaging.requirements import Requirement
    except ImportError:
        try:
            from pip._vendor.packaging.requirements import Requirement
        except ImportError:
            return None
    missing = []
    for text in requirements:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        try:
            have = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            missing.append(f"{req.name} absent")
            continue
        if not req.specifier.contains(have, prereleases=True):
            missing.append(f"{req.name} {have} (needs {req.specifier})")
    return missing


def link_project(scripts: dict[str, str]) -> None:
    """An editable install of this checkout without pip: a path file in .venv's site-packages names the checkout,
    and each [project.scripts] entry gets its script in .venv/bin. pip's editable install of the same took most of
    a fresh setup's 21 s on a GPU image that already had every package."""
    (venv_site() / "rosetta-checkout.pth").write_text(f"{ROOT}\n")
    for name, target in scripts.items():
        script = VENV / "bin" / name
        script.write_text(console_script(venv_python(), target))
        script.chmod(0o755)


def console_script(python: Path, target: str) -> str:
    """A script that runs `module:function`, as pip writes one. The guard matters: a process that multiprocessing
    spawns runs the parent's main script again as __mp_main__, and must not start the command a second time."""
    module, func = target.split(":")
    return (f"#!{python}\nimport sys\n\nfrom {module} import {func}\n\n"
            f"if __name__ == \"__main__\":\n    sys.exit({func}())\n")


def install(flavour: str, parent: str | None, pyproject: str) -> None:
    extras = [*([] if flavour == "cpu" else [flavour]), "test"]   # the tests' own needs too (pandas): one setup
    project = f".[{','.join(extras)}]"
    LOG.write_text("")
    if parent is not None:
        wanted = requirements_of(pyproject, extras)
        missing = unmet(wanted[0]) if wanted is not None else None
        if missing == []:
            step(f"{project} is satisfied by what is installed: .venv links this checkout (no pip)")
            link_project(wanted[1])
            return
        if missing:
            step(f"not installed as {project} needs: {', '.join(missing)}")
        step(f"checking that {project} is satisfied by what is installed (no network)")
        if pip(["--no-index", "--no-build-isolation", "-e", project], LOG):
            return
        step("something is missing: installing it from the package index")
        if pip(["-e", project], LOG):
            return
    else:
        args = ["-e", project]
        if flavour == "cpu":
            # The pin keeps pip on the CPU build: this machine's own wheels, or PyTorch's CPU index when it answers.
            args = [CPU_TORCH, *args]
            if reachable(f"{CPU_TORCH_INDEX}/torch/"):
                args = ["--extra-index-url", CPU_TORCH_INDEX, *args]
        torch = f"{CPU_TORCH} (CPU build{', PyTorch CPU index' if '--extra-index-url' in args else ''}) and " \
            if flavour == "cpu" else ""
        step(f"installing {torch}the project ({project}, editable) with pip; log: {LOG.relative_to(ROOT)}")
        if pip(args, LOG):
            return
    tail = LOG.read_text().strip().splitlines()[-15:]
    print("\n".join(tail), file=sys.stderr)
    raise SystemExit(f"pip failed (full log: {LOG}). Without network, run bootstrap.py with a Python that "
                     f"already has torch, triton and, on a GPU, CuPy installed.")


def torch_cuda_of(version_py: str) -> str | None:
    """The CUDA a torch build targets, from its torch/version.py (`cuda: Optional[str] = '13.0'`); None for a CPU
    build."""
    match = re.search(r"^cuda\b[^=]*=\s*['\"]([\d.]+)['\"]", version_py, re.MULTILINE)
    return match.group(1) if match else None


def report(flavour: str, cuda_major: int | None) -> None:
    """One line of what .venv now runs with, read from package metadata (no import: importing torch to ask took
    seconds of every setup); on a GPU, a warning when the torch found cannot use the driver."""
    probe = (
        "import importlib.metadata as m, importlib.util as u, pathlib\n"
        "def v(n):\n"
        "    try: return m.version(n)\n"
        "    except m.PackageNotFoundError: return 'absent'\n"
        "names = ['torch', 'triton', 'cuda-bindings', 'nvidia-cuda-nvrtc', 'nvidia-cuda-nvrtc-cu12',\n"
        "         'cupy-cuda13x', 'cupy-cuda12x']\n"
        "print(', '.join(f'{n} {v(n)}' for n in names if v(n) != 'absent'))\n"
        "spec = u.find_spec('torch')\n"
        "f = pathlib.Path(spec.origin).with_name('version.py') if spec and spec.origin else None\n"
        "print(f.read_text() if f and f.is_file() else '')\n"
    )
    proc = subprocess.run([str(venv_python()), "-c", probe], capture_output=True, text=True, check=False)
    first, _, version_py = proc.stdout.partition("\n")
    step(first.strip() or (proc.stderr.strip().splitlines() or ["no package versions found"])[-1])
    if flavour != "cpu":
        built_for = torch_cuda_of(version_py)
        if built_for is None:
            step("torch here is a CPU build: it cannot use the GPU, and the GPU tier will skip; "
                 "a torch built for the driver's CUDA fixes it")
        elif cuda_major is not None and int(built_for.split(".")[0]) > cuda_major:
            step(f"torch here is built for CUDA {built_for}, newer than the driver's CUDA {cuda_major}: it may not "
                 f"use the GPU; update the driver or install a torch built for CUDA {cuda_major}")


def setup() -> Path:
    """Make .venv ready for this machine (a no-op when already done); returns its Python."""
    pyproject = (ROOT / "pyproject.toml").read_bytes()
    lowest = min_python(pyproject.decode())
    if sys.version_info < lowest:
        raise SystemExit(f"tile-rosetta needs Python >= {lowest[0]}.{lowest[1]}; this is {sys.version.split()[0]}")
    cuda_major, machine = driver_cuda()
    flavour = flavour_for(cuda_major)
    parent = parent_with_torch()
    key = stamp_key(pyproject, flavour, parent)
    if venv_python().exists() and STAMP.is_file() and STAMP.read_text() == key:
        step(f"up to date: {machine}, {flavour}{' (reusing ' + parent + ')' if parent else ''}")
        return venv_python()
    started = time.monotonic()
    step(f"setting up for {flavour}: {machine}")
    before = STAMP.read_text().split() if STAMP.is_file() else []
    if len(before) > 1 and before[1] != flavour:
        step(f".venv was set up for {before[1]}: its torch stays; remove .venv for a clean setup")
    STAMP.unlink(missing_ok=True)
    make_venv(parent)
    install(flavour, parent, pyproject.decode())
    report(flavour, cuda_major)
    STAMP.write_text(key)
    step(f"set up in {time.monotonic() - started:.1f} s")
    return venv_python()


def outside_python() -> str | None:
    """The Python .venv was made with, where this runs on .venv's own (`. .venv/bin/activate` puts it first as
    python3); None elsewhere. Set up from inside, .venv's packages would read as a parent's: a different stamp, the
    setup done again and its log emptied."""
    if Path(sys.prefix).resolve() != VENV.resolve():
        return None
    cfg = (VENV / "pyvenv.cfg").read_text()
    executable = re.search(r"^executable\s*=\s*(.+?)\s*$", cfg, re.MULTILINE)
    home = re.search(r"^home\s*=\s*(.+?)\s*$", cfg, re.MULTILINE)
    if executable is not None:
        return executable.group(1)
    return str(Path(home.group(1)) / f"python{venv_version()}") if home is not None else None


def command(python: Path, args: list[str]) -> tuple[list[str], str]:
    """What `bootstrap.py ARGS` runs once set up, and how to say it: pytest for `test`, else the `rosetta` CLI."""
    if args[:1] == ["test"]:
        return [str(python), "-m", "pytest", *args[1:]], " ".join(["pytest", *args[1:]])
    return [str(python.parent / "rosetta"), *args], " ".join(["rosetta", *args])


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    outside = outside_python()
    if outside is not None:  # the same command with the Python that made .venv: the setup is the one it made
        os.execv(outside, [outside, str(Path(__file__).resolve()), *argv])
    python = setup()
    if argv == ["setup"]:
        step(f"done; `. {VENV.relative_to(ROOT)}/bin/activate` puts `rosetta` and `pytest` on PATH")
        return 0
    cmd, said = command(python, argv)
    step(said)
    os.execv(cmd[0], cmd)  # the command's own exit status and signals (Ctrl-C keeps a run's partial results)
    return 1  # not reached: execv returns only by raising


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
