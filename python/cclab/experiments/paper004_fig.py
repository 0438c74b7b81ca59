"""Paper 004 (gHSTCP and gARED): Figs. 4-6, section 3's set-up at 50 ms (windows under RED,
ARED's queue). Figs. 10-12 (web traffic) are in paper004_fig_web.py.

Each check tests one sentence of §3.3 or §4.2 as printed. Open choices swept as variants: send
jitter (Figs. 4, 5), ARED's floor of max_p and the run length (Fig. 6). The timeouts of the SACK
flows in Fig. 5 are traced to the start-up by an ablation (init_ssthresh at the flows' share of
the pipe) that the experiment runs.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np
import pandas as pd

from . import register
from .base import Check, Experiment, Report, Run, Variant, claim
from .common import figure, mean_ci, series
from .paper004_tables import ACCESS_BPS, C_BPS, SETUP, _scenario

SEEDS_FULL = (1, 2, 3)
#: Samples before this are the start-up: every flow's first slow start overshoots the pipe together,
#: and the timeouts that follow it fell within 1.9-5.9 s in every run looked at (seeds 1-2, 60 s, with
#: and without SACK); 10 s leaves a margin.
STARTUP_S = 10.0
#: S2's share of the pipe in packets: its max-min share of 2.5 Gbit/s beside five 100 Mbit/s S1
#: flows, times the RTT (2 x (50 + 1 + 1) ms), over 1500-byte packets.
_S2_SHARE_BPS = (C_BPS - 5 * ACCESS_BPS[0]) / 5
INIT_SSTHRESH = round(_S2_SHARE_BPS * 2 * 0.052 / (1500 * 8))
#: Table 1, case 3 at 50 ms (HSTCP+SACK, DropTail): what the paper reports for a fully used link.
FULL_UTIL_PCT = 97.397

FIG_SETUP = [SETUP[0],
             "RED (Figs. 4, 5): max_p = 0.1, the paper's min_th = 2,500, max_th = 3 min_th, w_q = 0.002 and "
             "ns-2's other defaults (gentle).",
             "Access links buffer 10,000 packets like the routers; no UDP background (as Tables 1-6).",
             "50 ms bottleneck delay as in the figures, sampled every 100 ms. Figs. 4, 5: 60 s (quick: 30 s), "
             "seeds 1-3 (quick: 1); resets are S2 windows falling to 2 packets or less (a timeout); global "
             f"synchronization is all five S2 flows decreasing within 300 ms of each other; both counted after "
             f"the first {STARTUP_S:g} s (the start-up, where every flow's first slow start overshoots at once) "
             "unless a check says otherwise.",
             "Send jitter (0-12 us per packet, ns-2's overhead_) is not in the paper; swept in Figs. 4, 5 (with "
             "and without); default with, as in Tables 1-6."]


def _with_samples(sc: Dict[str, Any]) -> Dict[str, Any]:
    return dict(sc, sample_interval="100ms")


def _fig_scenario(s2: str, queue: str, qp: Dict[str, float], quick: bool, *, jitter: bool = True,
                  duration: int = 0, init_ssthresh: float = 0) -> Dict[str, Any]:
    """Section 3's set-up at 50 ms, at the paper's rates (the quick form is only shorter: the
    windows' dynamics at 2.5 Gbit/s are the point)."""
    dur = duration or (30 if quick else 60)
    sc = _scenario("Reno", s2, 50, queue, qp, False, duration=dur)
    if not jitter:
        for f in sc["flows"]:
            f.pop("overhead", None)
    if init_ssthresh:
        sc["flows"][1]["init_ssthresh"] = init_ssthresh
    return _with_samples(sc)


def _seeds(quick: bool) -> Sequence[int]:
    return (1,) if quick else SEEDS_FULL


def _cwnd_runs(quick: bool, s2: Sequence[str], variant: str = "jitter", **kw: Any) -> List[Run]:
    out = []
    for p in s2:
        for seed in _seeds(quick):
            sc = _fig_scenario(p, "red", {"max_p": 0.1}, quick, jitter=variant != "no-jitter", **kw)
            # Seed 1 of the default keeps its earlier key (its runs/ file stays valid).
            key = p if (seed == 1 and variant == "jitter") else f"{p},{variant},seed={seed}"
            out.append(Run(key, sc, seed, {"s2": p, "variant": variant, "seed": seed}))
    return out


def _cwnd_measure(res: Any) -> Dict[str, Any]:
    fs = res.flow_series
    return {"flow_series": series(fs[fs.flow >= 5], ["time_s", "flow", "cwnd"]),
            "flows": res.flows[["flow", "timeouts", "fast_retransmits", "goodput_bps"]]}


def _cwnd_figure(fs: pd.DataFrame, title: str) -> Any:
    kinds = list(dict.fromkeys(fs.s2))
    fig, axes = figure(len(kinds), 1, height=2.4)
    for ax, k in zip(axes, kinds):
        for f, g in fs[fs.s2 == k].groupby("flow"):
            ax.plot(g.time_s, g.cwnd, lw=0.7)
        ax.set_ylabel("cwnd (pkts)")
        ax.set_title(f"{k}: the five S2 flows (seed 1)", fontsize=9)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(title, fontsize=9)
    return fig


def _sync_events(fs: pd.DataFrame, t0: float = STARTUP_S) -> int:
    """Moments after ``t0`` at which all five S2 flows decreased their windows within 300 ms of
    each other: global synchronization."""
    w = fs.pivot_table(index="time_s", columns="flow", values="cwnd")
    fell = (w.diff() < -1).astype(int)
    # A flow that fell in any of three consecutive 100 ms samples counts as falling then.
    together = fell.rolling(3, min_periods=1).max().sum(axis=1) >= 5
    together = together[together.index > t0]
    # Count each run of such samples once.
    return int((together & ~together.shift(1, fill_value=False)).sum())


def _resets(fs: pd.DataFrame, t0: float = STARTUP_S) -> int:
    """S2 windows falling to 2 packets or less (from more) after ``t0``: resets by a timeout."""
    n = 0
    for _, g in fs.sort_values("time_s").groupby("flow"):
        low = g.cwnd.to_numpy() <= 2
        fell = low[1:] & ~low[:-1]
        n += int(fell[g.time_s.to_numpy()[1:] > t0].sum())
    return n


def _per_seed(data: Dict[str, pd.DataFrame], s2: str, variant: str) -> pd.DataFrame:
    """Per seed: S2 timeouts over the whole run, resets and synchronizations after the start-up."""
    fs, fl = data["flow_series"], data["flows"]
    rows = []
    for seed in sorted(fs[(fs.s2 == s2) & (fs.variant == variant)].seed.unique()):
        f = fs[(fs.s2 == s2) & (fs.variant == variant) & (fs.seed == seed)]
        t = fl[(fl.s2 == s2) & (fl.variant == variant) & (fl.seed == seed) & (fl.flow >= 5)]
        rows.append({"seed": seed, "timeouts": int(t.timeouts.sum()), "resets": _resets(f), "sync": _sync_events(f)})
    return pd.DataFrame(rows)


def _ms(x: Sequence[float]) -> str:
    m, h = mean_ci(list(x))
    return f"{m:.3g}" + (f" ± {h:.2g}" if h else "")


def paired_lower(a: Sequence[float], b: Sequence[float]) -> Tuple[str, float, float]:
    """Whether ``a`` is below ``b`` over paired seeds: "lower" / "higher" when the 95 % interval of
    the mean difference a - b excludes 0 on that side (with one seed: its sign), else "alike"."""
    d, h = mean_ci(list(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)))
    if d + h < 0:
        return "lower", d, h
    if d - h > 0:
        return "higher", d, h
    return "alike", d, h


