"""The seed kernels as .cu sources, one file per published kernel (see each file's header)."""

from pathlib import Path

SOURCE_DIR = Path(__file__).resolve().parent


def source_path(name: str) -> Path:
    return SOURCE_DIR / name
