"""Checks and their verdicts: what a reproduction claims, and on what evidence.

A check sets one statement of a paper (its words, its section) against cclab's
runs. It is one of:

- ``compare``: a number the paper prints or plots beside cclab's. The
  tolerance is the paper's own precision (half a unit of the last digit it
  prints, when ``published`` is given as the printed string; the reading
  precision of a plot, stated, when it is read off a figure) plus the spread
  of cclab's value over seeds (the half-width of its 95 % interval).
- ``claim``: a qualitative statement ("TCP-GT never dropped a packet").
- ``model``: cclab's window or time beside *cclab's own evaluation* of one of
  the paper's equations; labelled so, never as a published number.

Each gets one of five verdicts:

- ``matches``: the check passes, and it can tell the algorithms apart;
- ``uninformative``: it passes, but so would the alternative it is meant to
  separate from (``against=``: both saturate the link, both drop nothing);
- ``differs-explained``: it fails, and an *ablation* (the same check on runs
  with a named cause removed, computed by the experiment) passes or closes at
  least half of the gap (``EXPLAINED_SHARE``);
- ``differs-unexplained``: it fails, and no ablation closes the gap (a
  suspected cause may be named, and is shown as not proven);
- ``not-computed``: some runs it needs could not be simulated on this machine
  (they need more memory than it has: ``MemoryBudgetError``). What the check
  gives on the runs that were computed is shown, but it is no verdict either
  way: the missing runs could turn it.

Reasons are generated from the cause (words, specific to the check) and the
ablation's numbers; no number in a reason is typed in.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any, Mapping, Optional, Union

__all__ = [
    "Ablation",
    "Check",
    "EXPLAINED_SHARE",
    "VERDICTS",
    "claim",
    "compare",
    "fmt",
    "model",
    "printed_precision",
]

#: The five verdicts, in the order the summaries list them.
VERDICTS = ("matches", "differs-explained", "differs-unexplained", "uninformative", "not-computed")

#: An ablation explains a difference when it passes the check or closes at least this share of the gap.
EXPLAINED_SHARE = 0.5


def fmt(x: Any) -> str:
    """A number as reports print it: 4 significant digits, n/a for NaN."""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "n/a"
        a = abs(x)
        if a != 0 and (a < 1e-3 or a >= 1e6):
            return f"{x:.3g}"
        return f"{x:.4g}"
    return "" if x is None else str(x)


def printed_precision(printed: str) -> float:
    """Half a unit of the last digit of a number as printed: "0.83" -> 0.005, "60" -> 0.5,
    "38.943" -> 0.0005, "1.2e-3" -> 0.00005."""
    try:
        d = Decimal(printed.strip().rstrip("%"))
    except InvalidOperation:
        raise ValueError(f"published: {printed!r} is not a number as printed") from None
    exp = d.as_tuple().exponent
    assert isinstance(exp, int)
    scale = 0.01 if printed.strip().endswith("%") else 1.0
    return 0.5 * 10.0**exp * scale


@dataclass(frozen=True)
class Ablation:
    """The same check on runs with a suspected cause removed."""

    cause: str  #: the cause, in words specific to this check
    change: str  #: what the ablation's runs change ("recovery = \"sack\"")
    measured: Any  #: the check's value on the ablated runs
    holds: bool  #: the check passes on the ablated runs
    closed: float  #: share of the gap closed (1 when it passes; may be negative)

    @property
    def explains(self) -> bool:
        return self.holds or self.closed >= EXPLAINED_SHARE


@dataclass(frozen=True)
class Check:
    """One statement of a paper against cclab's runs, and its verdict (see the module doc)."""

    what: str
    measured: Any
    holds: bool
    published: Any = None
    tolerance: str = ""
    quote: str = ""  #: the paper's words
    section: str = ""  #: where the paper says it ("§4.2, Table 5")
    qualitative: bool = False
    model: bool = False  #: published is cclab's evaluation of one of the paper's equations
    informative: bool = True
    why_uninformative: str = ""
    ablation: Optional[Ablation] = None
    suspect: str = ""  #: a cause suspected but not proven by an ablation
    headline: bool = False  #: one of the paper's central claims (REPRODUCTION.md's headline table)
    #: how far outside its tolerance cclab's value is (numbers), 1/0 (claims); 0 when it passes
    excess: float = 0.0
    #: the runs it needs that were not computed, in words ("" when all were): no verdict either way
    not_computed: str = ""

    @property
    def kind(self) -> str:
        """The verdict: one of ``VERDICTS``."""
        if self.not_computed:
            return "not-computed"
        if self.holds:
            return "matches" if self.informative else "uninformative"
        if self.ablation is not None and self.ablation.explains:
            return "differs-explained"
        return "differs-unexplained"

    @property
    def cause(self) -> str:
        """The cause this difference is put down to (proven by its ablation or only suspected), or ""."""
        if self.holds or self.not_computed:
            return ""
        return self.ablation.cause if self.ablation is not None else self.suspect

    @property
    def effect(self) -> str:
        """What the ablation did to this check (numbers), or that the cause is only suspected."""
        a = self.ablation
        if self.holds or self.not_computed or (a is None and not self.suspect):
            return ""
        if a is None:
            return "suspected, not proven by a run"
        return f"with {a.change}: {fmt(a.measured)}, " + ("passes" if a.holds else f"closes {a.closed:.0%} of the gap")

    @property
    def reason(self) -> str:
        """Why it differs or says nothing: the cause and its effect on this check ("" when no cause is
        known: the verdict differs-unexplained says it all)."""
        if self.not_computed:
            return (f"{self.not_computed}; on the runs computed it " + ("passes" if self.holds else "fails")
                    + ", which the missing runs could turn")
        if self.holds:
            return "" if self.informative else self.why_uninformative
        return f"{self.cause}; {self.effect}" if self.cause else ""

    @property
    def verdict(self) -> str:
        r = self.reason
        return f"{self.kind}: {r}" if r else self.kind

    def explained_by(self, ablated: "Check", cause: str, change: str) -> "Check":
        """This check with ``ablated`` (the same check computed on the runs without ``cause``)
        as its ablation. A check that passes is returned as it is."""
        if self.holds:
            return self
        if ablated.holds:
            closed = 1.0
        elif self.excess > 0 and math.isfinite(self.excess) and math.isfinite(ablated.excess):
            closed = 1.0 - ablated.excess / self.excess
        else:
            closed = 1.0 if ablated.holds else 0.0
        return replace(self, ablation=Ablation(cause, change, ablated.measured, ablated.holds, closed))

    def suspected(self, cause: str) -> "Check":
        """This check with a suspected cause (no ablation): it stays differs-unexplained."""
        return self if self.holds else replace(self, suspect=cause)


