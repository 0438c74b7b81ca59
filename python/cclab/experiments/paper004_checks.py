"""Paper 004, Tables 1-6: the checks (per cell, the two headlines) and the variants of the open
choices. The experiments themselves are in paper004_tables.py.

Cells are (variant, queue, case, delay); ``cells`` is the frame of their means over the seeds and
the half-widths of the 95 % intervals (``*_ci``), built by ``cell_frame``.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import pandas as pd

from .base import Check, Variant, claim, compare
from .common import mean_ci

#: HSTCP case <-> gHSTCP case of the same queue (the protocol the per-cell checks are meant to separate from).
ALT: Dict[int, int] = {2: 5, 3: 6, 4: 7}
for _first in (8, 14, 20, 26):
    for _i in range(3):
        ALT[_first + _i] = _first + _i + 3
ALT.update({g: h for h, g in list(ALT.items())})

#: Table -> (section, the paper's caption) for the per-cell numbers.
SOURCE = {
    1: ("§3.1, Table 1", "Performance of HSTCP with DropTail"),
    2: ("§3.3, Table 2", "Performance of gHSTCP with DropTail"),
    3: ("§3.3, Table 3", "Performance of HSTCP/gHSTCP with RED (max_p = 0.1)"),
    4: ("§3.3, Table 4", "Performance of HSTCP/gHSTCP with RED (max_p = 0.001)"),
    5: ("§4.2, Table 5", "Performance Comparison of HSTCP/gHSTCP with ARED"),
    6: ("§4.4, Table 6", "Performance Comparison of HSTCP/gHSTCP with gARED"),
}

#: Table 3, case 10, 100 ms: the printed utilization is taken for a misprint (see ``misprint``).
MISPRINT = (3, 10, 100)

FAIRER_QUOTE = ("The simulation results show that gHSTCP can achieve both higher throughput and better fairness "
                "than HSTCP.")
GARED_QUOTE = "Table 6 shows the utilization is improved under gARED deployed."


def cell_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """Means over the seeds per (variant, queue, case, delay) and the 95 % half-widths."""
    keys = ["variant", "queue", "case", "delay_ms"]
    g = runs.groupby(keys)
    d = g.agg(s1_mbps=("s1_mbps", "mean"), s2_mbps=("s2_mbps", "mean"), utilization_pct=("utilization_pct", "mean"),
              fairness=("fairness", "mean"), timeouts=("timeouts", "mean"), early=("early_drops", "mean"),
              overflow=("overflow_drops", "mean"), n=("seed", "size"))
    d["util_ci"] = [mean_ci(x.utilization_pct)[1] for _, x in g]
    d["fair_ci"] = [mean_ci(x.fairness)[1] for _, x in g]
    d["total_ci"] = [mean_ci(x.total_mbps)[1] for _, x in g]
    return d


def _get(d: pd.DataFrame, v: str, q: str, c: int, dl: int) -> Optional[pd.Series]:
    return d.loc[(v, q, c, dl)] if (v, q, c, dl) in d.index else None


def cell_checks(table: int, cases: Sequence[Tuple[int, str, str, Dict[int, Tuple[str, str, str]]]], d: pd.DataFrame,
                variant: str, queue: str) -> List[Check]:
    """Utilization and fairness of every cell of a table under one variant, each against the
    alternative protocol's value in the same queue/delay cell (HSTCP vs gHSTCP)."""
    section, caption = SOURCE[table]
    out = []
    for c, s1, s2, pub in cases:
        for dl, (_, pu, pf) in pub.items():
            r = _get(d, variant, queue, c, dl)
            if r is None:
                continue
            alt = _get(d, variant, queue, ALT[c], dl) if c in ALT else None
            alt_name = f"case {ALT[c]}" if c in ALT else ""
            head = f"case {c} ({s1} / {s2}), {dl} ms"
            if (table, c, dl) == MISPRINT:
                out.append(misprint(head, pu, float(r.utilization_pct), section))
            else:
                out.append(compare(f"{head}: utilization %", pu, float(r.utilization_pct), spread=float(r.util_ci),
                                   quote=caption, section=section,
                                   against={alt_name: float(alt.utilization_pct)} if alt is not None else None))
            out.append(compare(f"{head}: fairness", pf, float(r.fairness), spread=float(r.fair_ci), quote=caption,
                               section=section,
                               against={alt_name: float(alt.fairness)} if alt is not None else None))
    return out


