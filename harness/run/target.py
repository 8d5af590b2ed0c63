"""What a run may write: a new results file, or, resumed, the file of this same run (device, toolchain, seed, shard,
settings, chosen kernels and problems as its header records them). Checked before anything is written, and again
once the workers know the device."""

from __future__ import annotations

import os

from harness.records.file import load
from harness.records.lines import RunHeader


class Target:
    """The checks of a run session's results file: a mixin of harness/run/session.py RunSession, whose settings
    (out_path, resume, gpu, argv, seed, shard, rep_ms, rounds, aa), versions(), plan() and planned_problems() they
    compare."""

    def check_target(self, device: str | None = None) -> None:
        """Refuse, before anything is written, a results file this run may not write: a folder, a place that cannot
        be written, or a file that holds anything (a new run writes a new file); with resume, anything but a results
        file of this same run (device, toolchain, seed, shard, settings, chosen kernels and problems as its header
        records them). `device`: the workers' GPU (or CPU), once they have started."""
        path = self.out_path
        folder = path.absolute().parent
        if path.is_dir():
            raise ValueError(f"{path} is a folder: a run writes a results file")
        if not folder.is_dir():
            raise ValueError(f"{path}: " + (f"{folder} is not a folder" if folder.exists() else
                                            f"the folder {folder} does not exist"))
        if not os.access(folder, os.W_OK | os.X_OK):
            raise ValueError(f"{path}: {folder} cannot be written into")
        if not self.resume:
            if path.exists() and (not path.is_file() or path.stat().st_size):
                raise ValueError(f"{path} exists: a run writes only a new results file (--resume {path} continues "
                                 f"one that the same run wrote)")
            return
        if not path.is_file():
            raise ValueError(f"{path}: no results file to resume")
        if not os.access(path, os.W_OK):
            raise ValueError(f"{path}: cannot be written")
        differs = self.differences(load(path).header, device)
        if differs:
            raise ValueError(f"{path} was written by another run ({'; '.join(differs)}): --resume continues only "
                             f"the run that wrote the file")

    def differences(self, header: RunHeader, device: str | None = None) -> list[str]:
        """How a results file's run differs from this one, each as "what: there, here" (none: this run continues it).
        The kernels are compared as both runs chose them (--only, --op), the problems as both planned them."""
        out = []

        def differ(what: str, there: object, here: object) -> None:
            if there != here:
                out.append(f"{what}: {there} there, {here} here")

        differ("mode", header.mode, "gpu" if self.gpu else "cpu")
        if device is not None:
            differ("device", header.device, device)
        versions = self.versions()
        changed = sorted(k for k in {*header.versions, *versions} if header.versions.get(k) != versions.get(k))
        if changed:
            out.append("versions: " + ", ".join(f"{k} {header.versions.get(k, 'absent')} there, "
                                                f"{versions.get(k, 'absent')} here" for k in changed))
        differ("seed", header.seed, self.seed)
        differ("shard", header.shard, f"{self.shard[0]}/{self.shard[1]}" if self.shard else None)
        if self.gpu:
            differ("rep_ms", header.rep_ms, self.rep_ms)
            differ("rounds", header.rounds, self.rounds)
            differ("A/A control", header.aa, self.aa)
        differ("kernels chosen", _choice(header.argv) or "all", _choice(self.argv) or "all")
        planned = set(self.planned_problems(self.plan()))
        if set(header.problems) != planned:
            missing, extra = set(header.problems) - planned, planned - set(header.problems)
            out.append("problems: " + "; ".join(
                [*([f"{', '.join(sorted(p.label for p in missing))} there only"] if missing else []),
                 *([f"{', '.join(sorted(p.label for p in extra))} here only"] if extra else [])]))
        return out


# The options of `rosetta run` that choose its kernels; --resume compares them as the file's header recorded them.
CHOICE = ("--only", "--op")


def _choice(argv: list[str]) -> str:
    """The options of an argv that choose kernels, as one string, their values sorted ("" for all kernels)."""
    chosen: dict[str, list[str]] = {}
    option = None
    for arg in argv:
        if arg.startswith("-"):
            option, _, value = arg.partition("=")
            option = option if option in CHOICE else None
            if option is not None:
                chosen.setdefault(option, []).extend([value] if value else [])
        elif option is not None:
            chosen[option].append(arg)
    return " ".join(f"{o} {' '.join(sorted(v))}" for o, v in sorted(chosen.items()))