Number = Union[float, int, str]


def _published(published: Number, tol: Optional[float]) -> tuple[float, float]:
    """The published value and the paper's precision: from its printed digits when given as a
    string, else ``tol`` (the stated reading precision of a figure), which is then required."""
    if isinstance(published, str):
        value = float(published.strip().rstrip("%")) * (0.01 if published.strip().endswith("%") else 1.0)
        prec = printed_precision(published)
        return value, prec if tol is None else tol
    if tol is None:
        raise ValueError("compare: give the published value as printed (a string) or its reading precision tol=")
    return float(published), float(tol)


def compare(
    what: str,
    published: Number,
    measured: float,
    tol: Optional[float] = None,
    *,
    relative: bool = False,
    spread: float = 0.0,
    quote: str = "",
    section: str = "",
    against: Optional[Mapping[str, float]] = None,
    headline: bool = False,
    reason: str = "",
) -> Check:
    """A published number beside cclab's. Passes when ``|measured - published| <= tol + spread``.

    ``published``: the number as the paper prints it (a string: its precision is half a unit of
    its last digit), or a float read off a figure with ``tol`` its reading precision.
    ``relative``: ``tol`` is a share of the published value. ``spread``: the half-width of the 95 %
    interval of cclab's value over seeds. ``against``: what the alternatives the check is meant to
    separate give (name -> value); if one of them passes too, the check is uninformative.
    ``reason``: a suspected cause (shown as not proven; use ``Check.explained_by`` to prove one)."""
    value, prec = _published(published, tol)
    bound = (prec * abs(value) if relative else prec) + abs(spread)
    ok = (not math.isnan(measured)) and abs(measured - value) <= bound + 1e-12
    excess = 0.0 if ok else (abs(measured - value) - bound if not math.isnan(measured) else math.inf)
    tol_s = f"±{prec:.0%}" if relative else f"±{fmt(prec)}"
    if spread:
        tol_s += f" ±{fmt(abs(spread))} (seeds)"
    informative, why = True, ""
    if ok and against:
        also = {k: v for k, v in against.items() if not math.isnan(v) and abs(v - value) <= bound + 1e-12}
        if also:
            informative = False
            why = "also within tolerance: " + ", ".join(f"{k} {fmt(v)}" for k, v in also.items())
    return Check(what, measured, ok, published=value, tolerance=tol_s, quote=quote, section=section,
                 informative=informative, why_uninformative=why, suspect="" if ok else reason,
                 headline=headline, excess=excess)


def claim(
    what: str,
    holds: bool,
    measured: Any,
    *,
    quote: str = "",
    section: str = "",
    published: Any = "",
    informative: bool = True,
    why_uninformative: str = "",
    headline: bool = False,
    reason: str = "",
    shortfall: Optional[float] = None,
) -> Check:
    """A qualitative statement of the paper (``what``, its words in ``quote``) and whether cclab's
    runs show it; ``measured`` is the evidence in a few words or numbers. ``informative=False``
    (with ``why_uninformative``, computed) when the alternative shows it too. ``shortfall``: how far
    from holding, for a claim over many cells (the cells where it fails), so that an ablation's
    share of the gap closed is counted in cells; default 1 when it fails."""
    if not informative and not why_uninformative:
        raise ValueError(f"claim {what!r}: say why it is uninformative (why_uninformative=)")
    excess = 0.0 if holds else (1.0 if shortfall is None else float(shortfall))
    return Check(what, measured, bool(holds), published=published, quote=quote, section=section, qualitative=True,
                 informative=informative or not holds, why_uninformative=why_uninformative if holds else "",
                 suspect="" if holds else reason, headline=headline, excess=excess)