def misprint(head: str, printed: str, measured: float, section: str) -> Check:
    """Table 3, case 10 at 100 ms prints 38.943 %, beside 88.831 and 89.124 % for cases 9 and 12
    at 100 ms: kept in the report, not compared."""
    from .paper004_tables import TABLES

    row = {c: p for c, _, _, p in TABLES[3][3]}
    n9, n12 = row[9][100][1], row[12][100][1]
    return claim(f"{head}: utilization % (not compared: printed value out of line)", True, measured,
                 published=printed, section=section, informative=False,
                 why_uninformative=(f"the paper prints {printed} here but {n9} and {n12} for cases 9 and 12 "
                                    f"at the same delay and queue, and a total throughput {float(n9) / float(printed):.2f} times "
                                    f"lower would not leave its fairness ({row[10][100][2]}) between theirs"))


def with_ablations(checks: List[Check], ablated: List[Check], cause: str, change: str) -> List[Check]:
    """Each failing check with the same check on the ablation variant's runs as its ablation."""
    by = {c.what: c for c in ablated}
    return [c.explained_by(by[c.what], cause, change) if not c.holds and c.what in by else c
            for c in checks]


def fairer(table: int, pairs: Sequence[Tuple[int, int]], cases: Dict[int, Dict[int, Tuple[str, str, str]]],
           d: pd.DataFrame, variant: str, queue: str) -> List[Check]:
    """'gHSTCP is fairer than HSTCP': one check per (HSTCP case, gHSTCP case, delay) cell, then one
    headline counting the cells where cclab shows it against those where the paper does."""
    section = SOURCE[table][0] + "; §1"
    per, shown, paper_shown = [], [], []
    for h, g in pairs:
        for dl in sorted(cases[g]):
            rh, rg = _get(d, variant, queue, h, dl), _get(d, variant, queue, g, dl)
            if rh is None or rg is None:
                continue
            ph, pg = cases[h][dl][2], cases[g][dl][2]
            pub = float(pg) > float(ph)
            ok = float(rg.fairness) > float(rh.fairness)
            shown.append(ok)
            paper_shown.append(pub)
            if not pub:  # the paper itself does not show gHSTCP fairer in this cell: nothing to check there
                continue
            per.append(claim(f"case {g} (gHSTCP) fairer than case {h} (HSTCP), {dl} ms", ok,
                             f"{float(rh.fairness):.3f} ± {float(rh.fair_ci):.3f} -> "
                             f"{float(rg.fairness):.3f} ± {float(rg.fair_ci):.3f}",
                             quote=FAIRER_QUOTE, section=section, published=f"{ph} -> {pg}"))
    if not per:
        return []
    agree = all(s for s, p in zip(shown, paper_shown) if p)
    head = claim(f"gHSTCP is fairer than HSTCP ({SOURCE[table][0].split(', ')[1]}: cells where it is)", agree,
                 f"{sum(shown)} of {len(shown)} cells (paper: {sum(paper_shown)} of {len(paper_shown)})",
                 quote=FAIRER_QUOTE, section=section, headline=True,
                 shortfall=sum(1 for s, p in zip(shown, paper_shown) if p and not s))
    return [head] + per


def gared_vs_ared(cases: Sequence[int], delays: Sequence[int], d: pd.DataFrame, gared: str, ared: str,
                  published: Dict[Tuple[int, int], Tuple[str, str]]) -> List[Check]:
    """'gARED gives higher utilization than ARED': Table 6's case c against Table 5's case c - 6,
    per cell, and one headline counting the cells. ``published``: (case, delay) -> (ARED's, gARED's)
    printed utilization."""
    per, shown = [], []
    for c in cases:
        for dl in delays:
            rg, ra = _get(d, gared, "gared", c, dl), _get(d, ared, "ared", c - 6, dl)
            if rg is None or ra is None:
                continue
            ok = float(rg.utilization_pct) > float(ra.utilization_pct)
            shown.append(ok)
            pa, pg = published[(c, dl)]
            per.append(claim(
                f"gARED (case {c}) gives higher utilization than ARED (case {c - 6}), {dl} ms", ok,
                f"{float(ra.utilization_pct):.2f} ± {float(ra.util_ci):.2f} -> "
                f"{float(rg.utilization_pct):.2f} ± {float(rg.util_ci):.2f} %",
                quote=GARED_QUOTE, section="§4.4, Tables 5 and 6", published=f"{pa} -> {pg} %"))
    if not per:
        return []
    n_pub = sum(float(g) > float(a) for a, g in published.values())
    head = claim("gARED gives higher utilization than ARED (Table 6 against Table 5, every case and delay)",
                 all(shown), f"{sum(shown)} of {len(shown)} cells (paper: {n_pub} of {len(published)})",
                 quote=GARED_QUOTE, section="§4.4, Tables 5 and 6", headline=True,
                 shortfall=len(shown) - sum(shown))
    return [head] + per


def variant(name: str, description: str, checks: List[Check], default: bool, why: str = "") -> Variant:
    return Variant(name, description, checks, default=default, why=why)


__all__ = ["ALT", "SOURCE", "cell_frame", "cell_checks", "fairer", "gared_vs_ared", "with_ablations",
           "variant", "misprint"]
