"""Regenerate the README's results section from a recorded run:

    python -m harness.readme results/<run>.jsonl

Everything between the README's results markers comes from that file: the run's device and command,
the side-by-side tables, the claims table and the % of cuBLAS plot (written beside the results).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from harness.results import load

BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"


def section(results_path: Path, readme_dir: Path) -> str:
    from rich.console import Console

    from harness import plots
    from harness.claims import claims_table, print_claims
    from harness.report import markdown_results_table

    results = load(results_path)
    run = results.run
    command = "rosetta " + " ".join(run.get("argv", []))
    lines = [f"Measured on {run['device']} ({run.get('started', '?')}), with `{command}`; "
             f"re-render with `rosetta report {results_path.as_posix()}`, regenerate this section with "
             f"`python -m harness.readme {results_path.as_posix()}`."]
    peaks = run.get("peaks")
    if peaks:
        lines.append(f"Measured peaks: {peaks['fp32_tflops']:.1f} TFLOP/s FP32 FMA, {peaks['copy_gbps']:.0f} GB/s "
                     f"device-to-device copy (bytes read + written).")
    for op in ("sgemm", "sgemv"):
        plot = plots.pct_cublas(results, op)
        if plot.png:
            name = f"{results_path.stem}-{plot.key}.png"
            (results_path.parent / name).write_bytes(plot.png)
            rel = (results_path.parent / name).resolve().relative_to(readme_dir.resolve())
            lines.append(f"![{plot.title}]({rel.as_posix()})")
    lines.append(markdown_results_table(results))
    buf = io.StringIO()
    print_claims(claims_table(results), Console(file=buf, width=200, color_system=None), results)
    lines.append("The documents' figures beside ours (`rosetta claims " + results_path.as_posix() + "`):\n\n```\n"
                 + buf.getvalue().rstrip() + "\n```")
    return "\n\n".join(lines)


def update(readme: Path, results_path: Path) -> None:
    text = readme.read_text()
    if BEGIN not in text or END not in text:
        raise ValueError(f"{readme} has no {BEGIN} ... {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{BEGIN}\n{section(results_path, readme.parent)}\n{END}{tail}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    update(Path("README.md"), Path(sys.argv[1]))