def model(
    what: str,
    equation: str,
    model_value: float,
    measured: float,
    tol: float,
    *,
    relative: bool = False,
    section: str = "",
    reason: str = "",
) -> Check:
    """cclab's run beside cclab's own evaluation of the paper's ``equation`` (e.g. "eq. (12)"): the
    published column says so. ``tol`` is the model's stated accuracy, not a paper's precision."""
    c = compare(what, float(model_value), measured, tol, relative=relative, section=section, reason=reason)
    return replace(c, model=True, published=f"{fmt(float(model_value))} ({equation}, cclab's evaluation)")


def _clean(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("|", "\\|")).strip()


def causes_of(checks: "list[Check]") -> "dict[str, str]":
    """The distinct causes the checks are put down to, in order, each with its label (a, b, ...)."""
    labels: dict[str, str] = {}
    for c in checks:
        if c.cause and c.cause not in labels:
            labels[c.cause] = chr(ord("a") + len(labels)) if len(labels) < 26 else f"c{len(labels)}"
    return labels


def verdict_cell(c: Check, label: str = "") -> str:
    """A check's verdict for a table: the verdict, and for a difference the label of its cause, which is
    stated once below the table with what removing it did to each check it explains."""
    if c.not_computed:
        return c.verdict
    if c.holds:
        return c.kind if c.informative else f"{c.kind}: {c.why_uninformative}"
    if not c.cause:
        return c.kind
    if c.ablation is None:
        return f"{c.kind} ({label}, suspected)"
    return f"{c.kind} ({label})" if c.ablation.explains else f"{c.kind} ({label}, tried)"


def _effect_on(c: Check) -> str:
    """One check's part of its cause's entry: cclab's value as run -> without the cause (share closed)."""
    a = c.ablation
    assert a is not None
    return f"{c.what} {fmt(c.measured)} → {fmt(a.measured)} ({'passes' if a.holds else f'{a.closed:.0%}'})"


#: The heading of a causes list: what each entry's numbers are, said once.
CAUSES_HEAD = ("Causes of the differences (each: the cause; the ablation the experiment runs without the cause; each "
               "check's value as run → on the ablation's runs, with the share of the gap closed, or passes):")


def causes_list(labels: "dict[str, str]", checks: "list[Check]") -> list[str]:
    """Each cause once: the cause, the ablation that removes it, and for every check it is put down to
    the check's value as run and on the ablation's runs (or, unproven, the checks it is suspected for).
    The numbers live here, in one entry per cause, not in a sentence repeated for every check."""
    out = []
    for cause, label in labels.items():
        mine = [c for c in checks if c.cause == cause]
        proven = [c for c in mine if c.ablation is not None]
        suspected = [c for c in mine if c.ablation is None]
        parts = [f"- ({label}) {cause}."]
        for change in dict.fromkeys(c.ablation.change for c in proven):
            on = [c for c in proven if c.ablation.change == change]
            parts.append(f"Ablation: {change}")
            good = [_effect_on(c) for c in on if c.ablation.explains]
            tried = [_effect_on(c) for c in on if not c.ablation.explains]  # shown where it does not explain
            parts[-1] += (": " + "; ".join(good) + "." if good else ".") + (
                (" It does not explain: " if good else " It explains none: ") + "; ".join(tried) + "." if tried else "")
        if suspected:
            parts.append("Suspected, not proven by a run, for: " + "; ".join(c.what for c in suspected) + ".")
        out.append(" ".join(parts))
    return out


def checks_table(checks: "list[Check]") -> str:
    """The checks as a markdown table: statement (with the paper's words and section), published,
    cclab, tolerance, verdict; then the causes the differences are put down to, each stated once."""
    labels = causes_of(checks)
    lines = ["| what the paper says | published | cclab | tolerance | verdict |", "|---|---|---|---|---|"]
    for c in checks:
        what = c.what
        if c.quote:
            what += f" — “{c.quote}”"
        if c.section:
            what += f" ({c.section})"
        cells = [what, fmt(c.published), fmt(c.measured), c.tolerance or "—", verdict_cell(c, labels.get(c.cause, ""))]
        lines.append("| " + " | ".join(_clean(s) for s in cells) + " |")
    if labels:
        lines += ["", CAUSES_HEAD, ""] + [re.sub(r"\s+", " ", x) for x in causes_list(labels, checks)]
    return "\n".join(lines)
