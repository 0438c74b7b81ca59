"""Paper 002 (Kyushu-TCP), Figs. 12-14: one high-speed flow against one SACK flow (Fig. 12), and two
high-speed flows alone (Figs. 13-14), each under the variants of ``paper002.VARIANTS`` (send jitter,
bound on T_c). Set-up and helpers: ``paper002``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

import pandas as pd

from . import register
from .base import Experiment, Report, Run, claim
from .common import figure
from .paper002 import (
    DEFAULT_VARIANT,
    K9,
    SETUP,
    VARIANTS,
    _at,
    _dax,
    _ds,
    _fmt,
    _full_form,
    _group,
    _keep,
    _ktcp_idle,
    _line,
    _normalized_sack,
    _per_run,
    _scenario,
    _select,
    _short,
    _stat,
    _sweep,
    _table,
)
from .paper002_fig6_8 import variants_of
from .verdicts import Check

Q12_HS = ("From Fig. 12, KTCP can improve fairness of HSTCP as similar to the case where HSTCP flows compete "
          "with multiple SACK flows")
Q12_CUBIC = "Moreover, KTCP can improve fairness of CUBIC in a wide range of d"
Q12_SHORT = "In particular, the improvement of fairness becomes larger in shorter link delay time"
Q13 = ("When KTCP is applied to HSTCP, the total throughput performance can be improved as compared with HSTCP "
       "flows without KTCP in a wide range of d")
Q14 = "KTCP can prevent a burst of packet drops over a wide range of d"

#: The other variants run at these delays with this many seeds (quick form: d = 10 ms): enough for
#: the short-d claims, which are the ones the settings move.
SEEDS_VAR = 3


def _vds(quick: bool) -> Sequence[int]:
    return (10,) if quick else (10, 50)


@register
class Fig12(Experiment):
    paper = "002"
    name = "fig12"
    title = ("Normalized throughput of one SACK flow against one HSTCP, CUBIC, HSTCP+KTCP or CUBIC+KTCP "
             "flow (alpha = 0.90), over d")
    assumptions = SETUP + [
        "Two flows on the bottleneck: the high-speed flow and one SACK flow; the baseline is two SACK "
        "flows. Normalized throughput divides the SACK flow's throughput by the baseline's mean at that d "
        "(the baseline's second flow, the one in the SACK flow's place).",
        f"Variants (send jitter on or off, T_c unbounded or capped, as in fig6-8): the default's runs are the "
        f"full form's; the others run every configuration at d = 10 and 50 ms with {SEEDS_VAR} seeds (quick: "
        "d = 10 ms), enough for the short-d claims.",
        _full_form(),
    ]
    CFGS = ["HSTCP", K9, "CUBIC", "CUBIC+KTCP a=0.90", "SACK"]

    def runs(self, quick: bool) -> List[Run]:
        ds, seeds, dur = _ds(quick)
        runs = _sweep(self.CFGS, 1, 1, ds, seeds, dur)
        for name, (jitter, tc_max) in VARIANTS.items():
            if name != DEFAULT_VARIANT:
                runs += _sweep(self.CFGS, 1, 1, _vds(quick), SEEDS_VAR, dur, jitter, tc_max)
        return runs

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    def _checks(self, data: Mapping[str, pd.DataFrame], quick: bool) -> Dict[str, Check]:
        ns = _normalized_sack(_per_run(dict(data)))
        st_ns = _stat(ns, "norm_sack")
        n = {c: _at(st_ns, c) for c in self.CFGS[:-1]}
        short = _short(n["HSTCP"], quick)
        where = "d = 10 ms" if quick else "d <= 50 ms"
        out = {"hs": claim(f"KTCP raises the SACK flow's normalized throughput against HSTCP at {where}",
                           all(n[K9][d] > n["HSTCP"][d] for d in short),
                           f"KTCP {_fmt(n[K9])}; HSTCP {_fmt(n['HSTCP'])}", quote=Q12_HS, section="§5.1.3, Fig. 12")}
        ck, cu = n["CUBIC+KTCP a=0.90"], n["CUBIC"]
        if quick:
            out["cubic"] = claim("KTCP does not lower the SACK flow's normalized throughput against CUBIC at "
                                 "d = 10 ms (quick form: 60 s are too short for CUBIC's periods to grow)",
                                 ck[10] >= cu[10] - 0.01, f"{ck[10]:.3f} vs {cu[10]:.3f}",
                                 quote=Q12_CUBIC, section="§5.1.3, Fig. 12")
            return out
        out["cubic"] = claim("KTCP raises the SACK flow's normalized throughput against CUBIC at d <= 50 ms",
                             all(ck[d] > cu[d] for d in short), f"KTCP {_fmt(ck)}; CUBIC {_fmt(cu)}",
                             quote=Q12_CUBIC, section="§5.1.3, Fig. 12")
        if 200 in cu:  # the default's full form only: the other variants stop at 50 ms
            gain = {d: ck[d] - cu[d] for d in cu}
            ds = sorted(gain)
            out["short"] = claim("the improvement for CUBIC is larger at the shortest d than at the longest",
                                 gain[ds[0]] > gain[ds[-1]], "gain " + _fmt(gain), quote=Q12_SHORT,
                                 section="§5.1.3, Fig. 12", reason=self._spread_reason(st_ns, ds[-1]))
        return out

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        per = {name: self._checks(_select(data, j, t) if name == DEFAULT_VARIANT
                                  else _select(data, j, t, SEEDS_VAR, _vds(quick)), quick)
               for name, (j, t) in VARIANTS.items()}
        variants = variants_of(per)
        checks = next(v for v in variants if v.default).checks
        data = _select(data, *VARIANTS[DEFAULT_VARIANT])
        df = _per_run(data)
        ns = _normalized_sack(df)
        st_ns, st_x, st_s = _stat(ns, "norm_sack"), _stat(df, "x"), _stat(df, "sack")
        fig, (ax,) = figure(width=6.4, height=3.6)
        for c in self.CFGS[:-1]:
            _line(ax, st_ns, c)
        ax.axhline(1.0, ls=":", c="k", lw=0.8)
        _dax(ax, "normalized throughput of a SACK flow")
        ax.set_ylim(0, 1.3)
        ax.legend(fontsize=8)
        ax.set_title("Fig. 12: one SACK flow against one high-speed flow / against another SACK flow",
                     fontsize=9)
        md = _table({"normalized SACK (Fig. 12)": st_ns, "high-speed flow (Mbit/s)": st_x,
                     "SACK flow (Mbit/s)": st_s}, self.CFGS)
        return Report(figures={"fig12": fig}, checks=checks, markdown=md, variants=variants)

    @staticmethod
    def _spread_reason(st_ns: pd.DataFrame, d: int) -> str:
        ci = st_ns[(st_ns.d_ms == d) & st_ns.config.isin(["CUBIC", "CUBIC+KTCP a=0.90"])].set_index("config").ci
        return (f"at d = {d} ms the SACK flow's normalized throughput against CUBIC spreads widely over the seeds "
                f"(95% intervals ±{ci['CUBIC']:.2f} without KTCP, ±{ci['CUBIC+KTCP a=0.90']:.2f} with), so the "
                "gains at the two ends may not differ at all")


@register
class Fig13to14(Experiment):
    paper = "002"
    name = "fig13-14"
    title = ("Two high-speed flows without SACK flows: HSTCP + HSTCP, HSTCP + HSTCP+KTCP, HSTCP+KTCP x 2 "
             "(alpha = 0.90): total throughput (Fig. 13) and packet drops (Fig. 14), over d")
    assumptions = SETUP + [
        "Packet drops are the bottleneck queue's over the whole run (the paper: 'total number of packet "
        "drops obtained by two flows').",
        f"Variants (send jitter on or off, T_c unbounded or capped, as in fig6-8): the default's runs are the "
        f"full form's; the others run every pair at d = 10 and 50 ms with {SEEDS_VAR} seeds (quick: d = 10 ms); "
        "with T_c capped only the pairs with KTCP run again.",
        _full_form(),
    ]
    CFGS = ("HSTCP x 2", "HSTCP + HSTCP+KTCP", "HSTCP+KTCP x 2")
    PAIRS = {"HSTCP x 2": (("highspeed", 0.0), ("highspeed", 0.0)),
             "HSTCP + HSTCP+KTCP": (("highspeed", 0.0), ("highspeed+ktcp", 0.9)),
             "HSTCP+KTCP x 2": (("highspeed+ktcp", 0.9), ("highspeed+ktcp", 0.9))}

    def _pairs(self, ds: Sequence[int], seeds: int, dur: int, jitter: bool = True, tc_max: int = 0) -> List[Run]:
        """One run per (pair, d, seed); runs off the default settings get a key suffix, and with a
        bound on T_c only the pairs with KTCP run (plain HSTCP's scenario does not change)."""
        tag = ("" if jitter else ",nojit") + (f",tc<={tc_max}" if tc_max else "")
        runs = []
        for c in self.CFGS:
            (c1, a1), (c2, a2) = self.PAIRS[c]
            if tc_max and c == "HSTCP x 2":
                continue
            for d in ds:
                for seed in range(1, seeds + 1):
                    sc = _scenario([_group("x", c1, 1, a1, jitter, tc_max), _group("y", c2, 1, a2, jitter, tc_max)],
                                   d, dur)
                    runs.append(Run(f"{c},d={d},s={seed}{tag}", sc, seed,
                                    {"config": c, "d_ms": d, "seed": seed, "jitter": jitter, "tc_max": tc_max}))
        return runs

    def runs(self, quick: bool) -> List[Run]:
        ds, seeds, dur = _ds(quick)
        runs = self._pairs(ds, seeds, dur)
        for name, (jitter, tc_max) in VARIANTS.items():
            if name != DEFAULT_VARIANT:
                runs += self._pairs(_vds(quick), SEEDS_VAR, dur, jitter, tc_max)
        return runs

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    @staticmethod
    def _frame(data: Mapping[str, pd.DataFrame], jitter: bool, tc_max: int, seeds: Optional[int] = None,
               ds: Optional[Sequence[int]] = None) -> pd.DataFrame:
        """Per run of one variant: total throughput (Mbit/s) and bottleneck drops; plain HSTCP's
        runs are shared by both bounds on T_c."""
        def pick(df: pd.DataFrame) -> pd.DataFrame:
            m = (df.jitter.astype(bool) == jitter) & ((df.tc_max == tc_max) | (df.config == "HSTCP x 2"))
            if seeds is not None:
                m &= (df.seed <= seeds) & df.d_ms.isin(list(ds or ()))
            return df[m]
        f, s = pick(data["flows"]), pick(data["summary"]).set_index(["config", "d_ms", "seed"])
        tot = f.groupby(["config", "d_ms", "seed"]).goodput_bps.sum() / 1e6
        return pd.DataFrame({"total": tot, "drops": s.bottleneck_drops}).reset_index()

    def _checks(self, df: pd.DataFrame, quick: bool) -> Dict[str, Check]:
        st_t, st_d = _stat(df, "total"), _stat(df, "drops")
        tk, th = _at(st_t, "HSTCP+KTCP x 2"), _at(st_t, "HSTCP x 2")
        dk, dh = _at(st_d, "HSTCP+KTCP x 2"), _at(st_d, "HSTCP x 2")
        short = _short(dk, quick)
        where = "d = 10 ms" if quick else "d <= 50 ms"
        out = {
            "drops": claim(f"two HSTCP+KTCP flows drop fewer packets than two HSTCP flows at {where} (Fig. 14)",
                           all(dk[d] < dh[d] for d in short), f"KTCP {_fmt(dk)}; HSTCP {_fmt(dh)}",
                           quote=Q14, section="§5.2, Fig. 14"),
            "total": claim(f"two HSTCP+KTCP flows get a higher total throughput than two HSTCP flows at {where} "
                           "(Fig. 13)", all(tk[d] > th[d] for d in short), f"KTCP {_fmt(tk)}; HSTCP {_fmt(th)} Mbit/s",
                           quote=Q13, section="§5.2, Fig. 13"),
        }
        if 200 in dk:  # the default's full form only
            idle = _ktcp_idle(df, 200, ["HSTCP x 2", "HSTCP+KTCP x 2"], ["total", "drops"])
            out["long"] = claim("at d = 200 ms too, two HSTCP+KTCP flows drop no more and get no less than two "
                                "HSTCP flows", dk[200] <= dh[200] and tk[200] >= th[200],
                                f"drops {dk[200]:.0f} vs {dh[200]:.0f}; {tk[200]:.0f} vs {th[200]:.0f} Mbit/s",
                                quote=Q14, section="§5.2, Figs. 13-14", informative=not idle,
                                why_uninformative="KTCP never entered its non-aggressive period at d = 200 ms (two "
                                "HSTCP+KTCP flows give two HSTCP flows' throughput and drops in every seed), so "
                                "this compares HSTCP with itself" if idle else "")
        return out

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        per = {name: self._checks(self._frame(data, j, t) if name == DEFAULT_VARIANT
                                  else self._frame(data, j, t, SEEDS_VAR, _vds(quick)), quick)
               for name, (j, t) in VARIANTS.items()}
        variants = variants_of(per)
        checks = next(v for v in variants if v.default).checks
        df = self._frame(data, *VARIANTS[DEFAULT_VARIANT])
        st_t, st_d = _stat(df, "total"), _stat(df, "drops")
        fig, axes = figure(1, 2, width=4.6, height=3.4)
        sty = dict(zip(self.CFGS, ("o-", "^-", "s-")))
        for c in self.CFGS:
            _line(axes[0], st_t, c, style=sty[c])
            _line(axes[1], st_d, c, style=sty[c])
        _dax(axes[0], "total throughput (Mbit/s)")
        _dax(axes[1], "packet drops")
        axes[0].set_title("Fig. 13: total throughput of two flows", fontsize=9)
        axes[1].set_title("Fig. 14: number of packet drops", fontsize=9)
        axes[0].legend(fontsize=7)
        md = _table({"total throughput (Mbit/s)": st_t, "packet drops": st_d}, list(self.CFGS))
        return Report(figures={"fig13-14": fig}, checks=checks, markdown=md, variants=variants)
