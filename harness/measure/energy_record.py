"""What a record keeps of the energy of its timed launches (Energy), and how a burst's is read from NVML's counter
around each round (burst_energy); harness/measure/energy.py reads the meter and measures how finely it resolves."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.measure.energy import COUNTER, NONE, RESOLVED_PERIODS, MeterState, delta_mj


@dataclass
class Energy:
    """The energy of an entry's timed launches, one value per round of its samples (harness/measure/timing.py Samples).

    mj[r] is what was read over round r's window (the counter's change, or the integral of power samples); joules[r]
    is the share of it that the round's timed launches took (the window's mean power times their event time), None
    where the window was too short for the measured counter period (RESOLVED_PERIODS) or nothing could be read.
    """

    method: str                                   # COUNTER, POWER or NONE: how mj was read
    mj: list[float | None]
    window_s: list[float | None]                  # host seconds between the two readings of each round
    joules: list[float | None]
    period_ms: float | None = None                # the counter's update period measured in the process that read it
    note: str = ""                                # why a round has no joules, in one line
    # what a regime adds (harness/measure/sustained.py: the power integral)
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not len(self.mj) == len(self.window_s) == len(self.joules):
            raise ValueError(f"energy: {len(self.mj)} readings, {len(self.window_s)} windows, "
                             f"{len(self.joules)} values")

    @property
    def resolved(self) -> int:
        return sum(j is not None for j in self.joules)

    def to_json(self) -> dict:
        def r(values: list[float | None]) -> list[float | None]:
            return [float(f"{v:.6g}") if v is not None else None for v in values]

        out: dict = {"method": self.method, "mj": r(self.mj), "window_s": r(self.window_s), "joules": r(self.joules)}
        if self.period_ms is not None:
            out["period_ms"] = float(f"{self.period_ms:.4g}")
        if self.note:
            out["note"] = self.note
        if self.extra:
            out["extra"] = self.extra
        return out

    @classmethod
    def from_json(cls, data: dict) -> Energy:
        missing = [k for k in ("method", "mj", "window_s", "joules") if k not in data]
        if missing:
            raise ValueError(f"energy lacks {', '.join(missing)}")
        return cls(str(data["method"]), list(data["mj"]), list(data["window_s"]), list(data["joules"]),
                   data.get("period_ms"), str(data.get("note") or ""), dict(data.get("extra") or {}))


def burst_energy(readings: list[tuple[int | None, int | None, float] | None], runs_ms: list[float],
                 window_ms: list[float | None], meter_state: MeterState | None,
                 planned_s: float | None = None) -> Energy | None:
    """The Energy of an entry's bursts (harness/measure/rounds.py): each round's counter change over its window, and
    where the window resolves it, the timed runs' share (the window's energy times their event time over the window's
    device time: the L2 flushes and clock probes between the runs take the rest). None where no meter was given; no
    readings at all where the planned burst (planned_s) was too short for the counter to be read, said in the note."""
    if meter_state is None:
        return None
    res, limit = meter_state.resolution, meter_state.card.enforced_w or meter_state.card.limit_w
    n = len(readings)
    if not meter_state.meter.available:
        return Energy(NONE, [None] * n, [None] * n, [None] * n, None, meter_state.meter.reason or "")
    if all(r is None for r in readings) and planned_s is not None and not res.resolves(planned_s):
        period = f"{res.period_ms:.1f} ms" if res.period_ms else f"longer than {1e3 * res.seconds:.0f} ms"
        return Energy(NONE, [None] * n, [None] * n, [None] * n, res.period_ms,
                      f"not read: bursts of about {1e3 * planned_s:.2g} ms, the counter moves every {period} "
                      f"(a window needs {RESOLVED_PERIODS} periods); energy per launch comes from the sustained "
                      f"regime's longer windows", {"burst_s": float(f"{planned_s:.4g}")})
    mj, seconds, joules = [], [], []
    short = 0
    for reading, ran, span in zip(readings, runs_ms, window_ms, strict=True):
        if reading is None:
            mj.append(None)
            seconds.append(None)
            joules.append(None)
            continue
        before, after, s = reading
        change = delta_mj(before, after, s, limit, res.step_mj or 0.0)
        mj.append(change)
        seconds.append(s)
        if change is None or not span or not res.resolves(s):
            short += change is not None and not res.resolves(s)
            joules.append(None)
        else:
            joules.append(change / 1e3 * min(1.0, ran / span))
    note = ""
    if short:
        period = f"{res.period_ms:.0f} ms" if res.period_ms else "longer than the watch"
        note = (f"{short} of {len(readings)} bursts shorter than {RESOLVED_PERIODS} periods of the counter "
                f"({period}): not resolved")
    elif any(m is None for m in mj):
        note = "the counter was not read, went back or jumped in some rounds"
    return Energy(COUNTER, mj, seconds, joules, res.period_ms, note)
