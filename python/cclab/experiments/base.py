"""What an experiment is, and the verdicts it gives.

An experiment reproduces one figure or table of a paper. It says which runs it
needs (``runs``: scenarios with their seeds and the values of the point each
stands for), what it keeps of each run (``measure``: small tables, computed in
the worker process so the full result never crosses a process boundary), and
how it draws the figure and compares the numbers (``report``).

A report holds figures and *checks* (``verdicts``: a published number beside
cclab's, a qualitative claim, a model curve), each with one of five verdicts:
matches, differs-explained (an ablation computed by the experiment proves the
cause), differs-unexplained, uninformative, not-computed (a run it needs did not
fit in memory: not_computed.py). Where the paper leaves a choice
open that moves a verdict, the report carries the checks under every setting
(``variants``) and names the default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Sequence, Union

import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..result import Result

from .verdicts import Check, checks_table, claim, compare, fmt, model

__all__ = ["DEFAULT_OUT", "DEFAULT_STACK", "Run", "Check", "Report", "Experiment", "Variant", "compare", "claim", "model",
           "checks_table", "fmt"]

#: The ``--stack`` a reproduction follows unless told otherwise: "paper", each experiment's own
#: ``Experiment.stack`` (issue 14: the papers' experiments run with the profile of the stack each
#: paper used; ``--stack cclab`` is cclab's own TCP).
DEFAULT_STACK = "paper"
#: The ``--out`` folder of a reproduction unless told otherwise.
DEFAULT_OUT = "reproduction"

#: What ``measure`` may return per table: a DataFrame, a list of row dicts, or one row.
Rows = Union[pd.DataFrame, Sequence[Mapping[str, Any]], Mapping[str, Any]]


@dataclass(frozen=True)
class Run:
    """One simulation of an experiment.

    ``key`` names the run inside its experiment (a file name is derived from
    it); ``params`` are the values of the point the run stands for (they become
    columns of every row the run yields: ``{"k": 0.25, "cc": "ubr", "seed": 3}``).
    """

    key: str
    scenario: Mapping[str, Any]
    seed: int = 1
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Variant:
    """The checks of an experiment under one setting of a choice the paper leaves open
    (loss recovery, send jitter, ARED's floor of max_p...). ``default`` marks the setting the
    summary counts; ``why`` says why it is the default."""

    name: str
    description: str
    checks: list[Check]
    default: bool = False
    why: str = ""


@dataclass
class Report:
    """What ``Experiment.report`` returns: figures by file stem, checks, notes."""

    figures: dict[str, "Figure"] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Extra markdown (a table in the paper's form), placed before the checks.
    markdown: str = ""
    #: The checks under every setting of the open choices swept (``checks`` are the default's).
    variants: list[Variant] = field(default_factory=list)


class Experiment:
    """Base class of every experiment; subclasses set the class attributes and
    the three methods. Register a subclass with ``@register``
    (``cclab.experiments.registry``)."""

    #: "000" ... "004": the paper's file number in shared/papers.
    paper: ClassVar[str] = ""
    #: Short name, unique in the paper: "table1", "fig4", "fig9-12".
    name: ClassVar[str] = ""
    #: The caption, shortened: what is reproduced.
    title: ClassVar[str] = ""
    #: How the paper's setup was pinned where the paper is silent, one line each.
    assumptions: ClassVar[Sequence[str]] = ()
    #: The TCP stack the paper's runs used, as a stack profile (``cclab reproduce --stack paper``):
    #: all five papers simulated with ns-2.35; an experiment of a real implementation says "linux".
    stack: ClassVar[str] = "ns2"

    def runs(self, quick: bool) -> list[Run]:
        raise NotImplementedError

    def measure(self, run: Run, res: "Result") -> dict[str, Rows]:
        """What to keep of one run, as named tables. The default keeps the flow
        table and the summary."""
        return {"flows": res.flows, "summary": res.summary()}

    def report(self, data: dict[str, pd.DataFrame], quick: bool) -> Report:
        raise NotImplementedError

    def shared_run(self, run: Run) -> bool:
        """Whether the checks of every variant use ``run``, not only those of its own
        ``params["variant"]`` (what a run not computed takes down: not_computed.py). By default
        any run may be shared."""
        return True

    @property
    def id(self) -> str:
        return f"{self.paper}/{self.name}"


def rows_frame(rows: Rows, params: Mapping[str, Any]) -> pd.DataFrame:
    """``rows`` as a DataFrame with the run's ``params`` as leading columns."""
    if isinstance(rows, pd.DataFrame):
        df = rows.reset_index(drop=True).copy()
    elif isinstance(rows, Mapping):
        df = pd.DataFrame([dict(rows)])
    else:
        df = pd.DataFrame([dict(r) for r in rows])
    for i, (k, v) in enumerate(params.items()):
        if k in df.columns:
            df = df.drop(columns=[k])
        df.insert(i, k, [v] * len(df))
    return df


def out_dir(base: Path, exp: Experiment) -> Path:
    return Path(base) / f"{exp.paper}-{exp.name}"
