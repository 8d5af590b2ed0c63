"""Triton counterparts of the CUDA kernels, one module per Triton form, each readable on its own.

Every module holds a @triton.jit kernel and a `launch` that starts it and returns the compiled handle
(`kernel[grid](...)`'s value). `launch` checks nothing: operands are checked once, before any launch,
by whoever binds them (the harness does, in `harness.launch`). Nothing here imports the harness, and the
registry names modules by string, so importing it never defines a kernel before TRITON_INTERPRET is set.
"""
