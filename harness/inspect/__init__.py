"""Looking inside compiled kernels without timing them.

tools (where nvcc, ptxas, cuobjdump, ncu, compute-sanitizer are), compile_cuda (the suite's NVRTC build),
compile_triton (Triton AOT for sm_90, or a GPU launch's handle), kernel_resources (what a compiler
allotted), sass (instruction mix), ptxas (the assembler's reports), ttgir and source_facts (facts read
off Triton's IR and CUDA sources), occupancy (sm_90), cache (the on-disk cache of compile reports),
resources (typed records.Resources), evidence (the numbers mapping claims are proven on), one_launch
(the launch a tool's child process makes), profile (ncu counters), sanitize (compute-sanitizer),
trace (seed 002's worked example).
"""
