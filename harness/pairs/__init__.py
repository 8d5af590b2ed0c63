"""A user's own CUDA/Triton pair through the suite, with nothing in the project edited.

A pair is declared in a small TOML file or on the command line (declaration.py), becomes a catalog Kernel with one
Counterpart under an Idea of its own (pair.py), and is checked before anything of it is launched (checks.py). The
command adds the pairs to the catalog it hands the run (harness/catalog_types/tables.py Catalog.adding), which hands
that value on to every process it starts; a declared counterpart names its Triton file and how it is launched, so a
launcher builds its form from it (harness/launch/declared.py). `rosetta run --pair FILE` (harness/cli/pairs.py);
docs/pairs.md says what a declaration holds.
"""
