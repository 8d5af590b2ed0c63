"""Looking inside compiled kernels without timing them.

tools (where nvcc, ptxas, cuobjdump, ncu, compute-sanitizer are), compile_cuda (the suite's NVRTC build),
compile_triton (Triton AOT for sm_90, or a GPU launch's handle), sass (instruction mix), ptxas (the
assembler's reports), ttgir and source_facts (facts read off Triton's IR and CUDA sources), cache (the
on-disk cache of compile reports); what they read is kept in harness/device/kernel_resources.py and judged by
harness/device/occupancy.py, which need no compiler;
resources (typed records.Resources), evidence (the numbers mapping claims are proven on), one_launch
(the launch a tool's child process makes), profile (ncu counters), sanitize (compute-sanitizer),
trace (seed 002's worked example).
"""
