"""Executing a run, as lists of declared stages (phases.py): the session's (session.py: plan, worker start,
implementations, worker stop, CUDA builds) in the parent, which never touches the GPU; the workers' (worker.py,
work.py, runner.py) in spawned processes sent the run's catalog; and the passes over a finished run: the profile
(profile.py), the sustained regime (sustained.py), the knob study and the clock probe's error. What a run writes is
harness/records' format."""
