"""Paper 004 (gHSTCP and gARED): Figs. 4-6 (windows under RED, ARED's queue) and
Figs. 10-12 (web traffic beside high-speed flows: loss rate, response times)."""

from __future__ import annotations

from typing import Any, Dict, List

import numpy as np
import pandas as pd

from . import register
from .base import Check, Experiment, Report, Run, claim
from .common import dumbbell, figure, flow, series
from .paper004_tables import SETUP, _scenario

# -- Figs. 4-6: section 3's set-up at 50 ms ---------------------------------------------------

FIG_SETUP = [SETUP[0], SETUP[3],
             "Access links buffer 10,000 packets like the routers; no UDP background (as Tables 1-6).",
             "50 ms bottleneck delay as in the figures; 60 s (quick: 30 s), sampled every 100 ms; one seed."]


def _with_samples(sc: Dict[str, Any]) -> Dict[str, Any]:
    return dict(sc, sample_interval="100ms")


def _fig_scenario(s2: str, queue: str, qp: Dict[str, float], quick: bool) -> Dict[str, Any]:
    """Section 3's set-up at 50 ms, at the paper's rates (the quick form is only shorter: the
    windows' dynamics at 2.5 Gbit/s are the point)."""
    return _with_samples(_scenario("Reno", s2, 50, queue, qp, False, duration=30 if quick else 60))


def _cwnd_runs(quick: bool, s2: List[str]) -> List[Run]:
    return [Run(p, _fig_scenario(p, "red", {"max_p": 0.1}, quick), 1, {"s2": p}) for p in s2]


def _cwnd_measure(res: Any) -> Dict[str, Any]:
    fs = res.flow_series
    return {"flow_series": series(fs[fs.flow >= 5], ["time_s", "flow", "cwnd"]),
            "flows": res.flows[["flow", "timeouts", "fast_retransmits", "goodput_bps"]]}


def _cwnd_figure(data: Dict[str, pd.DataFrame], title: str) -> Any:
    fs = data["flow_series"]
    kinds = list(dict.fromkeys(fs.s2))
    fig, axes = figure(len(kinds), 1, height=2.4)
    for ax, k in zip(axes, kinds):
        d = fs[fs.s2 == k]
        for f, g in d.groupby("flow"):
            ax.plot(g.time_s, g.cwnd, lw=0.7)
        ax.set_ylabel("cwnd (pkts)")
        ax.set_title(f"{k}: the five S2 flows", fontsize=9)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(title, fontsize=9)
    return fig


def _sync_events(fs: pd.DataFrame) -> int:
    """Moments at which all five S2 flows decreased their windows within 300 ms of each other:
    global synchronization."""
    w = fs.pivot_table(index="time_s", columns="flow", values="cwnd")
    fell = (w.diff() < -1).astype(int)
    # A flow that fell in any of three consecutive 100 ms samples counts as falling then.
    together = fell.rolling(3, min_periods=1).max().sum(axis=1) >= 5
    # Count each run of such samples once.
    return int((together & ~together.shift(1, fill_value=False)).sum())


