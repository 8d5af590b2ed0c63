"""The results-file format: its typed lines (lines.py), reading and writing a file (file.py), the facts a record
keeps of its kernel (kernel_facts.py), the order records are listed in (order.py) and joining files (merge.py).

The analysis and the report read results through this package alone: none of it executes a run.
"""