SEC33 = "§3.3, Fig. 4"
#: Fig. 4's ablation of the run length (full, quick): more synchronization events per run.
LONG_S = {False: 300, True: 90}


@register
class Fig4(Experiment):
    paper = "004"
    name = "fig4"
    title = "Windows of HSTCP and gHSTCP (no SACK) beside Reno with RED (max_p = 0.1), 50 ms"
    assumptions = FIG_SETUP

    def runs(self, quick: bool) -> List[Run]:
        both = ["HSTCP", "gHSTCP"]
        return ([r for v in ("jitter", "no-jitter") for r in _cwnd_runs(quick, both, v)]
                + _cwnd_runs(quick, both, "long", duration=LONG_S[quick]))

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _cwnd_measure(res)

    def _checks(self, data: Dict[str, pd.DataFrame], v: str) -> List[Check]:
        h, g = _per_seed(data, "HSTCP", v), _per_seed(data, "gHSTCP", v)
        side, d, hw = paired_lower(g.sync, h.sync)
        return [
            claim("without SACK the HSTCP flows time out (windows reset after the start-up)", h.resets.mean() > 0,
                  f"resets per run after the start-up {_ms(h.resets)} (timeouts per run in all {_ms(h.timeouts)})",
                  quote="This results in timeouts if the SACK option is not used for high-speed flow.",
                  section=SEC33),
            claim("global synchronization occurs with RED: all five HSTCP flows decrease together",
                  h.sync.mean() > 0, f"{_ms(h.sync)} times per run all five within 300 ms",
                  quote="Although RED is deployed at the routers, global synchronization also occurs because of "
                        "the multiple packet losses.", section=SEC33),
            claim("with gHSTCP synchronization is less frequent than with HSTCP, but still occurs",
                  side == "lower" and g.sync.mean() > 0,
                  f"per run gHSTCP {_ms(g.sync)}, HSTCP {_ms(h.sync)}; gHSTCP - HSTCP {d:+.2g} ± {hw:.2g} ({side})",
                  quote="This phenomena is present to a smaller extent when gHSTCP is used but can still happen.",
                  section=SEC33),
        ]

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        default, long_ = self._checks(data, "jitter"), self._checks(data, "long")
        default[2] = default[2].explained_by(
            long_[2], cause="a run of 60 s holds a handful of synchronizations, too few over three seeds to tell "
                            "gHSTCP's count from HSTCP's", change=f"runs of {LONG_S[quick]} s")
        variants = [Variant("jitter", "each packet leaves its sender after a random 0-12 us (ns-2's overhead_).",
                            default, default=True,
                            why="Default: as Tables 1-6 (paper004_tables), whose runs need it against TailDrop "
                                "phase effects; the paper does not say."),
                    Variant("no-jitter", "packets leave their senders at once.", self._checks(data, "no-jitter")),
                    Variant("long", f"ablation: runs of {LONG_S[quick]} s instead of {30 if quick else 60} s, with "
                            "jitter (the paper does not give Fig. 4's length).", long_)]
        fs = data["flow_series"]
        shown = fs[(fs.variant == "jitter") & (fs.seed == 1)]
        return Report(figures={"fig4": _cwnd_figure(shown, "Fig. 4: RED max_p = 0.1, 50 ms, no SACK")},
                      checks=variants[0].checks, variants=variants)


