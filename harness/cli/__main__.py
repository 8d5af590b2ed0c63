"""`python -m harness.cli`: the `rosetta` command."""

import sys

from harness.cli import main

sys.exit(main())
