"""Gluon counterparts of the CUDA kernels: each CUDA kernel's own decisions written in Triton's layout-level language.

Why a family of its own, not a Triton form: a Triton form (kernels_triton/) takes the CUDA kernel's tile and warps and
leaves the rest to the compiler, and the comparison CUDA against Triton mixes two things, the model (what the program
may decide) and the compiler (what the toolchain makes of it). A Gluon kernel here takes every decision its CUDA
kernel takes (block, warp and thread tiles as explicit layouts, shared memory and its layout, the copy path, stages,
barriers, roles, registers) and goes through Triton's compiler, so Triton against Gluon on the same tile is the
model's part and Gluon against CUDA the compiler's. Its modules, interface (forms.py: a CUDA kernel's template
arguments by name, a launch with no checks) and version shims (compat.py) differ from the Triton forms', and a
Gluon kernel neither runs under Triton's interpreter nor autotunes, so it is a third model with its own family
("gluon:<form>" in the records), not a Triton form.

Modules: simt_general (rosetta.sgemm_general, the SIMT summit and its 128 x 128 instantiation; beside the summit's
mirror, a "dot" form with the same decisions and each K tile's product one gl.dot_fma), simt_tile
(rosetta.sgemm_transposed_a, rosetta.sgemm_warptile, rosetta.sgemm_frag_prefetch: the rungs a Triton tl.dot gives no
handle on), wgmma_tma (rosetta.wgmma_smem and rosetta.wgmma_tma), wgmma_ws (rosetta.wgmma_ws and
rosetta.wgmma_persistent), wgmma_3xtf32_rs (rosetta.wgmma_3xtf32_rs); wgmma_common holds what the Hopper forms share.
rosetta.wgmma_cluster has none: triton 3.6's Gluon TMA load cannot multicast (compat.TMA_MULTICAST). Each module's
docstring lists the CUDA kernel's decisions it takes and what differs, and why. Nothing here imports the harness, and
the catalog names modules by string, so importing the catalog compiles nothing.
"""
