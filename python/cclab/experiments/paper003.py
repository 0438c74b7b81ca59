"""Paper 003: Hyun and Jang, "Enhanced TCP congestion control with higher
utilization in under-buffered links" (IEICE Trans. Commun., 2012).

Setup of section 4: one sender, a 100 Mbit/s bottleneck, RTT_min = 80 ms, a
drop-tail buffer of k x B_opt with B_opt = W_full = 1000 packets (so 1000-byte
packets), a = 1.1, alpha = 1.02, beta = 0.97. The paper names neither the
packet size nor the durations nor the Reno variant; the choices are listed in
each experiment's ``assumptions``.
"""

from __future__ import annotations

from typing import Any, Dict, List

import pandas as pd

from . import register
from .base import Experiment, Report, Run, claim, compare
from .common import dumbbell, figure, flow, series, window_mean

RATE_BPS = 100e6
B_OPT = 1000  # packets: 100 Mbit/s x 80 ms / 1000 B
RENO = "newreno"
SETUP = [
    "100 Mbit/s bottleneck, 38 ms one way + 1 ms access links each side = 80 ms RTT_min, "
    "1000-byte packets so that B_opt = W_full = 1000 packets as the paper states.",
    "'TCP Reno' is cclab's `newreno` (ns-2's Agent/TCP/Newreno recovery); the extra window "
    "`ubr` uses the same recovery. Senders add a random 0-0.08 ms before each packet "
    "(ns-2's `overhead`) against drop-tail phase effects.",
]


def _one(cc: str, k: float, duration: float, warmup: float, sample: str = "") -> Dict[str, Any]:
    f = flow(cc, rtt="80ms", packet_size="1000B", overhead="0.08ms")
    return dumbbell("100Mbps", "38ms", f"{round(k * B_OPT)}pkts", [f], f"{duration}s", warmup=f"{warmup}s",
                    sample_interval=sample or None)


def ratio_eq5(k: float) -> float:
    """Eq. (5): data sent with the extra window over Reno's, per saw tooth."""
    return 4 * (k * k + k + 1) / (3 * (k + 1) ** 2)


def _keep_series(res: Any, every: int = 1) -> Dict[str, Any]:
    return {
        "flows": res.flows,
        "summary": res.summary(),
        "flow_series": series(res.flow_series, ["time_s", "flow", "cwnd", "rtt_s"], every),
        "queue_series": series(res.queue_series, ["time_s", "len_pkts", "throughput_bps"], every),
    }


