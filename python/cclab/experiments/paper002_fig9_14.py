"""Paper 002 (Kyushu-TCP), Figs. 9-11: window traces (Fig. 9), two high-speed flows against 20 SACK
flows (Figs. 10-11, with the variants of ``paper002.VARIANTS``); Figs. 12-14 are in
``paper002_fig12_14``. Set-up and helpers: ``paper002``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Tuple

import numpy as np
import pandas as pd

from . import register
from .base import Experiment, Report, Run, claim
from .common import figure
from .paper002 import (
    BUFFER,
    CONFIGS,
    DEFAULT_VARIANT,
    DUR_FULL,
    K9,
    PKT,
    RATE_BPS,
    SACK,
    SEEDS_QUICK,
    SETUP,
    VARIANTS,
    _at,
    _dax,
    _ds,
    _fmt,
    _full_form,
    _gain,
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


@register
class Fig9(Experiment):
    paper = "002"
    name = "fig9"
    title = "cwnd over time at d = 50 ms: total of 20 SACK flows (a), HSTCP or HSTCP+KTCP alpha = 0.90 (b)"
    assumptions = SETUP + [
        "Three runs each (seeds 1-3; the figure shows seed 1, the checks hold in every seed or fail), 300 s "
        "(quick: 120 s), windows sampled every 0.5 s; the bound is "
        "BDP + buffer = 1 Gbit/s x 112 ms / 1500 B + 200 = 9533 packets.",
    ]
    D = 50

    def runs(self, quick: bool) -> List[Run]:
        dur = 120 if quick else DUR_FULL
        runs = []
        for c in ("HSTCP", K9):
            cc, alpha = CONFIGS[c]
            sc = _scenario([_group("x", cc, 1, alpha), _group("sack", SACK, 20)], self.D, dur, "500ms")
            for seed in range(1, SEEDS_QUICK + 1):  # seed 1 keeps its earlier key
                runs.append(Run(c if seed == 1 else f"{c},s={seed}", sc, seed, {"config": c, "seed": seed}))
        return runs

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        fs = res.flow_series
        x = fs[fs.flow == 0].set_index("time_s").cwnd
        s = fs[fs.flow > 0].groupby("time_s").cwnd.sum()
        ser = pd.DataFrame({"time_s": x.index, "hs_cwnd": x.to_numpy(), "sack_cwnd": s.reindex(x.index).to_numpy()})
        out = _keep(res)
        out["series"] = ser
        return out

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        ser_all = data["series"]
        ser = ser_all[ser_all.seed == 1]
        bound = RATE_BPS * 2 * (self.D + 6) / 1e3 / (8 * PKT) + BUFFER
        fig, axes = figure(2, 1, height=2.8)
        for c, lab in (("HSTCP", "against HSTCP"), (K9, "against HSTCP+KTCP (alpha = 0.90)")):
            s = ser[ser.config == c]
            axes[0].plot(s.time_s, s.sack_cwnd, lw=0.8, label=lab)
            axes[1].plot(s.time_s, s.hs_cwnd, lw=0.8, label=c)
        for ax in axes:
            ax.axhline(bound, ls="--", c="k", lw=0.8, label="BDP + buffer")
            ax.set_ylabel("cwnd (packets)")
            ax.legend(fontsize=7, loc="upper left")
        axes[0].set_title("Fig. 9(a): total cwnd of 20 SACK flows (d = 50 ms)", fontsize=9)
        axes[1].set_title("Fig. 9(b): cwnd of HSTCP / HSTCP+KTCP", fontsize=9)
        axes[1].set_xlabel("time (s)")
        t0 = 30.0
        late = ser_all[ser_all.time_s > t0]
        m = late.groupby(["config", "seed"])[["hs_cwnd", "sack_cwnd"]].mean()
        seeds = sorted(late.seed.unique())
        # Non-aggressive periods: the sampled window does not move between two samples.
        flat: Dict[Tuple[str, int], float] = {}
        for (c, s), g in late.groupby(["config", "seed"]):
            w = g.sort_values("time_s").hs_cwnd.to_numpy()
            flat[(c, s)] = float(np.mean(np.abs(np.diff(w)) < 1e-6)) if w.size > 1 else float("nan")
        per = lambda f: ", ".join(f(s) for s in seeds)  # noqa: E731
        q9 = ("In Fig. 9(b), after both HSTCP+KTCP and SACK start the congestion avoidance phase, HSTCP+KTCP "
              "enters the non-aggressive period. Then, KTCP lengthens the non-aggressive period every time "
              "packet drops occur. Based on this behavior, KTCP restrains the aggressive increase of cwnd in "
              "HSTCP. Therefore, SACKs can increase their cwnd sufficiently")
        checks = [
            claim("HSTCP+KTCP holds its window flat for stretches (non-aggressive periods): unchanged between "
                  "more than 5% of successive 0.5 s samples, plain HSTCP in under 1%, in every seed",
                  all(flat[(K9, s)] > 0.05 and flat[("HSTCP", s)] < 0.01 for s in seeds),
                  f"flat samples after {t0:.0f} s, KTCP/HSTCP by seed: "
                  + per(lambda s: f"{flat[(K9, s)]:.2f}/{flat[('HSTCP', s)]:.2f}"),
                  quote=q9, section="§5.1.1, Fig. 9(b)"),
            claim("the SACK flows' total window is larger against HSTCP+KTCP than against HSTCP, in every seed",
                  all(m.loc[(K9, s), "sack_cwnd"] > m.loc[("HSTCP", s), "sack_cwnd"] for s in seeds),
                  f"mean after {t0:.0f} s by seed: "
                  + per(lambda s: f"{m.loc[(K9, s), 'sack_cwnd']:.0f} vs {m.loc[('HSTCP', s), 'sack_cwnd']:.0f}")
                  + " pkts", quote=q9, section="§5.1.1, Fig. 9(a)"),
            claim("HSTCP+KTCP's window stays below plain HSTCP's on average, in every seed",
                  all(m.loc[(K9, s), "hs_cwnd"] < m.loc[("HSTCP", s), "hs_cwnd"] for s in seeds),
                  f"mean after {t0:.0f} s by seed: "
                  + per(lambda s: f"{m.loc[(K9, s), 'hs_cwnd']:.0f} vs {m.loc[('HSTCP', s), 'hs_cwnd']:.0f}")
                  + " pkts", quote=q9, section="§5.1.1, Fig. 9(b)"),
        ]
        return Report(figures={"fig9": fig}, checks=checks)


Q11 = ("When the parameter α is 0.80 or 0.90, the normalized throughput becomes high compared with that of SACK "
       "flows competing with original HSTCP flows")
Q10 = ("From Fig. 10(a), each original HSTCP flow attains a high throughput, whereas SACK flows attain a poor "
       "throughput")
Q10B = "However, in Fig. 10(b), SACK flows improve in throughput over a wide range of d"
#: Figs. 10-11 under the other variants: the Fig. 11 claim at the short delays, three seeds.
SEEDS_VAR11 = 3


@register
class Fig10to11(Experiment):
    paper = "002"
    name = "fig10-11"
    title = ("Two HSTCP or HSTCP+KTCP flows against 20 SACK flows over d: throughput (Fig. 10) and "
             "normalized throughput of the SACK flows (Fig. 11)")
    assumptions = SETUP + [
        "alpha = 0.80 and 0.90 (the two the text discusses; quick form: 0.90 only). The baseline of "
        "Fig. 11 replaces the two high-speed flows by two more SACK flows (22 in all).",
        f"Variants (send jitter on or off, T_c unbounded or capped, as in fig6-8): the default's runs are the "
        f"full form's; the others run HSTCP, alpha = 0.90 and the baseline at d = 10 and 50 ms with "
        f"{SEEDS_VAR11} seeds (quick: d = 10 ms), enough for the Fig. 11 claim.",
        _full_form(),
    ]

    def configs(self, quick: bool) -> List[str]:
        return ["HSTCP", K9, "SACK"] if quick else ["HSTCP", "HSTCP+KTCP a=0.80", K9, "SACK"]

    def runs(self, quick: bool) -> List[Run]:
        ds, seeds, dur = _ds(quick)
        runs = _sweep(self.configs(quick), 2, 20, ds, seeds, dur)
        vds = (10,) if quick else (10, 50)
        for name, (jitter, tc_max) in VARIANTS.items():
            if name != DEFAULT_VARIANT:
                runs += _sweep(["HSTCP", K9, "SACK"], 2, 20, vds, SEEDS_VAR11, dur, jitter, tc_max)
        return runs

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    @staticmethod
    def _checks(data: Mapping[str, pd.DataFrame], quick: bool) -> Dict[str, Check]:
        df = _per_run(data)
        ns = _normalized_sack(df)
        st_ns = _stat(ns, "norm_sack")
        nsk, nsh = _at(st_ns, K9), _at(st_ns, "HSTCP")
        ds = sorted(df.d_ms.unique())
        short = _short(ds, quick)
        where = "d = 10 ms" if quick else "d <= 50 ms"
        gains = {d: _gain(ns[ns.config == K9], ns[ns.config == "HSTCP"], "norm_sack", d) for d in short}
        out = {"sack_up": claim(
            "two HSTCP+KTCP flows (alpha = 0.90) leave the SACK flows a higher normalized throughput than two "
            f"HSTCP flows at {where}, by more than the seeds' spread (Fig. 11)",
            all(g > ci for g, ci in gains.values()),
            "; ".join(f"{d} ms: {nsk[d]:.3f} vs {nsh[d]:.3f} (gain {g:+.3f} ± {ci:.3f})" for d, (g, ci) in gains.items()),
            quote=Q11, section="§5.1.2, Fig. 11", headline=True)}
        if 50 in ds:
            x0, x1, s = (_at(_stat(df, col), "HSTCP")[50] for col in ("x0", "x1", "sack"))
            out["hs"] = claim("each plain HSTCP flow gets more than twice what a SACK flow gets on average at "
                              "d = 50 ms (Fig. 10(a))", min(x0, x1) > 2 * s / 20,
                              f"HSTCP flows {x0:.0f}, {x1:.0f}; 20 SACK {s:.0f} Mbit/s", quote=Q10,
                              section="§5.1.2, Fig. 10(a)")
        if "HSTCP+KTCP a=0.80" in set(df.config):
            n8 = _at(st_ns, "HSTCP+KTCP a=0.80")
            out["a08"] = claim("alpha = 0.80 too raises the SACK flows' normalized throughput over HSTCP's "
                               f"at {where} (Fig. 11)", all(n8[d] > nsh[d] for d in short),
                               f"alpha 0.80 {_fmt(n8)}; HSTCP {_fmt(nsh)}", quote=Q11, section="§5.1.2, Fig. 11")
        if 200 in ds:
            idle = _ktcp_idle(df, 200, ["HSTCP+KTCP a=0.80", K9], ["x0", "x1", "sack"])
            out["long"] = claim(
                "at d = 200 ms too, KTCP (alpha = 0.90) leaves the SACK flows at least as much (Fig. 10(b): 'over a "
                "wide range of d')", nsk[200] >= nsh[200], f"{nsk[200]:.3f} vs {nsh[200]:.3f}", quote=Q10B,
                section="§5.1.2, Fig. 10(b)", informative=not idle,
                why_uninformative="two KTCP flows never entered their non-aggressive period at d = 200 ms (alpha = "
                "0.80 and 0.90 give the same throughputs in every seed), so two HSTCP flows are compared with "
                "themselves" if idle else "")
        return out

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        vds = (10,) if quick else (10, 50)
        per = {}
        for name, (jitter, tc_max) in VARIANTS.items():
            sel = (_select(data, jitter, tc_max) if name == DEFAULT_VARIANT
                   else _select(data, jitter, tc_max, SEEDS_VAR11, vds))
            per[name] = self._checks(sel, quick)
        variants = variants_of(per)
        held = ", ".join(n for n, c in per.items() if c["sack_up"].holds) or "none"
        data = _select(data, *VARIANTS[DEFAULT_VARIANT])
        df = _per_run(data)
        ns = _normalized_sack(df)
        st_s, st_ns = _stat(df, "sack"), _stat(ns, "norm_sack")
        st0, st1 = _stat(df, "x0"), _stat(df, "x1")
        fig10, axes = figure(1, 2, width=4.6, height=3.4)
        for ax, c, lab in ((axes[0], "HSTCP", "(a) HSTCP"), (axes[1], K9, "(b) HSTCP+KTCP, alpha = 0.90")):
            _line(ax, st0, c, "high-speed flow 1", "o-")
            _line(ax, st1, c, "high-speed flow 2", "^-")
            _line(ax, st_s, c, "20 SACK flows (total)", "s--")
            ax.set_title(lab, fontsize=9)
            ax.set_ylim(0, 1000)
            _dax(ax, "throughput (Mbit/s)")
            ax.legend(fontsize=7)
        fig10.suptitle("Fig. 10: two high-speed flows and 20 SACK flows", fontsize=9)
        fig11, (ax11,) = figure(width=6.4, height=3.6)
        hs_cfgs = [c for c in self.configs(quick) if c != "SACK"]
        for c in hs_cfgs:
            _line(ax11, st_ns, c)
        ax11.axhline(1.0, ls=":", c="k", lw=0.8)
        ax11.set_ylim(0, 1.2)
        _dax(ax11, "normalized throughput of SACK flows")
        ax11.legend(fontsize=8)
        ax11.set_title("Fig. 11: 20 SACK flows against two HSTCP(+KTCP) / against 2 more SACK flows", fontsize=9)
        md = _table({"HS flow 1 (Mbit/s)": st0, "HS flow 2 (Mbit/s)": st1, "20 SACK (Mbit/s)": st_s,
                     "SACK normalized (Fig. 11)": st_ns}, self.configs(quick))
        return Report(figures={"fig10": fig10, "fig11": fig11}, checks=next(v for v in variants if v.default).checks, markdown=md,
                      variants=variants, notes=[f"The Fig. 11 claim holds in the variants: {held}."])
