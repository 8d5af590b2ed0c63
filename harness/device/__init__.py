"""What a device offers and how a kernel fits it: the datasheet peaks (specs), sm_90 occupancy, what a compiler
allotted a kernel (kernel_resources) and the roofline of a problem.
"""
