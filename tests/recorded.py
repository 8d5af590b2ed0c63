"""The committed GPU runs the report and findings tests read (results/*.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def recorded_gpu_run() -> Path | None:
    """The newest committed full GPU run: a results file whose run header says gpu and whose command chose no subset."""
    for path in sorted((REPO / "results").glob("*.jsonl"), reverse=True):
        header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        if header.get("mode") == "gpu" and not {"--only", "--sweep", "--shape"} & set(header.get("argv", [])):
            return path
    return None
