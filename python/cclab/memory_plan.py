"""Which run starts next on the runner's worker processes, and under which memory budget.

The core stops a run whose memory passes its budget (``MemoryBudgetError``); the budget of a
run is 80 % of the memory available when it starts (``_core.memory_budget``, *whole* here).
Runs started together would each take it against the same free memory, so the runner gives
each run a *level* of it, and starts a run only while the levels in progress fit the whole:

- ``BESIDE``, a worker's share (whole / n for n workers): every run starts there;
- ``BIG``, most of the budget (whole - (n - 1) spares): a run that stopped for memory at its
  share is tried again there, beside runs at ``SPARE``, so the other workers go on (before, it
  ran alone and they waited, for an hour at a time in paper 000's TCP-GT runs at a 1 s RTT);
- ``SPARE``, a quarter of a share: what a run beside a ``BIG`` one gets; one that stops for
  memory there is tried again later at its share;
- ``WHOLE``, the whole budget, alone: a run that stopped at ``BIG`` is tried once more there,
  and only a run that stops alone is reported as stopped for memory. A run that was in progress
  when a worker died runs here too (one at a time, so the one that kills its worker is found).

"Fit" counts the n largest levels in flight (a pool of n workers runs at most n at a time,
whichever they are): they must sum to at most the whole. Levels are in units of a spare (a
whole is 4n of them), so the arithmetic is exact, and so the plan is the same when the budget
is not known (the user set CCLAB_MEMORY_LIMIT, which every run then takes as it is): it then
only orders the runs, and a run that stops for memory beside others goes straight to ``WHOLE``.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

SPARE, BESIDE, BIG, WHOLE = range(4)


class MemoryPlan:
    """The levels of the runs in flight and of those to try again, for ``workers`` processes
    sharing ``whole`` bytes (``None``: not known; every run gets no limit of its own)."""

    def __init__(self, workers: int, whole: Optional[int]) -> None:
        n = max(workers, 1)
        self.n = n
        self.whole = whole
        # Units of a spare: a share is 4 of them, the whole 4n, BIG leaves one to each other worker.
        self.units = (1, 4, 4 * n - (n - 1), 4 * n)
        self.floor: Dict[int, int] = {}  # job -> the lowest level it may start at (after a failure)
        self.running: Dict[int, int] = {}  # job -> its level, while in flight

    def limit(self, level: int) -> Optional[int]:
        """The memory budget in bytes of a run at ``level`` (None when the whole is not known)."""
        if self.whole is None:
            return None
        return self.whole * self.units[level] // (4 * self.n)

    def _fits(self, level: int) -> bool:
        held = sorted([self.units[lv] for lv in self.running.values()] + [self.units[level]], reverse=True)
        return sum(held[: self.n]) <= 4 * self.n

    def next(self, queue: List[int]) -> Optional[Tuple[int, int]]:
        """The job of ``queue`` (in priority order) to start now and its level, or None to wait.

        A job that needs more than a share goes first: while it does not fit, only jobs at
        ``SPARE`` start beside it (none when it waits for the whole budget, which would never
        come)."""
        needy = next((i for i in queue if self.floor.get(i, SPARE) > BESIDE), None)
        if needy is not None:
            if self._fits(self.floor[needy]):
                return needy, self.floor[needy]
            if self.floor[needy] == WHOLE:
                return None
        for j in queue:
            if j == needy:
                continue
            level = max(BESIDE, self.floor.get(j, SPARE))
            if needy is None and self._fits(level):
                return j, level
            # Beside a run at BIG, or one waiting for it, only what leaves it room.
            if self.floor.get(j, SPARE) == SPARE and self._fits(SPARE):
                return j, SPARE
        return None

    def start(self, i: int, level: int) -> None:
        self.running[i] = level

    def end(self, i: int) -> int:
        """The job left the workers; its level."""
        return self.running.pop(i)

    def stopped_for_memory(self, i: int, level: int) -> bool:
        """The job at ``level`` stopped for memory: True when it is to be tried again (at a level
        with a larger budget), False when that was its last chance (alone, or nothing larger)."""
        if self.whole is None:
            bigger = [WHOLE] if level != WHOLE and self.n > 1 else []
        else:
            bigger = [lv for lv in (BESIDE, BIG, WHOLE) if self.units[lv] > self.units[level]]
        if not bigger:
            return False
        self.floor[i] = bigger[0]
        return True

    def worker_died(self, i: int, level: int) -> bool:
        """The job was in flight when a worker died: True when it is to be tried again alone,
        False when it was alone (it is the one that killed its worker)."""
        if level == WHOLE:
            return False
        self.floor[i] = WHOLE
        return True