SEC33_5 = "§3.3, Fig. 5"


@register
class Fig5(Experiment):
    paper = "004"
    name = "fig5"
    title = "Windows of HSTCP+SACK and gHSTCP+SACK beside Reno with RED (max_p = 0.1), 50 ms"
    assumptions = FIG_SETUP + [
        f"Ablation 'init_ssthresh': the S2 flows start with ssthresh = {INIT_SSTHRESH} packets (their max-min "
        "share of the pipe: (2.5 Gbit/s - 5 x 100 Mbit/s) / 5 x 104 ms / 1500 B), so their first slow start "
        "ends without overshooting the buffer; everything else as the default."]

    def runs(self, quick: bool) -> List[Run]:
        sack = ["HSTCP+SACK", "gHSTCP+SACK"]
        return (_cwnd_runs(quick, sack, "jitter") + _cwnd_runs(quick, sack, "no-jitter")
                + _cwnd_runs(quick, sack, "init_ssthresh", init_ssthresh=INIT_SSTHRESH)
                + _cwnd_runs(quick, ["HSTCP"], "jitter"))

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _cwnd_measure(res)

    def _checks(self, data: Dict[str, pd.DataFrame], v: str) -> List[Check]:
        hs, gs = _per_seed(data, "HSTCP+SACK", v), _per_seed(data, "gHSTCP+SACK", v)
        nosack = _per_seed(data, "HSTCP", "jitter")
        to = int(hs.timeouts.sum() + gs.timeouts.sum())
        # The paper sets SACK's windows against Fig. 4's, reset without SACK: if those are not reset
        # either (after the start-up, which the ablation removes), the check cannot tell the recoveries apart.
        informative = int(nosack.resets.sum()) > 0
        return [
            claim("with SACK the HSTCP/gHSTCP windows are never reset to 1 packet (no timeouts, whole run)",
                  to == 0, f"S2 timeouts per run: HSTCP+SACK {_ms(hs.timeouts)}, gHSTCP+SACK {_ms(gs.timeouts)} "
                  f"(after the start-up: resets {_ms(hs.resets)}, {_ms(gs.resets)}); HSTCP without SACK "
                  f"{_ms(nosack.timeouts)} ({_ms(nosack.resets)} after the start-up)",
                  quote="If the SACK option is used for the HSTCP/gHSTCP flows, though the congestion windows will "
                        "not be reset to 1 packet as shown in Fig. 5", section=SEC33_5,
                  informative=informative, why_uninformative="" if informative else
                  f"HSTCP without SACK is not reset after the start-up either ({_ms(nosack.resets)} per run)"),
            claim("with SACK, all five HSTCP/gHSTCP flows still decrease their windows simultaneously at times",
                  hs.sync.mean() > 0 and gs.sync.mean() > 0,
                  f"per run after the start-up: HSTCP+SACK {_ms(hs.sync)}, gHSTCP+SACK {_ms(gs.sync)} times all "
                  "five within 300 ms",
                  quote="it still occurs that all flows simultaneously decrease their congestion window due to the "
                        "improper setting of RED", section=SEC33_5),
        ]

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        default, nojit, ablated = (self._checks(data, v) for v in ("jitter", "no-jitter", "init_ssthresh"))
        default[0] = default[0].explained_by(
            ablated[0], cause="the SACK flows time out in the start-up only, where the first slow start of all ten "
                              "flows overshoots the 10,000-packet buffer at once and thousands of packets of one "
                              "window are dropped",
            change=f"the S2 flows' init_ssthresh = {INIT_SSTHRESH} packets (their share of the pipe)")
        variants = [Variant("jitter", "each packet leaves its sender after a random 0-12 us (ns-2's overhead_).",
                            default, default=True,
                            why="Default: as Tables 1-6 (paper004_tables); the paper does not say."),
                    Variant("no-jitter", "packets leave their senders at once.", nojit),
                    Variant("init_ssthresh", f"ablation: S2's init_ssthresh = {INIT_SSTHRESH} packets, with jitter "
                            "(not a setting the paper leaves open: it removes the start-up overshoot).", ablated)]
        fs = data["flow_series"]
        shown = fs[(fs.variant == "jitter") & (fs.seed == 1) & (fs.s2 != "HSTCP")]
        return Report(figures={"fig5": _cwnd_figure(shown, "Fig. 5: RED max_p = 0.1, 50 ms, SACK")},
                      checks=default, variants=variants,
                      notes=["The HSTCP runs without SACK (Fig. 4's) are run here too, for the timeout comparison; "
                             "they are not drawn."])