@register
class Table1(Experiment):
    paper = "003"
    name = "table1"
    title = "Link utilization of Reno and of the extra window at k = 1/8, 1/4, 1/2, 3/4, with the model of eq. (5)"
    assumptions = SETUP + [
        "Utilization is measured from 100 s (the first cycle, which has no W_full yet, ends near "
        "92 s) to the end: 1000 s in the full form, 260 s in the quick form; one seed.",
    ]
    KS = (1 / 8, 1 / 4, 1 / 2, 3 / 4)
    PUBLISHED = {  # k: (Reno, proposed, gain % simulated, gain % from eq. 5)
        1 / 8: (0.830, 0.995, 19.88, 20.16),
        1 / 4: (0.891, 0.997, 11.90, 12.0),
        1 / 2: (0.963, 0.999, 3.73, 3.7),
        3 / 4: (0.992, 0.999, 0.71, 0.68),
    }

    def runs(self, quick: bool) -> List[Run]:
        dur = 260 if quick else 1000
        return [Run(f"k={k:g},{cc}", _one(cc, k, dur, 100), 1, {"k": k, "cc": cc}) for k in self.KS
                for cc in (RENO, "ubr")]

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return {"summary": res.summary()}

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        s = data["summary"]
        util = {(r.k, r.cc): r.bottleneck_utilization for r in s.itertuples()}
        rows, checks = [], []
        for k in self.KS:
            reno, ubr = util[(k, RENO)], util[(k, "ubr")]
            p_reno, p_ubr, p_gain, p_model = self.PUBLISHED[k]
            gain = 100 * (ubr / reno - 1)
            model = 100 * (ratio_eq5(k) - 1)
            rows.append((k, p_reno, reno, p_ubr, ubr, p_gain, gain, p_model, model))
            kk = f"k = {k:g}"
            checks += [
                compare(f"{kk}: Reno utilization", p_reno, reno, 0.02,
                        reason="Reno's saw tooth depends on where losses fall in the drop-tail cycle"),
                compare(f"{kk}: extra-window utilization", p_ubr, ubr, 0.01,
                        reason="LSRTT is a reconstruction (docs/algorithms/ubr.md)"),
                compare(f"{kk}: gain from eq. (5), %", p_model, model, 0.05),
            ]
        checks.append(claim("the extra window's utilization exceeds Reno's at every k",
                            all(util[(k, "ubr")] > util[(k, RENO)] for k in self.KS),
                            ", ".join(f"{util[(k, 'ubr')]:.3f} > {util[(k, RENO)]:.3f}" for k in self.KS)))
        checks.append(claim("the gain shrinks as the buffer grows (k = 1/8 largest)",
                            rows[0][6] > rows[1][6] > rows[2][6],
                            ", ".join(f"{r[6]:.1f}%" for r in rows)))
        md = ["| k | Reno (paper) | Reno (cclab) | proposed (paper) | proposed (cclab) | gain % (paper) | "
              "gain % (cclab) | gain % eq. (5) (paper) | eq. (5) (cclab) |", "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            md.append(f"| {r[0]:g} | {r[1]:.3f} | {r[2]:.3f} | {r[3]:.3f} | {r[4]:.3f} | {r[5]:.2f} | {r[6]:.2f} "
                      f"| {r[7]:.2f} | {r[8]:.2f} |")
        fig, (ax,) = figure(width=6.4, height=3.6)
        ks = list(self.KS)
        ax.plot(ks, [util[(k, RENO)] for k in ks], "o-", label="Reno (cclab)")
        ax.plot(ks, [util[(k, "ubr")] for k in ks], "s-", label="extra window (cclab)")
        ax.plot(ks, [self.PUBLISHED[k][0] for k in ks], "o--", mfc="none", label="Reno (paper)")
        ax.plot(ks, [self.PUBLISHED[k][1] for k in ks], "s--", mfc="none", label="proposed (paper)")
        ax.plot(ks, [min(1.0, self.PUBLISHED[k][0] * ratio_eq5(k)) for k in ks], ":", label="Reno x eq. (5)")
        ax.set_xlabel("k = B / B_opt")
        ax.set_ylabel("link utilization")
        ax.legend(fontsize=8)
        return Report(figures={"table1": fig}, checks=checks, markdown="\n".join(md))


def _window_figure(fs: pd.DataFrame, qs: pd.DataFrame, labels: Dict[int, str], title: str) -> Any:
    fig, axes = figure(4, 1, height=1.9)
    for f, lab in labels.items():
        d = fs[fs.flow == f]
        axes[0].plot(d.time_s, d.cwnd, lw=0.8, label=lab)
        d = d[d.rtt_s > 0]
        axes[2].plot(d.time_s, d.rtt_s * 1e3, lw=0.8, label=lab)
    axes[0].axhline(B_OPT, ls="--", c="k", lw=0.8, label="W_full")
    axes[0].set_ylabel("cwnd (pkts)")
    axes[0].legend(fontsize=7, loc="upper right")
    util = (qs.throughput_bps / RATE_BPS).rolling(10, min_periods=1).mean()
    axes[1].plot(qs.time_s, util, lw=0.8)
    axes[1].set_ylabel("utilization (1 s)")
    axes[2].set_ylabel("RTT (ms)")
    axes[3].plot(qs.time_s, qs.len_pkts, lw=0.8)
    axes[3].set_ylabel("queue (pkts)")
    axes[3].set_xlabel("time (s)")
    axes[0].set_title(title, fontsize=9)
    return fig


