"""Measuring on a GPU, whatever is measured: the timer (CUDA events, L2 flushed) and its interleaved rounds, the SM
clock probe, NVML energy and power, the sustained regime's steady state, and the numerics checker with the operands
it checks on. Nothing here knows the catalog or a run's stages.
"""
