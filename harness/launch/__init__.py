"""Bind and launch: every implementation behind one interface (implementations.py Impl), checked once when bound,
then launched bare: a CUDA kernel through CuPy (cuda.py), a Triton counterpart (triton.py; a user's Triton file as a
form built from the counterpart that names it, declared.py), a Gluon counterpart (gluon.py), a baseline (cublas.py,
triton_tutorial.py). A launch binds the kernel it is given: a user's declared kernel is launched from its entry, not
looked up."""