@register
class Fig4(Experiment):
    paper = "004"
    name = "fig4"
    title = "Windows of HSTCP and gHSTCP (no SACK) beside Reno with RED (max_p = 0.1), 50 ms"
    assumptions = FIG_SETUP

    def runs(self, quick: bool) -> List[Run]:
        return _cwnd_runs(quick, ["HSTCP", "gHSTCP"])

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _cwnd_measure(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        fl = data["flows"]
        to = fl[fl.flow >= 5].groupby("s2").timeouts.sum()
        sync = {k: _sync_events(data["flow_series"][data["flow_series"].s2 == k]) for k in to.index}
        checks = [
            claim("without SACK the HSTCP flows time out: windows reset to 1 packet", to["HSTCP"] > 0,
                  f"{to['HSTCP']} timeouts in the five HSTCP flows"),
            claim("global synchronization occurs: all five HSTCP flows decrease together", sync["HSTCP"] > 0,
                  f"{sync['HSTCP']} times all five within 300 ms (gHSTCP: {sync['gHSTCP']})"),
            Check("with gHSTCP the resets happen to a smaller extent (fewer timeouts)",
                  f"timeouts: gHSTCP {to['gHSTCP']}, HSTCP {to['HSTCP']}", bool(to["gHSTCP"] < to["HSTCP"]),
                  published="to a smaller extent", reason="" if to["gHSTCP"] < to["HSTCP"] else
                  "gHSTCP leaves HSTCP mode only on a rising RTT trend, which RED's early drops rarely let build; "
                  "its windows then overshoot as HSTCP's do"),
        ]
        return Report(figures={"fig4": _cwnd_figure(data, "Fig. 4: RED max_p = 0.1, 50 ms, no SACK")},
                      checks=checks)


@register
class Fig5(Experiment):
    paper = "004"
    name = "fig5"
    title = "Windows of HSTCP+SACK and gHSTCP+SACK beside Reno with RED (max_p = 0.1), 50 ms"
    assumptions = FIG_SETUP

    def runs(self, quick: bool) -> List[Run]:
        return _cwnd_runs(quick, ["HSTCP+SACK", "gHSTCP+SACK"]) + _cwnd_runs(quick, ["HSTCP"])

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _cwnd_measure(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        fl = data["flows"]
        to = fl[fl.flow >= 5].groupby("s2").timeouts.sum()
        fs = data["flow_series"]
        sync = _sync_events(fs[fs.s2 == "HSTCP+SACK"])
        shown = {k: v for k, v in data.items()}
        shown["flow_series"] = fs[fs.s2 != "HSTCP"]
        no_reset = to["HSTCP+SACK"] < to["HSTCP"]
        checks = [
            Check("with SACK the windows are not reset to 1 packet (fewer timeouts than without SACK)",
                  f"timeouts: HSTCP {to['HSTCP']}, HSTCP+SACK {to['HSTCP+SACK']}, gHSTCP+SACK {to['gHSTCP+SACK']}",
                  bool(no_reset), published="no resets",
                  reason="" if no_reset else "RED at max_p = 0.1 drops retransmissions too, and a lost "
                  "retransmission ends RFC 6675 recovery with a timeout (cclab has no PRR/RACK)"),
            claim("all five HSTCP+SACK flows still decrease their windows simultaneously at times", sync > 0,
                  f"{sync} times all five within 300 ms"),
        ]
        return Report(figures={"fig5": _cwnd_figure(shown, "Fig. 5: RED max_p = 0.1, 50 ms, SACK")},
                      checks=checks, notes=["The HSTCP run without SACK (Fig. 4's) is run here too, for the "
                                            "timeout comparison; it is not drawn."])


@register
class Fig6(Experiment):
    paper = "004"
    name = "fig6"
    title = "Queue length at the bottleneck with ARED, case 20 (Reno and HSTCP), 50 ms"
    assumptions = FIG_SETUP

    def runs(self, quick: bool) -> List[Run]:
        return [Run("ared", _fig_scenario("HSTCP", "ared", {}, quick), 1, {"queue": "ared"})]

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return {"queue_series": series(res.queue_series, ["time_s", "len_pkts", "avg_pkts", "max_p"]),
                "summary": res.summary()}

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        q = data["queue_series"]
        buf = 10_000
        fig, axes = figure(2, 1, height=2.4)
        axes[0].plot(q.time_s, q.len_pkts, lw=0.7, label="queue")
        axes[0].plot(q.time_s, q.avg_pkts, lw=1, label="average")
        axes[0].set_ylabel("queue (pkts)")
        axes[0].legend(fontsize=7)
        axes[1].plot(q.time_s, q.max_p, lw=1)
        axes[1].set_yscale("log")
        axes[1].set_ylabel("max_p")
        axes[1].set_xlabel("time (s)")
        axes[0].set_title("Fig. 6: ARED, Reno + HSTCP, 50 ms", fontsize=9)
        half = q[q.time_s > q.time_s.max() / 2]
        idle = float((half.len_pkts < 0.01 * buf).mean())
        util = float(data["summary"].bottleneck_utilization.iloc[0])
        checks = [
            claim("the router buffer is frequently idle (empty in more than 10% of the samples of the second "
                  "half)", idle > 0.1, f"{idle:.0%} of the samples below 1% of the buffer"),
            claim("and the link is under-used (utilization below 0.97)", util < 0.97, f"utilization {util:.3f}"),
        ]
        return Report(figures={"fig6": fig}, checks=checks)


# -- Figs. 10-12: web traffic -----------------------------------------------------------------

WEB_SETUP = [
    "Section 5 (Fig. 9): bottleneck 25 ms, DropTail; high-speed flows on 1 Gbit/s access links (1 ms), "
    "Reno recovery (the paper's 'HSTCP', 'gHSTCP'); 200 web servers (1 Gbit/s, 10-20 ms) and 1000 clients "
    "(100-155 Mbit/s, 20-50 ms); PagePool/WebTraf with the paper's distributions (inter-page Pareto mean 10 s "
    "shape 2, objects per page Pareto 3 / 1.5, inter-object Pareto 0.5 s / 1.5, object size Pareto 12 KB / "
    "1.2), objects carried by NewReno.",
    "Not in the paper, chosen: 1000 sessions (one per client) starting in [0, 50] s; 400 s simulated, loss "
    "rate (drops / arrivals at R1) and response times over 50 s to the end, the start-up excluded (the "
    "paper: 800 s, measured over 50-800 s); one seed. Quick form: the same rates and buffers, sessions, "
    "servers and clients / 10, 5 and 10 flows, 120 s.",
]


def _web_scenario(rate_mbps: float, buffer: int, n: int, cc: str, quick: bool) -> Dict[str, Any]:
    # The quick form keeps the rates and buffers: at a tenth of them HighSpeed's windows stay
    # below its Low_Window of 38 packets, where HSTCP, gHSTCP and Reno are the same algorithm.
    scale = 10 if quick else 1
    dur = 120 if quick else 400
    sc = dumbbell(f"{rate_mbps:g}Mbps", "25ms", f"{buffer}pkts",
                  [flow(cc, recovery="reno", count=n, access_rate="1000Mbps", start_spread="1s")],
                  f"{dur}s", warmup="50s")
    sc["web"] = {
        "sessions": 1000 // scale, "pages_per_session": dur // 5, "session_spread": "50s",
        "inter_page": {"dist": "pareto", "mean": 10, "shape": 2},
        "objects_per_page": {"dist": "pareto", "mean": 3, "shape": 1.5},
        "inter_object": {"dist": "pareto", "mean": 0.5, "shape": 1.5},
        "object_size": {"dist": "pareto", "mean": 12000, "shape": 1.2},
        "servers": 200 // scale, "server_rate": "1000Mbps", "server_delay": ["10ms", "20ms"],
        "clients": 1000 // scale, "client_rate": ["100Mbps", "155Mbps"],
        "client_delay": ["20ms", "50ms"],
    }
    return sc


def _web_runs(quick: bool, rate: float) -> List[Run]:
    out = []
    for buffer in (5000, 500):
        for n in ((5, 10) if quick else (5, 10, 20)):
            for cc, lab in (("highspeed", "HSTCP"), ("ghstcp", "gHSTCP")):
                out.append(Run(f"{rate:g}Mbps,buf={buffer},n={n},{lab}", _web_scenario(rate, buffer, n, cc, quick), 1,
                               {"rate_mbps": rate, "buffer": buffer, "flows": n, "proto": lab}))
    return out


def _web_measure(res: Any) -> Dict[str, Any]:
    q = res.queues.iloc[0]
    w = res.web
    w = w[w.start_s >= 50]
    # An object still in flight at the end has no response time (NaN): it counts as slower than
    # any that finished.
    rt = w.response_s.fillna(np.inf)
    return {"loss": {"loss_rate": float(q.loss_rate), "drops": int(q.drops),
                     "utilization": res.summary()["bottleneck_utilization"], "objects": len(w),
                     "unfinished": int(w.response_s.isna().sum()), "mean_queue_pkts": float(q.mean_len_pkts),
                     "median_response_s": float(rt.median()) if len(w) else float("nan")},
            "web": pd.DataFrame({"response_s": rt})}


def _loss_report(data: Dict[str, pd.DataFrame], name: str, rate: float) -> Report:
    d = data["loss"]
    fig, axes = figure(1, 2, width=4.4, height=3.2, sharex=False)
    for ax, buffer in zip(axes, (5000, 500)):
        for lab, m in (("HSTCP", "o-"), ("gHSTCP", "s-")):
            e = d[(d.buffer == buffer) & (d.proto == lab)].sort_values("flows")
            ax.plot(e.flows, e.loss_rate, m, label=lab)
        ax.set_xlabel("number of high-speed flows")
        ax.set_title(f"{rate:g} Mbit/s, buffer {buffer}", fontsize=9)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("packet loss rate at R1")
    fig.suptitle(f"Fig. {name[-2:]}: web traffic beside high-speed flows", fontsize=9)
    p = d.pivot_table(index=["buffer", "flows"], columns="proto", values="loss_rate")
    small, big = d[d.buffer == 500].loss_rate.mean(), d[d.buffer == 5000].loss_rate.mean()
    lower = int((p["gHSTCP"] <= p["HSTCP"]).sum())
    checks = [
        Check("the loss rate is higher with the smaller buffer", f"mean loss rate {small:.2e} at 500 packets, "
              f"{big:.2e} at 5000", bool(small > big), published="higher at 500 packets",
              reason="" if small > big else "cclab shows the opposite here"),
        claim("gHSTCP gives a lower loss rate than HSTCP in most settings", lower > len(p) / 2,
              f"lower or equal in {lower} of {len(p)}: " + ", ".join(
                  f"({b}, {n}): {r['gHSTCP']:.1e} vs {r['HSTCP']:.1e}" for (b, n), r in p.iterrows())),
    ]
    md = "| buffer | flows | HSTCP loss rate | gHSTCP loss rate |\n|---|---|---|---|\n" + "\n".join(
        f"| {b} | {n} | {r['HSTCP']:.2e} | {r['gHSTCP']:.2e} |" for (b, n), r in p.iterrows())
    return Report(figures={name: fig}, checks=checks, markdown=md)


class _WebLoss(Experiment):
    """Figs. 10 and 11: the same sweep at two bottleneck rates."""

    paper = "004"
    assumptions = WEB_SETUP
    rate_mbps = 0.0

    def runs(self, quick: bool) -> List[Run]:
        return _web_runs(quick, self.rate_mbps)

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return {"loss": _web_measure(res)["loss"]}

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        return _loss_report(data, self.name, self.rate_mbps)


@register
class Fig10(_WebLoss):
    name = "fig10"
    title = "Loss rate at the bottleneck with web traffic and 5/10/20 HSTCP or gHSTCP flows, 1000 Mbit/s"
    rate_mbps = 1000


@register
class Fig11(_WebLoss):
    name = "fig11"
    title = "Loss rate at the bottleneck with web traffic and 5/10/20 HSTCP or gHSTCP flows, 500 Mbit/s"
    rate_mbps = 500


@register
class Fig12(Experiment):
    paper = "004"
    name = "fig12"
    title = "CDF of web response time beside 10 HSTCP or gHSTCP flows (1000 Mbit/s, 5000 packets)"
    assumptions = WEB_SETUP

    def runs(self, quick: bool) -> List[Run]:
        return [Run(lab, _web_scenario(1000, 5000, 10, cc, quick), 1, {"proto": lab})
                for cc, lab in (("highspeed", "HSTCP"), ("ghstcp", "gHSTCP"))]

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _web_measure(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        w = data["web"]
        fig, (ax,) = figure(width=6.0, height=3.6)
        med = {}
        for lab in ("HSTCP", "gHSTCP"):
            r = np.sort(w[w.proto == lab].response_s.to_numpy())
            ax.plot(r, np.arange(1, len(r) + 1) / len(r), label=lab)
            med[lab] = float(np.median(r))
        ax.set_xscale("log")
        ax.set_xlabel("web response time (s)")
        ax.set_ylabel("CDF")
        ax.set_title("Fig. 12: 10 high-speed flows, 1000 Mbit/s, 5000 packets", fontsize=9)
        ax.legend(fontsize=8)
        p90 = {lab: float(w[w.proto == lab].response_s.quantile(0.9)) for lab in med}
        loss = data["loss"].set_index("proto")
        q = loss.mean_queue_pkts
        ok = p90["gHSTCP"] <= 1.05 * p90["HSTCP"]
        checks = [claim("in the same runs gHSTCP loses fewer packets at R1 than HSTCP (section 5: 'a lower packet "
                        "loss rate in any case')", loss.loss_rate["gHSTCP"] < loss.loss_rate["HSTCP"],
                        f"loss rate {loss.loss_rate['gHSTCP']:.2e} vs {loss.loss_rate['HSTCP']:.2e}"),
                  Check("response times are no worse with gHSTCP than with HSTCP (90th percentile within 5% or "
                        "lower)", f"90th percentile {p90['gHSTCP']:.3f} s vs {p90['HSTCP']:.3f} s; median "
                        f"{med['gHSTCP']:.3f} vs {med['HSTCP']:.3f} s", bool(ok), published="slightly improved",
                        reason="" if ok else f"gHSTCP keeps the 5000-packet buffer fuller (mean queue "
                        f"{q['gHSTCP']:.0f} against {q['HSTCP']:.0f} packets with HSTCP, whose timeouts empty it), "
                        "and every web object waits behind it")]
        return Report(figures={"fig12": fig}, checks=checks)
