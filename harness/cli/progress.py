"""`rosetta run`'s progress as it goes: one live line on a terminal, one line per finished implementation in a log."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from harness.records.lines import Result
    from harness.run.session import Progress

HEARTBEAT_S = 10.0


def clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


class Reporter:
    """A run's progress. On a terminal, one live line: "N of M, elapsed, ~left" (left: elapsed per finished
    implementation times those still to run) and what runs now. In a log (stdout not a terminal), one line per
    finished implementation, and a line at least every HEARTBEAT_S seconds while nothing finishes (worker start,
    a slow compile), so a log never stays silent for minutes."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.results: list[Result] = []
        self.started = time.monotonic()
        self.last_line = self.started
        self.done = self.total = 0
        self.running = "starting the worker(s)"
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def __enter__(self) -> Reporter:
        if self.console.is_terminal:
            from rich.progress import Progress as Bar
            from rich.progress import TextColumn

            self.bar = Bar(TextColumn("{task.description}"), console=self.console, transient=True)
            self.bar.__enter__()
            self.task = self.bar.add_task(self._status())
        self.ticker = threading.Thread(target=self._tick, daemon=True)
        self.ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.ticker.join()
        if self.console.is_terminal:
            self.bar.__exit__(*exc)

    def _status(self) -> str:
        elapsed = time.monotonic() - self.started
        left = f"~{clock(elapsed / self.done * (self.total - self.done))} left" if self.done else "~? left"
        head = f"{self.done} of {self.total}, elapsed {clock(elapsed)}, {left}" if self.total else \
            f"elapsed {clock(elapsed)}"
        return f"{head}: {self.running}"

    def _tick(self) -> None:
        while not self.stop.wait(0.5):
            with self.lock:
                if self.console.is_terminal:
                    self.bar.update(self.task, description=self._status()[: max(20, self.console.width - 2)])
                elif time.monotonic() - self.last_line >= HEARTBEAT_S:
                    self._line(f"... {self._status()}")

    def _line(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)
        self.last_line = time.monotonic()

    def __call__(self, event: Progress) -> None:
        with self.lock:
            self.done, self.total = event.done, event.total
            if event.result is None:
                self.running = event.starting or ""
                return
            r = event.result
            self.results.append(r)
            seconds = "" if event.seconds is None else f"{event.seconds:6.1f} s"
            text = (f"{event.done:>{len(str(event.total))}} of {event.total}  {r.status.value:<8} {seconds:>8}  "
                    f"{r.problem.label}  {r.kernel or 'baseline'}  {r.label}")
            if r.status.value == "failed":
                text += f": {' '.join(r.reason.split())[:200]}"
            if self.console.is_terminal:
                if r.status.value == "failed":  # above the live line, so a failure is seen as it happens
                    self.bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
                self.bar.update(self.task, description=self._status())
            else:
                self._line(text)
