"""Paper 004 (gHSTCP and gARED): Figs. 10-12, section 5: web traffic beside high-speed flows
(loss rate at R1, web response times), HSTCP against gHSTCP over seeds 1-3 (Figs. 10, 11's default
variant: 1-10).

Each check tests one sentence of §5 as printed. Every comparison of HSTCP with gHSTCP is paired
by seed (the web traffic of a seed is the same for both), and a difference counts only when the
95 % interval of its mean over the seeds excludes 0. Send jitter on the high-speed flows, which the
paper does not state, is swept as a variant.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

import numpy as np
import pandas as pd

from . import register
from .base import Check, Experiment, Report, Run, Variant, claim
from .common import dumbbell, figure, flow, mean_ci
from .paper004_fig import paired_lower

SEEDS_FULL = (1, 2, 3)
#: Seeds of Figs. 10 and 11's default variant (full, quick); the jitter variant keeps SEEDS_FULL / seed 1.
LOSS_SEEDS = {False: tuple(range(1, 11)), True: (1, 2, 3)}
SEC5 = "§5, Figs. 10, 11"
PROTOS = (("highspeed", "HSTCP"), ("ghstcp", "gHSTCP"))
#: variant -> (send jitter of the high-speed flows, description)
JITTER = {
    "no-jitter": ("", "the high-speed flows send each packet at once (as the earlier runs of these figures)."),
    "jitter": ("12us", "each high-speed packet leaves its sender after a random 0-12 us (ns-2's overhead_, one "
                       "packet time at 1 Gbit/s), as in Figs. 4-6 and Tables 1-6."),
}
DEFAULT = "no-jitter"
WHY_DEFAULT = ("Default: the web traffic's random arrivals already vary the TailDrop queue's phase, and these "
               "runs were the figures' runs before; the paper does not say.")

WEB_SETUP = [
    "Section 5 (Fig. 9): bottleneck 25 ms, DropTail; high-speed flows on 1 Gbit/s access links (1 ms), "
    "Reno recovery (the paper's 'HSTCP', 'gHSTCP'); 200 web servers (1 Gbit/s, 10-20 ms) and 1000 clients "
    "(100-155 Mbit/s, 20-50 ms); PagePool/WebTraf with the paper's distributions (inter-page Pareto mean 10 s "
    "shape 2, objects per page Pareto 3 / 1.5, inter-object Pareto 0.5 s / 1.5, object size Pareto 12 KB / "
    "1.2), objects carried by NewReno.",
    "Not in the paper, chosen: 1000 sessions (one per client) starting in [0, 50] s; 400 s simulated, loss "
    "rate (drops / arrivals at R1) and response times over 50 s to the end, the start-up excluded (the "
    "paper: 800 s, measured over 50-800 s); seeds 1-3, HSTCP and gHSTCP paired by seed; a difference counts "
    "when the 95% Student-t interval of its mean over the seeds excludes 0. Quick form: the same rates and "
    "buffers, sessions, servers and clients / 10, 5 and 10 flows, 120 s, one seed.",
    "Send jitter on the high-speed flows (0-12 us per packet) is not in the paper: swept (with and without).",
]


def _web_scenario(rate_mbps: float, buffer: int, n: int, cc: str, quick: bool, overhead: str = "") -> Dict[str, Any]:
    # The quick form keeps the rates and buffers: at a tenth of them HighSpeed's windows stay
    # below its Low_Window of 38 packets, where HSTCP, gHSTCP and Reno are the same algorithm.
    scale = 10 if quick else 1
    dur = 120 if quick else 400
    extra = {"overhead": overhead} if overhead else {}
    sc = dumbbell(f"{rate_mbps:g}Mbps", "25ms", f"{buffer}pkts",
                  [flow(cc, recovery="reno", count=n, access_rate="1000Mbps", start_spread="1s", **extra)],
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


def _web_runs(quick: bool, rate: float, buffers: Sequence[int] = (5000, 500),
              flows: Sequence[int] = (5, 10, 20), seeds: Sequence[int] = (),
              variants: Sequence[str] = tuple(JITTER)) -> List[Run]:
    out = []
    for v in variants:
        oh = JITTER[v][0]
        for buffer in buffers:
            for n in flows:
                if quick and n == 20:
                    continue
                for cc, lab in PROTOS:
                    for seed in (seeds or ((1,) if quick else SEEDS_FULL)):
                        key = f"{rate:g}Mbps,buf={buffer},n={n},{lab}"
                        # Seed 1 without jitter keeps its earlier key (its runs/ file stays valid).
                        if v != "no-jitter" or seed != 1:
                            key += f",{v},seed={seed}"
                        out.append(Run(key, _web_scenario(rate, buffer, n, cc, quick, oh), seed,
                                       {"variant": v, "rate_mbps": rate, "buffer": buffer, "flows": n,
                                        "proto": lab, "seed": seed}))
    return out


#: Response-time grid of the CDFs kept per run (s).
GRID = np.logspace(-2, 2, 161)


def _web_measure(res: Any) -> Dict[str, Any]:
    q = res.queues.iloc[0]
    w = res.web
    w = w[w.start_s >= 50]
    # An object still in flight at the end has no response time (NaN): it counts as slower than
    # any that finished.
    rt = w.response_s.fillna(np.inf).to_numpy()
    n = max(len(rt), 1)
    return {"loss": {"loss_rate": float(q.loss_rate), "drops": int(q.drops),
                     "utilization": res.summary()["bottleneck_utilization"], "objects": len(w),
                     "unfinished": int(w.response_s.isna().sum()), "mean_queue_pkts": float(q.mean_len_pkts),
                     "timeouts": int(res.flows.timeouts.sum()),
                     "median_response_s": float(np.median(rt)) if len(rt) else float("nan"),
                     "p90_response_s": float(np.quantile(rt, 0.9)) if len(rt) else float("nan")},
            "cdf": pd.DataFrame({"response_s": GRID, "cdf": np.searchsorted(np.sort(rt), GRID, "right") / n})}


def _paired(d: pd.DataFrame, col: str) -> Any:
    """gHSTCP against HSTCP in column ``col`` of the rows ``d`` (one point), paired by seed."""
    h = d[d.proto == "HSTCP"].sort_values("seed")[col].to_numpy()
    g = d[d.proto == "gHSTCP"].sort_values("seed")[col].to_numpy()
    return g, h, paired_lower(g, h)


def _seeds(seeds: Sequence[int]) -> str:
    """"seed 1", "seeds 1-3"."""
    s = list(seeds)
    return f"seed {s[0]}" if len(s) == 1 else f"seeds {s[0]}-{s[-1]}"


def _ms(x: Sequence[float], f: str = ".2e") -> str:
    m, h = mean_ci(list(x))
    return format(m, f) + (f" ± {format(h, f)}" if h else "")


def _loss_checks(d: pd.DataFrame) -> List[Check]:
    """The loss-rate sentences of §5 on the rows ``d`` of one variant and one bottleneck rate."""
    points = sorted({(b, n) for b, n in zip(d.buffer, d.flows)}, key=lambda x: (-x[0], x[1]))
    flows = sorted(d.flows.unique())
    rate = float(d.rate_mbps.iloc[0])
    # "as the router buffer size is decreased, the packet loss rate increases": per protocol and flows.
    more, rises = [], {lab: 0 for _, lab in PROTOS}
    for _, lab in PROTOS:
        for n in flows:
            big = d[(d.proto == lab) & (d.buffer == 5000) & (d.flows == n)].sort_values("seed").loss_rate
            small = d[(d.proto == lab) & (d.buffer == 500) & (d.flows == n)].sort_values("seed").loss_rate
            # The loss rate at 500 packets against 5000: higher when 5000's is the lower one.
            side = {"lower": "higher", "higher": "lower"}.get(paired_lower(big.to_numpy(), small.to_numpy())[0],
                                                             "alike")
            rises[lab] += side == "higher"
            more.append(f"{lab} n={n}: {small.mean():.2e} vs {big.mean():.2e} ({side})")
    n_more = sum(rises.values())
    per = rises
    # "especially when HSTCP is used": the rise from 5000 to 500 packets, averaged over the flows, per seed.
    rise = {}
    for _, lab in PROTOS:
        e = d[d.proto == lab].pivot_table(index="seed", columns=["buffer"], values="loss_rate", aggfunc="mean")
        rise[lab] = (e[500] - e[5000]).to_numpy()
    side_r, dr, hr = paired_lower(rise["gHSTCP"], rise["HSTCP"])
    # "a lower packet loss rate in any case when gHSTCP is used".
    cases, texts = [], []
    for b, n in points:
        e = d[(d.buffer == b) & (d.flows == n)]
        g, h, (side, _, _) = _paired(e, "loss_rate")
        cases.append(side == "lower")
        texts.append(f"({b}, {n}): {_ms(g)} vs {_ms(h)} ({side})")
    return [
        claim("the loss rate is higher with the smaller buffer (500 against 5000 packets), for either protocol",
              n_more == len(more), "; ".join(more),
              quote="From the results we observe that as the router buffer size is decreased, the packet loss rate "
                    "increases.", section=SEC5, informative=False,
              why_uninformative=f"at {rate:g} Mbit/s a property of both protocols, not a comparison of them "
                                f"(holds in HSTCP's {per['HSTCP']} and gHSTCP's {per['gHSTCP']} of {len(flows)} "
                                "numbers of flows)"),
        claim("the rise of the loss rate with the smaller buffer is larger with HSTCP than with gHSTCP",
              side_r == "lower", f"rise averaged over the flows: gHSTCP {_ms(rise['gHSTCP'])}, HSTCP "
              f"{_ms(rise['HSTCP'])}; gHSTCP - HSTCP {dr:+.2e} ± {hr:.2e} ({side_r})",
              quote="It is because that there is no room enough to buffer the bursty coming packets, especially "
                    "when HSTCP is used.", section=SEC5),
        claim("gHSTCP gives a lower loss rate than HSTCP in every setting (buffer, flows)", all(cases),
              f"gHSTCP vs HSTCP, lower in {sum(cases)} of {len(cases)}: " + ", ".join(texts),
              quote="However, we observe that the system has a lower packet loss rate in any case when gHSTCP is "
                    "used for high-speed flows.", section=SEC5, headline=True),
    ]


def _variants(checks_of: Any) -> List[Variant]:
    return [Variant(v, desc, checks_of(v), default=v == DEFAULT, why=WHY_DEFAULT if v == DEFAULT else "")
            for v, (_, desc) in JITTER.items()]


def _loss_figure(d: pd.DataFrame, name: str, rate: float) -> Any:
    fig, axes = figure(1, 2, width=4.4, height=3.2, sharex=False)
    for ax, buffer in zip(axes, (5000, 500)):
        for lab, m in (("HSTCP", "o-"), ("gHSTCP", "s-")):
            e = d[(d.buffer == buffer) & (d.proto == lab)].groupby("flows").loss_rate
            mean = e.mean()
            ci = e.apply(lambda x: mean_ci(list(x))[1])
            ax.errorbar(mean.index, mean.to_numpy(), yerr=ci.to_numpy(), fmt=m, capsize=3, label=lab)
        ax.set_xlabel("number of high-speed flows")
        ax.set_title(f"{rate:g} Mbit/s, buffer {buffer}", fontsize=9)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("packet loss rate at R1 (mean, 95% interval)")
    fig.suptitle(f"Fig. {name[-2:]}: web traffic beside high-speed flows ({DEFAULT})", fontsize=9)
    return fig


class _WebLoss(Experiment):
    """Figs. 10 and 11: the same sweep at two bottleneck rates."""

    paper = "004"
    assumptions = WEB_SETUP + [
        "Figs. 10 and 11: the default variant over seeds 1-10 (quick form: 1-3), the jitter variant over seeds "
        "1-3 (quick: 1). With three seeds the loss rate's spread over the seeds covered gHSTCP's lower mean at "
        "some points (the paired interval across 0), so 'in any case' could not be tested; the paper gives no "
        "seed count."]
    rate_mbps = 0.0

    def runs(self, quick: bool) -> List[Run]:
        # The default variant's seeds 1-3 keep their earlier keys (their runs/ files stay valid).
        return (_web_runs(quick, self.rate_mbps, variants=[v for v in JITTER if v != DEFAULT])
                + _web_runs(quick, self.rate_mbps, seeds=LOSS_SEEDS[quick], variants=(DEFAULT,)))

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return {"loss": _web_measure(res)["loss"]}

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        d = data["loss"]
        variants = _variants(lambda v: _loss_checks(d[d.variant == v]))
        e = d[d.variant == DEFAULT]
        p = e.pivot_table(index=["buffer", "flows"], columns="proto", values="loss_rate", aggfunc=list)
        md = (f"Loss rate at R1 ({DEFAULT}, {_seeds(sorted(e.seed.unique()))}), mean ± 95% interval over the "
              "seeds:\n\n| buffer | flows | HSTCP | gHSTCP |\n|---|---|---|---|\n" + "\n".join(
                  f"| {b} | {n} | {_ms(r['HSTCP'])} | {_ms(r['gHSTCP'])} |" for (b, n), r in p.iterrows()) + "\n")
        default = next(v for v in variants if v.default)
        return Report(figures={self.name: _loss_figure(e, self.name, self.rate_mbps)}, checks=default.checks,
                      variants=variants, markdown=md)


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


SEC5_12 = "§5, Fig. 12"
RT_QUOTE = "It is slightly improved under the circumstance when gHSTCP is used."


def _rt_check(d: pd.DataFrame, buffer: int) -> Check:
    """Fig. 12's sentence on the runs ``d`` (one variant) at ``buffer`` packets: gHSTCP's median and
    90th-percentile response times both below HSTCP's."""
    e = d[d.buffer == buffer]
    out, sides = [], []
    for col, lab in (("median_response_s", "median"), ("p90_response_s", "90th percentile")):
        g, h, (side, dd, hh) = _paired(e, col)
        sides.append(side)
        out.append(f"{lab} gHSTCP {_ms(g, '.3f')} s, HSTCP {_ms(h, '.3f')} s (gHSTCP - HSTCP {dd:+.3f} ± {hh:.3f}, "
                   f"{side})")
    return claim("web response times are lower with gHSTCP than with HSTCP (median and 90th percentile; 10 flows, "
                 "1000 Mbit/s)", all(s == "lower" for s in sides), f"buffer {buffer}: " + "; ".join(out),
                 quote=RT_QUOTE, section=SEC5_12, headline=True)


