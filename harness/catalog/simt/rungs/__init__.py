"""The rungs of the SIMT ladder, one module each: every module here defines RUNG (harness/catalog/simt/rung.Rung), and
its name is the rung's; harness/catalog/simt finds them all and orders them by the rung each stands on (`after`), so
adding a rung edits no list (CONTRIBUTING.md).

A folder harness/catalog/simt/rungs under another sys.path entry adds its modules too: a rung can be tried (and a
test can drop one) without touching this tree.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
__path__ += [str(p) for p in dict.fromkeys(Path(entry, *__name__.split(".")).resolve() for entry in sys.path)
             if p != _HERE and p.is_dir()]
