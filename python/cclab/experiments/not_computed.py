"""Runs that cannot be computed on this machine, and the checks they leave without a verdict.

A run that needs more memory than the machine has stops with ``MemoryBudgetError``, even alone
(the shared runner retries a run that stopped beside others with the whole budget). Paper 000's
eq. (15) as printed does this at a 1 s RTT: its 50 windows jump to millions of packets in one
epoch. Losing the whole experiment to one such run would lose every verdict the other runs give,
so the run is kept as *not computed*:

- its file in ``runs/`` records the error and the memory budget it ran under, under the run's
  fingerprint; a later reproduction skips it unless its budget is ``RETRY_MARGIN`` times larger
  (the budget follows the memory free, which moves by a few per cent from run to run);
- the experiment's report is written from the other runs, with the runs not computed listed;
- every check that may need one of them gets the verdict ``not-computed`` (verdicts.py), with
  what it gives on the runs computed shown but counted neither way.

Which checks may need a run: a run that only its own variant's checks use (``params["variant"]``,
``Experiment.shared_run`` false) touches that variant's checks, and if that is not the default,
the default's failing ones, whose ablation may come from it; any other run touches every check.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .base import Experiment, Report, Run
from .verdicts import Check

__all__ = ["RETRY_MARGIN", "marker", "still_out_of_reach", "mark_report"]

#: A run not computed is tried again where the memory budget is this many times the one it failed under.
RETRY_MARGIN = 1.25


def _budget() -> Optional[int]:
    from .. import _core

    return _core.memory_budget()


def marker(key: str, fingerprint: str, error: str, budget: Optional[int]) -> Dict[str, Any]:
    """The ``runs/`` file of a run not computed: the error and the memory budget, bytes, it failed
    under (None where unknown: it is then tried again)."""
    return {"key": key, "fingerprint": fingerprint, "not_computed": error, "budget_bytes": budget}


def still_out_of_reach(saved: Mapping[str, Any]) -> bool:
    """Whether a run saved as not computed would fail again here: the budget now is under
    ``RETRY_MARGIN`` times the one it failed under (a machine with more memory, or a larger
    CCLAB_MEMORY_LIMIT, tries again)."""
    then, now = saved.get("budget_bytes"), _budget()
    return isinstance(then, int) and now is not None and now < RETRY_MARGIN * then


def _words(keys: Sequence[str]) -> str:
    shown = ", ".join(f"'{k}'" for k in keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")
    return f"{len(keys)} run{'s' if len(keys) != 1 else ''} not computed for lack of memory ({shown})"


def _mark(checks: List[Check], words: str, only_failing: bool = False) -> List[Check]:
    return [dataclasses.replace(c, not_computed=words) if not (only_failing and c.holds) else c for c in checks]


def mark_report(exp: Experiment, rep: Report, runs: Sequence[Run], missing: Mapping[str, str]) -> Report:
    """``rep`` (computed without the runs in ``missing``: key -> the error) with the checks that may
    need them marked not computed, and a note listing them."""
    if not missing:
        return rep
    gone = [r for r in runs if r.key in missing]
    words = _words([r.key for r in gone])
    default = next((v.name for v in rep.variants if v.default), None)
    touched = {r.params.get("variant") for r in gone}
    everything = default is None or None in touched or any(exp.shared_run(r) for r in gone)
    variants = [dataclasses.replace(v, checks=_mark(v.checks, words)) if everything or v.name in touched else v
                for v in rep.variants]
    checks = _mark(rep.checks, words, only_failing=not everything and default not in touched)
    notes = rep.notes + [f"Not computed: {r.key!r}: {missing[r.key]}" for r in gone]
    return dataclasses.replace(rep, checks=checks, variants=variants, notes=notes)
