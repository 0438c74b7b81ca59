"""The papers' experiments, one module per paper, rerun with one command each.

    cclab reproduce --list
    cclab reproduce 003 table1 --quick --out repro/
    cclab reproduce ubr                       # every experiment of paper 003
    cclab reproduce --all --report docs/REPRODUCTION.md

From Python: ``cclab.experiments.reproduce("003", "table1", quick=True, out="repro")``.

Each experiment writes into ``OUT/<paper>-<name>/``: its figures (PNG and SVG),
the data behind them (one CSV per table), ``report.md`` (published numbers
beside cclab's, with a verdict each), and ``runs/`` (one JSON per finished run,
so an interrupted reproduction resumes where it stopped; a run is redone when
its scenario, its seed, the experiment's ``measure`` or the core's result version changes).
The simulations themselves are kept in the run store (``cclab.store``, by default
``~/.cache/cclab/runs``), keyed by scenario, seed and result version: a rebuild that does
not change results, or a new ``measure``, reuses them without simulating.
"""

from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Sequence, Union

from .base import DEFAULT_OUT, DEFAULT_STACK, Experiment, Report, Run, Variant
from .report import write_summary
from .runner import (
    STACK_CHOICES,
    Outcome,
    Progress,
    RunsFailed,
    estimate_cost,
    missing_runs,
    resolve_stack,
    run_experiments,
    with_stack,
)
from .stacks import report_checks, verdict_changes, write_report_changes, write_stack_changes
from .verdicts import VERDICTS, Check, claim, compare, model

__all__ = [
    "Check",
    "DEFAULT_OUT",
    "DEFAULT_STACK",
    "Experiment",
    "Outcome",
    "PAPERS",
    "Report",
    "STACK_CHOICES",
    "Run",
    "VERDICTS",
    "Variant",
    "claim",
    "compare",
    "estimate_cost",
    "missing_runs",
    "model",
    "run_experiments",
    "experiments",
    "find",
    "register",
    "report_checks",
    "reproduce",
    "resolve_stack",
    "verdict_changes",
    "with_stack",
    "write_report_changes",
    "write_stack_changes",
    "write_summary",
]

#: Paper number -> (module, short name of its algorithm, title). A paper's experiments
#: live in ``paperNNN.py`` (and ``paperNNN_*.py`` when they are many).
PAPERS: Dict[str, tuple[str, str, str]] = {
    "000": ("paper000", "tcp-gt", "Jung et al., TCP-GT (JCN 2010)"),
    "001": ("paper001", "hrf", "Ogura et al., HRF-TCP (IEICE 2012)"),
    "002": ("paper002", "ktcp", "Yoshimizu et al., Kyushu-TCP (IEICE 2010)"),
    "003": ("paper003", "ubr", "Hyun and Jang, extra window for under-buffered links (IEICE 2012)"),
    "004": ("paper004", "ghstcp", "Zhang, Hasegawa, Murata, gHSTCP and gARED"),
}

_REGISTRY: Dict[str, Experiment] = {}


def register(cls: type) -> type:
    """Class decorator: makes an Experiment subclass known to ``cclab reproduce``."""
    exp = cls()
    if exp.paper not in PAPERS:
        raise ValueError(f"{cls.__name__}.paper: {exp.paper!r} is not one of {sorted(PAPERS)}")
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", exp.name):
        raise ValueError(f"{cls.__name__}.name: {exp.name!r}: use lower-case letters, digits and '-'")
    if exp.id in _REGISTRY and type(_REGISTRY[exp.id]) is not cls:
        raise ValueError(f"{cls.__name__}: experiment {exp.id} is already registered")
    _REGISTRY[exp.id] = exp
    return cls


def _load_all() -> None:
    """Imports every ``paperNNN*.py`` module of this package (a paper may span several)."""
    import importlib
    import pkgutil

    for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if m.name.startswith("paper"):
            importlib.import_module(f"{__name__}.{m.name}")


def experiments() -> List[Experiment]:
    """Every registered experiment, by paper then in the order the modules define them."""
    _load_all()
    return sorted(_REGISTRY.values(), key=lambda e: e.paper)


def _paper_number(paper: str) -> str:
    p = str(paper).strip().lower()
    for num, (_, alias, _) in PAPERS.items():
        if p in (num, num.lstrip("0") or "0", alias, f"paper{num}"):
            return num
    accepted = ", ".join(f"{n} ({a})" for n, (_, a, _) in PAPERS.items())
    raise LookupError(f"paper: {paper!r} is not a paper of this project; accepted: {accepted}")


def find(paper: str, name: Optional[str] = None) -> List[Experiment]:
    """The experiments of ``paper`` (number or alias: "003", "3", "ubr"), or the one named
    ``name``. Raises LookupError naming what is accepted."""
    num = _paper_number(paper)
    found = [e for e in experiments() if e.paper == num]
    if name is None:
        if not found:
            raise LookupError(f"paper: {paper!r} has no experiments yet")
        return found
    hit = [e for e in found if e.name == str(name).strip().lower()]
    if not hit:
        names = ", ".join(e.name for e in found) or "none yet"
        raise LookupError(f"experiment: {name!r} is not an experiment of paper {num}; accepted: {names}")
    return hit


def run_experiment(
    exp: Experiment,
    quick: bool = False,
    out: Union[str, "os.PathLike[str]"] = DEFAULT_OUT,
    jobs: Optional[int] = None,
    fresh: bool = False,
    progress: Optional[Progress] = None,
    stack: str = DEFAULT_STACK,
) -> Outcome:
    """Runs one experiment (reusing finished runs) and writes its files; ``stack`` as in
    ``run_experiments``."""
    return run_experiments([exp], quick, out, jobs, fresh, progress, stack=stack)[0]


def reproduce(
    paper: Optional[str] = None,
    name: Optional[str] = None,
    quick: bool = False,
    out: Union[str, "os.PathLike[str]"] = DEFAULT_OUT,
    jobs: Optional[int] = None,
    fresh: bool = False,
    progress: Optional[Progress] = None,
    stack: str = DEFAULT_STACK,
) -> List[Outcome]:
    """Reruns the experiments of ``paper`` (all papers when None), or the one named ``name``: their
    missing runs together, longest first (``runner.run_experiments``), every flow following the
    TCP stack profile ``stack`` ("cclab", "ns2", "linux", or "paper": the one each paper ran)."""
    chosen: Sequence[Experiment] = experiments() if paper is None else find(paper, name)
    for e in chosen:
        resolve_stack(e, stack)  # an unknown stack is refused before anything runs
    return run_experiments(chosen, quick, out, jobs, fresh, progress, stack=stack)