@register
class Fig1(Experiment):
    paper = "003"
    name = "fig1"
    title = "Reno in an under-buffered link (k = 1/4): window against W_full, utilization, buffer occupancy"
    assumptions = SETUP + ["300 s (quick: 150 s), one seed, sampled every 100 ms."]

    def runs(self, quick: bool) -> List[Run]:
        return [Run("reno", _one(RENO, 0.25, 150 if quick else 300, 0, "100ms"), 1, {"cc": RENO})]

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep_series(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        fs, qs = data["flow_series"], data["queue_series"]
        fig = _window_figure(fs, qs, {0: "Reno"}, "Fig. 1: Reno, B = B_opt/4 = 250 pkts")
        t_end = float(fs.time_s.max())
        both = fs[fs.time_s > 100].merge(qs, on="time_s")
        cwnd = both.cwnd
        below = both[both.cwnd < B_OPT * 0.95]
        w_max = float(cwnd.max())
        checks = [
            compare("window peak W_max = W_full + B (pkts)", 1250, w_max, 0.03 * 1250,
                    reason="the window also counts the packets on the access links"),
            compare("window after a halving ~ W_max / 2 (pkts)", 625, float(cwnd.min()), 0.1 * 625),
            claim("the buffer is empty while cwnd < W_full", float(below.len_pkts.mean()) < 5,
                  f"mean queue {below.len_pkts.mean():.1f} pkts while cwnd < 0.95 W_full"),
            claim("the link is under-used while cwnd < W_full",
                  float(below.throughput_bps.mean()) < 0.97 * RATE_BPS,
                  f"{below.throughput_bps.mean() / RATE_BPS:.3f} of the link while cwnd < 0.95 W_full"),
        ]
        return Report(figures={"fig1": fig}, checks=checks,
                      notes=[f"Measured from 100 s to {t_end:.0f} s."])


@register
class Fig3(Experiment):
    paper = "003"
    name = "fig3"
    title = "Extra window against Reno, one flow each, k = 1/4: window, utilization, RTT, buffer"
    assumptions = SETUP + ["Two separate runs (one flow each), 300 s (quick: 200 s), sampled every 100 ms."]

    def runs(self, quick: bool) -> List[Run]:
        d = 200 if quick else 300
        return [Run(cc, _one(cc, 0.25, d, 0, "100ms"), 1, {"cc": cc}) for cc in (RENO, "ubr")]

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep_series(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        fs, qs = data["flow_series"], data["queue_series"]
        import matplotlib.pyplot as plt

        fig, axes = figure(4, 1, height=1.9)
        for cc, lab in ((RENO, "Reno"), ("ubr", "proposed")):
            d, q = fs[fs.cc == cc], qs[qs.cc == cc]
            axes[0].plot(d.time_s, d.cwnd, lw=0.8, label=lab)
            axes[1].plot(q.time_s, (q.throughput_bps / RATE_BPS).rolling(10, min_periods=1).mean(), lw=0.8)
            axes[2].plot(d.time_s[d.rtt_s > 0], d.rtt_s[d.rtt_s > 0] * 1e3, lw=0.8)
            axes[3].plot(q.time_s, q.len_pkts, lw=0.8)
        axes[0].axhline(B_OPT, ls="--", c="k", lw=0.8, label="W_full")
        for ax, y in zip(axes, ("cwnd (pkts)", "utilization (1 s)", "RTT (ms)", "queue (pkts)")):
            ax.set_ylabel(y)
        axes[0].legend(fontsize=7, loc="upper right")
        axes[3].set_xlabel("time (s)")
        axes[0].set_title("Fig. 3: extra window vs Reno, k = 1/4, one flow each", fontsize=9)
        plt.setp(axes[0].get_xticklabels(), visible=False)
        end = float(fs.time_s.max())
        u = {cc: window_mean(qs[qs.cc == cc], "throughput_bps", 100, end) / RATE_BPS for cc in (RENO, "ubr")}
        r = {cc: window_mean(fs[fs.cc == cc], "rtt_s", 100, end) for cc in (RENO, "ubr")}
        ql = {cc: window_mean(qs[qs.cc == cc], "len_pkts", 100, end) for cc in (RENO, "ubr")}
        checks = [
            claim("from the second cycle the extra window keeps the link almost full (> 0.98)", u["ubr"] > 0.98,
                  f"{u['ubr']:.3f} vs Reno {u[RENO]:.3f} (100 s to end)"),
            claim("same RTT as Reno (within 5%)", abs(r["ubr"] / r[RENO] - 1) < 0.05,
                  f"mean RTT {r['ubr'] * 1e3:.1f} ms vs {r[RENO] * 1e3:.1f} ms"),
            # While the extra window holds cwnd at W_full = beta x cwnd(C > alpha) it may keep a few
            # packets queued (alpha = 1.02 is 1.6 ms of queue at 80 ms): "same" within 20%.
            claim("buffer occupancy about Reno's (mean within 20%)", ql["ubr"] <= 1.2 * ql[RENO] + 2,
                  f"mean queue {ql['ubr']:.0f} vs {ql[RENO]:.0f} pkts"),
        ]
        return Report(figures={"fig3": fig}, checks=checks)


def _pair(second: str, k: float, t_start: float, t_stop: float, end: float) -> Dict[str, Any]:
    f1 = flow(RENO, rtt="80ms", packet_size="1000B", overhead="0.08ms", stop=f"{t_stop}s")
    f2 = flow(second, rtt="80ms", packet_size="1000B", overhead="0.08ms", start=f"{t_start}s")
    return dumbbell("100Mbps", "38ms", f"{round(k * B_OPT)}pkts", [f1, f2], f"{end}s", sample_interval="100ms")


def _two_flow_report(data: Dict[str, pd.DataFrame], name: str, title: str, t0: float, t1: float,
                     published_util: float, published_reno: float, first: str, reason_ubr: str) -> Report:
    fs, qs = data["flow_series"], data["queue_series"]
    fig, axes = figure(3, 2, height=1.9, width=4.6)
    for col, second in enumerate(("ubr", RENO)):
        d, q = fs[fs.second == second], qs[qs.second == second]
        for f, lab in ((0, first), (1, "proposed" if second == "ubr" else "Reno (2nd)")):
            dd = d[d.flow == f]
            axes[col].plot(dd.time_s, dd.cwnd, lw=0.8, label=lab)
            dd = dd[dd.rtt_s > 0]  # no RTT sample before the flow starts
            axes[4 + col].plot(dd.time_s, dd.rtt_s * 1e3, lw=0.8)
        axes[2 + col].plot(q.time_s, (q.throughput_bps / RATE_BPS).rolling(10, min_periods=1).mean(), lw=0.8)
        axes[col].legend(fontsize=7, loc="upper right")
        axes[col].set_title(f"{first} + {'proposed' if second == 'ubr' else 'Reno'}", fontsize=9)
        axes[4 + col].set_xlabel("time (s)")
    axes[0].set_ylabel("cwnd (pkts)")
    axes[2].set_ylabel("utilization (1 s)")
    axes[4].set_ylabel("RTT (ms)")
    fig.suptitle(title, fontsize=9)
    u = {s: window_mean(qs[qs.second == s], "throughput_bps", t0, t1) / RATE_BPS for s in ("ubr", RENO)}
    g = {}
    for s in ("ubr", RENO):
        d = fs[(fs.second == s) & (fs.time_s > t0) & (fs.time_s <= t1)]
        g[s] = d.groupby("flow").cwnd.mean()
    share = float(g["ubr"].loc[1] / g["ubr"].sum())
    checks = [
        compare(f"utilization with the proposed flow, {t0:g}-{t1:g} s", published_util, u["ubr"], 0.01,
                reason=reason_ubr),
        compare(f"utilization with two Reno flows, {t0:g}-{t1:g} s", published_reno, u[RENO], 0.015,
                reason="cclab's two Reno flows lose packets in the same congestion events (synchronized, see "
                "the figure), so together they saw-tooth like one flow at k = 1/4 (0.89); the paper's 0.945 "
                "implies partly desynchronized losses"),
        claim("higher utilization with the extra window than with Reno alone", u["ubr"] > u[RENO],
              f"{u['ubr']:.3f} vs {u[RENO]:.3f}"),
        claim("the two flows share fairly (second flow's mean window 40-60% of the sum)", 0.4 <= share <= 0.6,
              f"second flow's share of the summed mean windows {share:.2f}"),
    ]
    return Report(figures={name: fig}, checks=checks)


@register
class Fig4(Experiment):
    paper = "003"
    name = "fig4"
    title = "Reno from 0 s, the extra window from 100 s, Reno stops at 400 s (k = 1/4)"
    assumptions = SETUP + [
        "Full form: the paper's times, 500 s in all; quick: the extra-window flow starts at 30 s, "
        "Reno stops at 150 s, 200 s in all. Utilization is measured while both flows run, "
        "from one minute after the second starts to the first's stop; the baseline run replaces "
        "the extra-window flow by a second Reno flow. One seed.",
    ]

    def runs(self, quick: bool) -> List[Run]:
        t = (30, 150, 200) if quick else (100, 400, 500)
        return [Run(s, _pair(s, 0.25, *t), 1, {"second": s}) for s in ("ubr", RENO)]

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep_series(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        t0, t1 = (90, 150) if quick else (160, 400)
        return _two_flow_report(data, "fig4", "Fig. 4: Reno + proposed vs Reno + Reno, k = 1/4", t0, t1,
                                0.970, 0.945, "Reno",
                                "the flows' losses are synchronized (both halve together), which leaves the link "
                                "emptier after each loss than in the paper; the gain over two Reno flows, "
                                "+0.05, is larger than the paper's +0.025")


def _two_ubr(cc: str, k: float, end: float) -> Dict[str, Any]:
    f = flow(cc, rtt="80ms", packet_size="1000B", overhead="0.08ms", count=2, start_spread="5s")
    return dumbbell("100Mbps", "38ms", f"{round(k * B_OPT)}pkts", [f], f"{end}s", sample_interval="100ms")


@register
class Fig5(Experiment):
    paper = "003"
    name = "fig5"
    title = "Two extra-window flows (k = 1/2): windows, utilization, RTT"
    assumptions = SETUP + [
        "The paper does not give start times: both flows start in the first 5 s (uniformly). "
        "400 s (quick: 200 s); utilization from 100 s (quick: 60 s) to the end; the baseline is "
        "two Reno flows. One seed.",
    ]

    def runs(self, quick: bool) -> List[Run]:
        end = 200 if quick else 400
        return [Run(cc, _two_ubr(cc, 0.5, end), 1, {"second": cc}) for cc in ("ubr", RENO)]

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep_series(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        end = float(data["flow_series"].time_s.max())
        rep = _two_flow_report(data, "fig5", "Fig. 5: two proposed flows vs two Reno flows, k = 1/2",
                               60 if quick else 100, end, 0.983, float("nan"), "first",
                               "the paper does not say over which interval: cclab's is 0.994 from 100 s on, "
                               "0.979 from 20 s and 0.944 over the whole run with slow start")
        # The paper gives no utilization for two Reno flows at k = 1/2: drop that comparison.
        rep.checks = [c for c in rep.checks if "two Reno" not in c.what]
        return rep
