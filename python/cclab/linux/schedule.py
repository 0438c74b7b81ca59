"""The bottleneck's `rate_schedule` on the Linux testbed: each step changes the HTB class's rate
at its time (docs/linux.md, "Rate schedules").

The simulator reads a step at the first packet that starts to be sent after it; here a thread
sleeps until the step's time (the scenario's time 0 is the endpoints' ``t0``) and changes the
class with ``tc``, which takes effect for the frames HTB sends from then on. How late each
change landed (the command's return against the step's time) is kept: a few milliseconds, the
cost of starting ``tc``, against the simulator's exact times.
"""

from __future__ import annotations

import threading
import time
from typing import List, Tuple


class RateSteps:
    """Applies ``steps`` ((seconds after ``t0``, bit/s), in order) to ``tb``'s bottleneck from a
    thread of its own; ``stop()`` ends it (steps not yet due are not applied) and returns how
    late each applied step landed, seconds."""

    def __init__(self, tb, t0: float, steps: List[Tuple[float, int]]) -> None:
        self._tb, self._t0, self._steps = tb, t0, list(steps)
        self._done = threading.Event()
        self.late: List[float] = []
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="cclab-rate-steps", daemon=True)
        if self._steps:
            self._thread.start()

    def _run(self) -> None:
        try:
            for t, rate in self._steps:
                if self._done.wait(max(0.0, self._t0 + t - time.monotonic())):
                    return
                self._tb.set_rate(rate)
                self.late.append(time.monotonic() - (self._t0 + t))
        except BaseException as e:  # noqa: BLE001 - reported by stop()
            self.error = e

    def stop(self) -> List[float]:
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()
        if self.error is not None:
            raise self.error
        return self.late
