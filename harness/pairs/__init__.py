"""A user's own CUDA/Triton pair through the suite, with nothing in the project edited.

A pair is declared in a small TOML file or on the command line (declaration.py), becomes a catalog Kernel with one
Counterpart under an Idea of its own (pair.py), is checked before anything of it is launched (checks.py), and is
declared to every process of the run (active.py), where the catalog's lookups find it beside the catalog's kernels;
its Triton file is launched as the catalog's forms are (form.py). `rosetta run --pair FILE` (harness/cli/pairs.py);
docs/pairs.md says what a declaration holds.
"""
