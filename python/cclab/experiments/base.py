"""What an experiment is, and the verdicts it gives.

An experiment reproduces one figure or table of a paper. It says which runs it
needs (``runs``: scenarios with their seeds and the values of the point each
stands for), what it keeps of each run (``measure``: small tables, computed in
the worker process so the full result never crosses a process boundary), and
how it draws the figure and compares the numbers (``report``).

A report holds figures and *checks*. A check is either a published number
beside cclab's with a tolerance (``compare``), or a qualitative claim of the
paper (``claim``: "TCP-GT drops no packet", "the extra window's utilization
exceeds Reno's at every k"). Each check gets a verdict: it matches, or it
differs and says why in one line. Qualitative claims must hold in the quick
form too: the tests check them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Sequence, Union

import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..result import Result

__all__ = ["Run", "Check", "Report", "Experiment", "compare", "claim"]

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


@dataclass(frozen=True)
class Check:
    """One verdict of an experiment: a published number beside cclab's, or a claim."""

    what: str
    measured: Any
    holds: bool
    published: Any = None
    tolerance: str = ""
    reason: str = ""
    qualitative: bool = False

    @property
    def verdict(self) -> str:
        if self.holds:
            return "matches" if not self.qualitative else "holds"
        return f"differs: {self.reason}" if self.reason else "differs"


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        if math.isnan(x):
            return "n/a"
        a = abs(x)
        if a != 0 and (a < 1e-3 or a >= 1e6):
            return f"{x:.3g}"
        return f"{x:.4g}"
    return str(x)


def compare(
    what: str,
    published: float,
    measured: float,
    tol: float,
    *,
    relative: bool = False,
    reason: str = "",
) -> Check:
    """A published number beside cclab's: matches when ``|measured - published| <= tol``
    (``relative``: ``<= tol * |published|``). ``reason`` is the one-line
    explanation shown when it differs; give it whenever a difference is expected
    or understood."""
    bound = tol * abs(published) if relative else tol
    ok = (not math.isnan(measured)) and abs(measured - published) <= bound + 1e-12
    tol_s = f"±{tol:.0%}" if relative else f"±{_fmt(tol)}"
    return Check(what, measured, ok, published=published, tolerance=tol_s, reason="" if ok else reason)


def claim(what: str, holds: bool, measured: Any, *, published: Any = "", reason: str = "") -> Check:
    """A qualitative result of the paper (``what``) and whether cclab's run shows
    it; ``measured`` is the evidence in a few words or numbers."""
    return Check(
        what, measured, bool(holds), published=published, qualitative=True, reason="" if holds else reason
    )


@dataclass
class Report:
    """What ``Experiment.report`` returns: figures by file stem, checks, notes."""

    figures: dict[str, "Figure"] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Extra markdown (a table in the paper's form), placed before the checks.
    markdown: str = ""


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

    def runs(self, quick: bool) -> list[Run]:
        raise NotImplementedError

    def measure(self, run: Run, res: "Result") -> dict[str, Rows]:
        """What to keep of one run, as named tables. The default keeps the flow
        table and the summary."""
        return {"flows": res.flows, "summary": res.summary()}

    def report(self, data: dict[str, pd.DataFrame], quick: bool) -> Report:
        raise NotImplementedError

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


def checks_table(checks: Sequence[Check]) -> str:
    """The checks as a markdown table: what, published, cclab, tolerance, verdict."""
    lines = ["| what | published | cclab | tolerance | verdict |", "|---|---|---|---|---|"]
    for c in checks:
        cells = [c.what, _fmt(c.published), _fmt(c.measured), c.tolerance or "—", c.verdict]
        lines.append("| " + " | ".join(s.replace("|", "\\|").replace("\n", " ") for s in cells) + " |")
    return "\n".join(lines)