SEC42 = "§4.2, Fig. 6"
#: Fig. 6's settings: (variant, ARED params, duration full, duration quick, description)
FIG6_VARIANTS = [
    ("floor 0.01, 300 s", {"bottom": 0.01}, 300, 90,
     "ARED's floor of max_p is 0.01 (§4.1's range), runs as long as Table 5's (quick: 90 s)."),
    ("floor auto, 300 s", {}, 300, 90,
     "ARED's floor is min(0.01, 80000/C) = 3.2e-5 (cclab's queue default, ns-2's rule), 300 s (quick: 90 s)."),
    ("floor auto, 60 s", {}, 60, 30, "floor as above, 60 s (quick: 30 s): the earlier default of this figure."),
]


@register
class Fig6(Experiment):
    paper = "004"
    name = "fig6"
    title = "Queue length at the bottleneck with ARED, case 20 (Reno and HSTCP), 50 ms"
    assumptions = [SETUP[0], "50 ms, case 20 (Reno / HSTCP, ARED, min_th 2,500), sampled every 100 ms, one seed; "
                   "the queue is idle when below 1% of the buffer, frequently so when in more than 10% of the "
                   "samples of the run's second half; the link is under-used below the utilization the paper "
                   f"reports for HSTCP+SACK with DropTail at 50 ms (Table 1, case 3: {FULL_UTIL_PCT} %).",
                   "The paper gives neither Fig. 6's run length nor ARED's floor of max_p; both are swept."]

    def runs(self, quick: bool) -> List[Run]:
        out = []
        for name, qp, dfull, dquick, _ in FIG6_VARIANTS:
            sc = _fig_scenario("HSTCP", "ared", qp, quick, duration=dquick if quick else dfull)
            # The earlier default keeps its key.
            out.append(Run("ared" if name == "floor auto, 60 s" else name.replace(" ", "").replace(",", "-"),
                           sc, 1, {"variant": name}))
        return out

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return {"queue_series": series(res.queue_series, ["time_s", "len_pkts", "avg_pkts", "max_p"]),
                "summary": res.summary()}

    def _checks(self, data: Dict[str, pd.DataFrame], v: str) -> List[Check]:
        q = data["queue_series"]
        q = q[q.variant == v]
        half = q[q.time_s > q.time_s.max() / 2]
        idle = float((half.len_pkts < 0.01 * 10_000).mean())
        util = 100 * float(data["summary"][data["summary"].variant == v].bottleneck_utilization.iloc[0])
        # ARED's floor: the variant's bottom, else the queue's default min(0.01, 80000/C) (docs/queues/red.md).
        qp = next(qp for n, qp, *_ in FIG6_VARIANTS if n == v)
        floor = float(qp.get("bottom", min(0.01, 80_000 / C_BPS)))
        at_floor = float((half.max_p <= floor * 1.001).mean())
        return [
            claim("with ARED the bottleneck link remains under-used (case 20, 50 ms)", util < FULL_UTIL_PCT,
                  f"utilization {util:.1f} % over the second half",
                  quote="However, the bottleneck link remains under-utilized.", section="§4.2, Table 5"),
            claim("the router buffer is frequently idle", idle > 0.1,
                  f"{idle:.0%} of the second half's samples below 1% of the buffer",
                  quote="it is apparent that the router buffers are frequently in the idle state", section=SEC42),
            claim("ARED's max_p is the reason: it sits at its floor while the link is under-used",
                  at_floor > 0.5 and util < FULL_UTIL_PCT,
                  f"max_p at its floor ({floor:.2g}) in {at_floor:.0%} of the second half; utilization {util:.1f} %",
                  quote="This is why the bottleneck link bandwidth is not fully utilized due to an improper setting "
                        "for the ARED packet drop probability.", section=SEC42),
        ]

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        qs = data["queue_series"]
        fig, axes = figure(2, 1, height=2.4, sharex=False)
        for name, *_ in FIG6_VARIANTS[:2]:
            q = qs[qs.variant == name]
            axes[0].plot(q.time_s, q.len_pkts, lw=0.7, label=f"queue, {name}")
            axes[1].plot(q.time_s, q.max_p, lw=1, label=name)
        axes[0].set_ylabel("queue (pkts)")
        axes[0].legend(fontsize=7)
        axes[1].set_yscale("log")
        axes[1].set_ylabel("max_p")
        axes[1].set_xlabel("time (s)")
        axes[1].legend(fontsize=7)
        axes[0].set_title("Fig. 6: ARED, Reno + HSTCP, 50 ms", fontsize=9)
        variants = [Variant(n, d, self._checks(data, n), default=(i == 0),
                            why="Default: the floor of §4.1 (as Table 5's default in paper004_tables) and Table "
                                "5's run length, so that the figure shows the runs the table measures."
                            if i == 0 else "")
                    for i, (n, _, _, _, d) in enumerate(FIG6_VARIANTS)]
        return Report(figures={"fig6": fig}, checks=variants[0].checks, variants=variants)