@register
class Fig12(Experiment):
    paper = "004"
    name = "fig12"
    title = "CDF of web response time beside 10 HSTCP or gHSTCP flows (1000 Mbit/s, 5000 packets)"
    assumptions = WEB_SETUP + [
        "Ablation: the same runs with a 500-packet buffer (Fig. 10's runs of the same point), where no flow can "
        "hold a standing queue of thousands of packets."]

    def runs(self, quick: bool) -> List[Run]:
        # The same scenarios as Fig. 10's points (1000 Mbit/s, 10 flows): the run store shares them.
        return _web_runs(quick, 1000, buffers=(5000, 500), flows=(10,))

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _web_measure(res)

    def _checks(self, data: Dict[str, pd.DataFrame], v: str) -> List[Check]:
        d = data["loss"][data["loss"].variant == v]
        c = _rt_check(d, 5000)
        e = d[d.buffer == 5000]
        gq, hq = (e[e.proto == p].mean_queue_pkts.mean() for p in ("gHSTCP", "HSTCP"))
        gt, ht = (e[e.proto == p].timeouts.mean() for p in ("gHSTCP", "HSTCP"))
        return [c.explained_by(_rt_check(d, 500),
                               cause=f"with 5000 packets gHSTCP keeps a longer standing queue (mean {gq:.0f} "
                                     f"packets) than HSTCP, whose {ht:.0f} timeouts per run (gHSTCP {gt:.0f}) "
                                     f"drain it (mean {hq:.0f}), and every web object waits behind that queue",
                               change="a 500-packet buffer (Fig. 10's runs of the same point)")]

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        cdf = data["cdf"]
        fig, (ax,) = figure(width=6.0, height=3.6)
        for lab in ("HSTCP", "gHSTCP"):
            e = cdf[(cdf.proto == lab) & (cdf.buffer == 5000) & (cdf.variant == DEFAULT)]
            m = e.groupby("response_s").cdf.mean()
            ax.plot(m.index, m.to_numpy(), label=f"{lab} (mean CDF over seeds)")
        ax.set_xscale("log")
        ax.set_xlabel("web response time (s)")
        ax.set_ylabel("CDF")
        ax.set_title(f"Fig. 12: 10 high-speed flows, 1000 Mbit/s, 5000 packets ({DEFAULT})", fontsize=9)
        ax.legend(fontsize=8)
        variants = _variants(lambda v: self._checks(data, v))
        default = next(v for v in variants if v.default)
        return Report(figures={"fig12": fig}, checks=default.checks, variants=variants)
