"""Paper 002: Yoshimizu, Koga, Kouyama, Shimamura, Kumazoe, Tsuru, "Kyushu-TCP:
Improving Fairness of High-Speed Transport Protocols" (IEICE Trans. Commun.
E93-B(5), 2010).

Setup of section 4 (Fig. 4): one or two high-speed senders (HSTCP, CUBIC, with or
without KTCP) and up to 20 TCP SACK senders, each with its own receiver, share a
1 Gbit/s bottleneck of one-way delay d (10 to 200 ms); every other link is
10 Gbit/s and 3 ms; routers hold 200 packets; 1500-byte packets; every flow uses
SACK; flows start uniformly in [0, 5] s; runs last 300 s; throughput is a flow's
goodput from its start to the end, averaged over 10 seeds. The round trip is
2 (3 + d + 3) ms. Normalized throughput divides the throughput of the x SACK
flows competing with y high-speed flows by that of the same x SACK flows
competing with y more SACK flows.

The paper's figures did not survive in the text, so most checks are the
qualitative results its text states; the text gives no numbers to compare.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np
import pandas as pd

from . import register
from .base import Experiment, Report, Run, claim
from .common import dumbbell, figure, flow, mean_ci

RATE_BPS = 1e9
PKT = 1500
BUFFER = 200
SACK = "newreno"  # cclab's `newreno` congestion control with `recovery = "sack"`: ns-2's Agent/TCP/Sack1
D_FULL = (10, 50, 100, 200)
D_QUICK = (10, 50)
SEEDS_FULL = 10  # as the paper
DUR_FULL = 300
OVERHEAD = "12us"  # one packet time at 1 Gbit/s

SETUP = [
    "Fig. 4: 1 Gbit/s bottleneck with one-way delay d, 10 Gbit/s 3 ms access links on both sides "
    "(round trip 2 (d + 6) ms), a 200-packet DropTail bottleneck buffer (the uncongested access links "
    "and the ACK path have unlimited buffers), 1500-byte packets, 40-byte ACKs, one ACK per packet, "
    "SACK recovery (RFC 6675) for every flow, flows start uniformly in [0, 5] s.",
    "HSTCP is `highspeed` with `table = 0` (ns-2 computes a(w), b(w) from RFC 3649's formulas); "
    "CUBIC is `cubic` with `variant = 1` (the 2008 constants, beta = 0.8, of ns-2's CUBIC); KTCP is "
    "`<algorithm>+ktcp` with `ktcp_alpha` = alpha and the default threshold (38 packets around "
    "HighSpeed, none around CUBIC); SACK flows are `newreno` with `recovery = \"sack\"`.",
    f"Each packet leaves its sender after a random 0-{OVERHEAD} delay (ns-2's `overhead`, one packet "
    "time): without it the deterministic DropTail queue drops only the packets of flows that are "
    "increasing their window, so a KTCP flow held at w2 is never hit (phase effect) and the "
    "20 SACK flows take every loss; the paper does not say.",
    "Throughput is each flow's goodput from its start to the end of the run (the paper's definition), "
    "mean and 95% Student-t interval over the seeds.",
]


def _full_form(seeds: int = SEEDS_FULL, ds: Sequence[int] = D_FULL, dur: int = DUR_FULL) -> str:
    return (f"Full form: {dur} s runs, {seeds} seeds per point (the paper: 10), d = "
            f"{', '.join(str(d) for d in ds)} ms (the paper: 10 to 200 ms; four points keep this paper's "
            "full forms at about two hours on two cores, a 300 s run at 1 Gbit/s taking about 20 s); quick "
            "form: 60 s, 2 seeds, d = 10 and 50 ms, with its claims made at d = 10 ms (at 60 s a high-speed "
            "flow at d = 50 ms is still climbing out of its start-up losses).")


def _params(cc: str, alpha: float = 0.0) -> Dict[str, float]:
    base = cc.split("+")[0]
    p: Dict[str, float] = {}
    if base == "highspeed":
        p["table"] = 0
    elif base == "cubic":
        p["variant"] = 1
    if cc.endswith("+ktcp"):
        p["ktcp_alpha"] = alpha
    return p


def _group(name: str, cc: str, count: int, alpha: float = 0.0) -> Dict[str, Any]:
    f = flow(cc, name=name, count=count, recovery="sack", access_rate="10Gbps", access_delay="3ms",
             receiver_delay="3ms", start_spread="5s", packet_size=f"{PKT}B", overhead=OVERHEAD)
    p = _params(cc, alpha)
    if p:
        f["cc_params"] = p
    return f


def _scenario(groups: Sequence[Dict[str, Any]], d: int, dur: int, sample: str = "") -> Dict[str, Any]:
    return dumbbell("1Gbps", f"{d}ms", f"{BUFFER}pkts", groups, f"{dur}s", sample_interval=sample or None)


#: Configurations: label -> (cc of the high-speed group, alpha); SACK is the baseline.
CONFIGS: Dict[str, Tuple[str, float]] = {
    "HSTCP": ("highspeed", 0.0),
    "HSTCP+KTCP a=0.70": ("highspeed+ktcp", 0.70),
    "HSTCP+KTCP a=0.80": ("highspeed+ktcp", 0.80),
    "HSTCP+KTCP a=0.90": ("highspeed+ktcp", 0.90),
    "HSTCP+KTCP a=0.95": ("highspeed+ktcp", 0.95),
    "CUBIC": ("cubic", 0.0),
    "CUBIC+KTCP a=0.90": ("cubic+ktcp", 0.90),
    "SACK": (SACK, 0.0),
}
K9 = "HSTCP+KTCP a=0.90"
STYLE = {"HSTCP": "o-", "HSTCP+KTCP a=0.70": "v--", "HSTCP+KTCP a=0.80": "^-", K9: "s-",
         "HSTCP+KTCP a=0.95": "D-", "CUBIC": "o:", "CUBIC+KTCP a=0.90": "s:", "SACK": "x-"}


def _keep(res: Any) -> Dict[str, Any]:
    f = res.flows[["flow", "group", "goodput_bps", "drops", "fast_retransmits", "timeouts"]]
    s = res.summary()
    return {"flows": f, "summary": {"utilization": s["bottleneck_utilization"],
                                    "bottleneck_drops": s["bottleneck_drops"]}}


def _sweep(configs: Sequence[str], n_x: int, n_sack: int, ds: Sequence[int], seeds: int,
           dur: int) -> List[Run]:
    """One run per (configuration, d, seed): n_x flows of the configuration's algorithm
    (group "x") and n_sack SACK flows (group "sack")."""
    runs = []
    for c in configs:
        cc, alpha = CONFIGS[c]
        for d in ds:
            for seed in range(1, seeds + 1):
                groups = [_group("x", cc, n_x, alpha)]
                if n_sack:
                    groups.append(_group("sack", SACK, n_sack))
                runs.append(Run(f"{c},d={d},s={seed}", _scenario(groups, d, dur), seed,
                                {"config": c, "d_ms": d, "seed": seed}))
    return runs


def _per_run(data: Dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per run: throughput of the x flows (sum, and each), of the SACK flows (sum),
    bottleneck drops, in Mbit/s."""
    f = data["flows"]
    g = f.groupby(["config", "d_ms", "seed", "group"]).goodput_bps.sum().unstack("group") / 1e6
    out = pd.DataFrame({"x": g["x"]})
    out["sack"] = g["sack"] if "sack" in g else 0.0
    xs = f[f.group == "x"].sort_values("flow")
    for i, (_, grp) in enumerate(xs.groupby("flow")):
        out[f"x{i}"] = grp.set_index(["config", "d_ms", "seed"]).goodput_bps / 1e6
    s = data["summary"].set_index(["config", "d_ms", "seed"])
    out["drops"] = s.bottleneck_drops
    out["util"] = s.utilization
    return out.reset_index()


def _stat(df: pd.DataFrame, col: str) -> pd.DataFrame:
    """Mean and CI half-width of ``col`` per (config, d)."""
    rows = []
    for (c, d), grp in df.groupby(["config", "d_ms"]):
        m, h = mean_ci(grp[col].to_numpy())
        rows.append({"config": c, "d_ms": d, "mean": m, "ci": h})
    return pd.DataFrame(rows)


def _normalized_sack(df: pd.DataFrame) -> pd.DataFrame:
    """Per (config, d, seed): the SACK flows' throughput over their mean throughput against
    SACK flows in place of the high-speed ones (the baseline's mean over the seeds at that d)."""
    base = df[df.config == "SACK"].groupby("d_ms").sack.mean()
    out = df[df.config != "SACK"].copy()
    out["norm_sack"] = out.sack / out.d_ms.map(base)
    return out


def _line(ax: Any, st: pd.DataFrame, c: str, label: str = "", style: str = "") -> None:
    s = st[st.config == c].sort_values("d_ms")
    if s.empty:
        return
    ax.errorbar(s.d_ms, s["mean"], yerr=s["ci"], fmt=style or STYLE.get(c, "o-"), capsize=3, ms=4,
                label=label or c)


def _table(st: Dict[str, pd.DataFrame], configs: Sequence[str], unit: str = "") -> str:
    """A markdown table: rows (config, quantity), columns d, cells mean ± CI."""
    ds = sorted({d for s in st.values() for d in s.d_ms})
    lines = ["| configuration | quantity | " + " | ".join(f"d = {d} ms" for d in ds) + " |",
             "|---|---|" + "---|" * len(ds)]
    for q, s in st.items():
        for c in configs:
            r = s[s.config == c].set_index("d_ms")
            if r.empty:
                continue
            cells = [f"{r.loc[d, 'mean']:.3g} ± {r.loc[d, 'ci']:.2g}" if d in r.index else "" for d in ds]
            lines.append(f"| {c} | {q} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _at(st: pd.DataFrame, c: str) -> Dict[int, float]:
    s = st[st.config == c]
    return dict(zip(s.d_ms, s["mean"]))


def _fmt(vals: Dict[int, float], digits: int = 3) -> str:
    return ", ".join(f"{d} ms: {v:.{digits}g}" for d, v in sorted(vals.items()))


def _dax(ax: Any, ylabel: str) -> None:
    ax.set_xlabel("propagation delay d (ms)")
    ax.set_ylabel(ylabel)


def _ds(quick: bool, seeds: int = SEEDS_FULL) -> Tuple[Sequence[int], int, int]:
    return (D_QUICK, 2, 60) if quick else (D_FULL, seeds, DUR_FULL)


def _short(ds: Any, quick: bool) -> List[int]:
    """The delays at which the short-d claims are made: 10 ms in the quick form, <= 50 ms in the full."""
    return [d for d in ds if d <= (10 if quick else 50)]


@register
class Fig5(Experiment):
    paper = "002"
    name = "fig5"
    title = "Total throughput of 20 SACK flows alone against one HSTCP flow alone, over d"
    assumptions = SETUP + [
        "The figure is missing from the text; the text says it shows that 20 SACK flows together "
        "get about the throughput of one HSTCP flow, which is why 20 were chosen. Drawn here: the "
        "total of 20 SACK flows alone and one HSTCP flow alone on the bottleneck.",
        _full_form(),
    ]

    def runs(self, quick: bool) -> List[Run]:
        ds, seeds, dur = _ds(quick)
        runs = []
        for c, n in (("SACK", 20), ("HSTCP", 1)):
            cc, _ = CONFIGS[c]
            for d in ds:
                for seed in range(1, seeds + 1):
                    sc = _scenario([_group("x", cc, n)], d, dur)
                    runs.append(Run(f"{c},d={d},s={seed}", sc, seed, {"config": c, "d_ms": d, "seed": seed}))
        return runs

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        df = _per_run(data)
        st = _stat(df, "x")
        fig, (ax,) = figure(width=6.4, height=3.6)
        _line(ax, st, "SACK", "20 SACK flows (total)")
        _line(ax, st, "HSTCP", "1 HSTCP flow")
        _dax(ax, "throughput (Mbit/s)")
        ax.set_ylim(0, 1050)
        ax.legend(fontsize=8)
        ax.set_title("Fig. 5: total throughput of 20 SACK flows alone vs one HSTCP flow alone", fontsize=9)
        sack, hs = _at(st, "SACK"), _at(st, "HSTCP")
        ratio = {d: sack[d] / hs[d] for d in sack}
        short = _short(ratio, quick)
        checks = [
            claim("20 SACK flows together get about what one HSTCP flow gets (ratio 0.8-1.25) at "
                  f"{'d = 10 ms' if quick else 'd <= 50 ms'}",
                  all(0.8 <= ratio[d] <= 1.25 for d in short), "SACK/HSTCP " + _fmt(ratio)),
        ]
        notes = []
        if 200 in ratio:
            checks.append(claim("at d = 200 ms, 20 SACK flows get about what one HSTCP flow gets (0.8-1.25)",
                                0.8 <= ratio[200] <= 1.25, f"SACK/HSTCP {ratio[200]:.2f}",
                                reason="one HSTCP flow alone leaves slow start early (its first losses "
                                "come at a window of a few hundred packets, with a 200-packet buffer and "
                                "10 Gbit/s access bursts) and then climbs at a(w) = 1-3 packets per 412 ms "
                                "round trip: it is far from the 34,000-packet BDP after 300 s, while 20 "
                                "SACK flows climb 20 packets per round trip together"))
        md = _table({"throughput (Mbit/s)": st}, ["SACK", "HSTCP"])
        return Report(figures={"fig5": fig}, checks=checks, markdown=md, notes=notes)


@register
class Fig6to8(Experiment):
    paper = "002"
    name = "fig6-8"
    title = ("One HSTCP or HSTCP+KTCP flow against 20 SACK flows over d: throughput (Fig. 6), normalized "
             "throughput of HSTCP+KTCP (Fig. 7) and of the SACK flows (Fig. 8)")
    assumptions = SETUP + [
        "alpha = 0.70, 0.80, 0.90, 0.95 (Fig. 6 (b)-(d) shows 0.80-0.95, Figs. 7-8 also 0.70; quick form: "
        "HSTCP and alpha = 0.90 only). The SACK baseline of Fig. 8 replaces the "
        "high-speed flow by a 21st SACK flow; normalized throughput divides each run's SACK total by the "
        "baseline's mean at that d.",
        _full_form(),
    ]

    # The reasons of the checks that differ are in REASONS at the end of the module.

    def configs(self, quick: bool) -> List[str]:
        if quick:
            return ["HSTCP", K9, "SACK"]
        return ["HSTCP", "HSTCP+KTCP a=0.70", "HSTCP+KTCP a=0.80", K9, "HSTCP+KTCP a=0.95", "SACK"]

    def runs(self, quick: bool) -> List[Run]:
        ds, seeds, dur = _ds(quick)
        return _sweep(self.configs(quick), 1, 20, ds, seeds, dur)

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        df = _per_run(data)
        df["norm_x"] = df.x / (df.x + df.sack)
        ns = _normalized_sack(df)
        st_x, st_s = _stat(df, "x"), _stat(df, "sack")
        st_nx, st_ns = _stat(df[df.config != "SACK"], "norm_x"), _stat(ns, "norm_sack")
        hs_cfgs = [c for c in self.configs(quick) if c != "SACK"]
        figs = {}
        rows = 2 if len(hs_cfgs) > 2 else 1
        fig6, axes = figure(rows, 2, width=4.2, height=2.8, sharex=False)
        for ax, c, tag in zip(axes, hs_cfgs, "abcd"):
            _line(ax, st_x, c, c, "o-")
            _line(ax, st_s, c, "20 SACK flows (total)", "s--")
            ax.set_title(f"({tag}) {c}", fontsize=9)
            ax.set_ylim(0, 1000)
            _dax(ax, "throughput (Mbit/s)")
            ax.legend(fontsize=7)
        fig6.suptitle("Fig. 6: throughput of one HSTCP(+KTCP) flow and of 20 SACK flows", fontsize=9)
        figs["fig6"] = fig6
        fig7, (ax7,) = figure(width=6.4, height=3.6)
        for c in hs_cfgs:
            _line(ax7, st_nx, c)
        ax7.axhline(0.5, ls=":", c="k", lw=0.8)
        ax7.set_ylim(0, 1)
        _dax(ax7, "normalized throughput of HSTCP(+KTCP)")
        ax7.legend(fontsize=8)
        ax7.set_title("Fig. 7: HSTCP(+KTCP) throughput / total throughput", fontsize=9)
        figs["fig7"] = fig7
        fig8, (ax8,) = figure(width=6.4, height=3.6)
        for c in hs_cfgs:
            _line(ax8, st_ns, c)
        ax8.axhline(1.0, ls=":", c="k", lw=0.8)
        ax8.set_ylim(0, 1.2)
        _dax(ax8, "normalized throughput of SACK flows")
        ax8.legend(fontsize=8)
        ax8.set_title("Fig. 8: 20 SACK flows against HSTCP(+KTCP) / against a 21st SACK flow", fontsize=9)
        figs["fig8"] = fig8

        nsk, nsh = _at(st_ns, K9), _at(st_ns, "HSTCP")
        nxk, nxh = _at(st_nx, K9), _at(st_nx, "HSTCP")
        xk, sk, xh, sh = _at(st_x, K9), _at(st_s, K9), _at(st_x, "HSTCP"), _at(st_s, "HSTCP")
        short = _short(nsk, quick)
        where = "d = 10 ms" if quick else "d <= 50 ms"
        checks = [
            claim(f"KTCP (alpha = 0.90) raises the SACK flows' normalized throughput above plain HSTCP's "
                  f"at {where} (Fig. 8)", all(nsk[d] > nsh[d] for d in short),
                  f"KTCP {_fmt(nsk)}; HSTCP {_fmt(nsh)}"),
            claim(f"HSTCP+KTCP (alpha = 0.90) takes a smaller share than plain HSTCP at {where} (Fig. 7)",
                  all(nxk[d] < nxh[d] for d in short), f"KTCP {_fmt(nxk)}; HSTCP {_fmt(nxh)}"),
        ]
        if not quick:
            a = {c: _at(st_nx, c) for c in hs_cfgs if c != "HSTCP"}
            checks += [
                claim("plain HSTCP takes more than the 20 SACK flows together at d = 50 ms (Fig. 6(a))",
                      xh[50] > sh[50], f"{xh[50]:.0f} vs {sh[50]:.0f} Mbit/s", reason=REASONS[self.name]["hs50"]),
                claim("with alpha = 0.90 the SACK flows and the HSTCP+KTCP flow get about the same at "
                      "d = 10 ms (ratio 0.5-2) (Fig. 6(c))", 0.5 <= sk[10] / xk[10] <= 2,
                      f"20 SACK {sk[10]:.0f} vs HSTCP+KTCP {xk[10]:.0f} Mbit/s",
                      reason=REASONS[self.name]["equal10"] + f" ({xk[10]:.0f} Mbit/s, mean of the seeds)"),
                claim("at d = 10 ms a smaller alpha gives HSTCP+KTCP a smaller share (Fig. 7)",
                      a["HSTCP+KTCP a=0.70"][10] <= a["HSTCP+KTCP a=0.80"][10] <= a[K9][10]
                      <= a["HSTCP+KTCP a=0.95"][10],
                      ", ".join(f"{c[-4:]}: {v[10]:.3f}" for c, v in a.items()), reason=REASONS[self.name]["alpha10"]),
                claim("at d = 200 ms HSTCP+KTCP gets a high throughput whatever alpha (share within 0.1 of plain "
                      "HSTCP's) (Fig. 7)", all(abs(v[200] - nxh[200]) <= 0.1 for v in a.values()),
                      ", ".join(f"{c[-4:]}: {v[200]:.3f}" for c, v in a.items()) + f"; HSTCP {nxh[200]:.3f}",
                      reason=REASONS[self.name]["alpha200"]),
                claim("at d = 200 ms KTCP changes the SACK flows' normalized throughput little (within 0.1 of "
                      "plain HSTCP's) (Fig. 8)", abs(nsk[200] - nsh[200]) <= 0.1,
                      f"{nsk[200]:.3f} vs {nsh[200]:.3f}", reason=REASONS[self.name]["sack200"]),
            ]
        md = _table({"HS flow (Mbit/s)": st_x, "20 SACK (Mbit/s)": st_s, "HS share (Fig. 7)": st_nx,
                     "SACK normalized (Fig. 8)": st_ns}, self.configs(quick))
        return Report(figures=figs, checks=checks, markdown=md)


@register
class Fig9(Experiment):
    paper = "002"
    name = "fig9"
    title = "cwnd over time at d = 50 ms: total of 20 SACK flows (a), HSTCP or HSTCP+KTCP alpha = 0.90 (b)"
    assumptions = SETUP + [
        "One run each (seed 1), 300 s (quick: 120 s), windows sampled every 0.5 s; the bound is "
        "BDP + buffer = 1 Gbit/s x 112 ms / 1500 B + 200 = 9533 packets.",
    ]
    D = 50

    def runs(self, quick: bool) -> List[Run]:
        dur = 120 if quick else DUR_FULL
        runs = []
        for c in ("HSTCP", K9):
            cc, alpha = CONFIGS[c]
            sc = _scenario([_group("x", cc, 1, alpha), _group("sack", SACK, 20)], self.D, dur, "500ms")
            runs.append(Run(c, sc, 1, {"config": c}))
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
        ser = data["series"]
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
        late = ser[ser.time_s > t0]
        m = late.groupby("config")[["hs_cwnd", "sack_cwnd"]].mean()
        # Non-aggressive periods: the sampled window does not move between two samples.
        flat = {}
        for c in ("HSTCP", K9):
            w = late[late.config == c].hs_cwnd.to_numpy()
            flat[c] = float(np.mean(np.abs(np.diff(w)) < 1e-6)) if w.size > 1 else float("nan")
        checks = [
            claim("HSTCP+KTCP holds its window flat for stretches (non-aggressive periods): unchanged between "
                  "more than 5% of successive 0.5 s samples, plain HSTCP in under 1%",
                  flat[K9] > 0.05 and flat["HSTCP"] < 0.01,
                  f"flat samples after {t0:.0f} s: KTCP {flat[K9]:.2f}, HSTCP {flat['HSTCP']:.2f}"),
            claim("the SACK flows' total window is larger against HSTCP+KTCP than against HSTCP",
                  m.loc[K9, "sack_cwnd"] > m.loc["HSTCP", "sack_cwnd"],
                  f"mean after {t0:.0f} s: {m.loc[K9, 'sack_cwnd']:.0f} vs {m.loc['HSTCP', 'sack_cwnd']:.0f} pkts"),
            claim("HSTCP+KTCP's window stays below plain HSTCP's on average",
                  m.loc[K9, "hs_cwnd"] < m.loc["HSTCP", "hs_cwnd"],
                  f"mean after {t0:.0f} s: {m.loc[K9, 'hs_cwnd']:.0f} vs {m.loc['HSTCP', 'hs_cwnd']:.0f} pkts"),
        ]
        return Report(figures={"fig9": fig}, checks=checks)


@register
class Fig10to11(Experiment):
    paper = "002"
    name = "fig10-11"
    title = ("Two HSTCP or HSTCP+KTCP flows against 20 SACK flows over d: throughput (Fig. 10) and "
             "normalized throughput of the SACK flows (Fig. 11)")
    assumptions = SETUP + [
        "alpha = 0.80 and 0.90 (the two the text discusses; quick form: 0.90 only). The baseline of "
        "Fig. 11 replaces the two high-speed flows by two more SACK flows (22 in all).",
        _full_form(),
    ]

    def configs(self, quick: bool) -> List[str]:
        return ["HSTCP", K9, "SACK"] if quick else ["HSTCP", "HSTCP+KTCP a=0.80", K9, "SACK"]

    def runs(self, quick: bool) -> List[Run]:
        ds, seeds, dur = _ds(quick)
        return _sweep(self.configs(quick), 2, 20, ds, seeds, dur)

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
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
        nsk, nsh = _at(st_ns, K9), _at(st_ns, "HSTCP")
        sh = _at(st_s, "HSTCP")
        short = _short(nsk, quick)
        where = "d = 10 ms" if quick else "d <= 50 ms"
        checks = [
            claim("two HSTCP+KTCP flows (alpha = 0.90) leave the SACK flows a higher normalized throughput "
                  f"than two HSTCP flows at {where} (Fig. 11)",
                  all(nsk[d] > nsh[d] for d in short), f"KTCP {_fmt(nsk)}; HSTCP {_fmt(nsh)}"),
            claim("each plain HSTCP flow gets more than twice what a SACK flow gets on average at d = 50 ms "
                  "(Fig. 10(a))",
                  min(_at(st0, "HSTCP")[50], _at(st1, "HSTCP")[50]) > 2 * sh[50] / 20,
                  f"HSTCP flows {_at(st0, 'HSTCP')[50]:.0f}, {_at(st1, 'HSTCP')[50]:.0f}; 20 SACK {sh[50]:.0f} "
                  "Mbit/s"),
        ]
        if not quick:
            n8 = _at(st_ns, "HSTCP+KTCP a=0.80")
            checks.append(claim("alpha = 0.80 too raises the SACK flows' normalized throughput over HSTCP's "
                                "at d <= 50 ms (Fig. 11)", all(n8[d] > nsh[d] for d in short),
                                f"alpha 0.80 {_fmt(n8)}; HSTCP {_fmt(nsh)}", reason=REASONS[self.name]["a08"]))
            checks.append(claim("at d = 200 ms too, KTCP (alpha = 0.90) leaves the SACK flows at least as much "
                                "(Fig. 11: 'over a wide range of d')", nsk[200] >= nsh[200] - 0.02,
                                f"{nsk[200]:.3f} vs {nsh[200]:.3f}", reason=REASONS[self.name]["sack200"]))
        md = _table({"HS flow 1 (Mbit/s)": st0, "HS flow 2 (Mbit/s)": st1, "20 SACK (Mbit/s)": st_s,
                     "SACK normalized (Fig. 11)": st_ns}, self.configs(quick))
        return Report(figures={"fig10": fig10, "fig11": fig11}, checks=checks, markdown=md)


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
        _full_form(),
    ]
    CFGS = ["HSTCP", K9, "CUBIC", "CUBIC+KTCP a=0.90", "SACK"]

    def runs(self, quick: bool) -> List[Run]:
        ds, seeds, dur = _ds(quick)
        return _sweep(self.CFGS, 1, 1, ds, seeds, dur)

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
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
        n = {c: _at(st_ns, c) for c in self.CFGS[:-1]}
        short = _short(n["HSTCP"], quick)
        where = "d = 10 ms" if quick else "d <= 50 ms"
        checks = [
            claim(f"KTCP raises the SACK flow's normalized throughput against HSTCP at {where}",
                  all(n[K9][d] > n["HSTCP"][d] for d in short), f"KTCP {_fmt(n[K9])}; HSTCP {_fmt(n['HSTCP'])}",
                  reason=REASONS[self.name]["hs"]),
        ]
        ck, cu = n["CUBIC+KTCP a=0.90"], n["CUBIC"]
        if quick:
            checks.append(claim("KTCP does not lower the SACK flow's normalized throughput against CUBIC at "
                                "d = 10 ms (quick form: 60 s are too short for CUBIC's periods to grow)",
                                ck[10] >= cu[10] - 0.01, f"{ck[10]:.3f} vs {cu[10]:.3f}"))
        else:
            gain = {d: ck[d] - cu[d] for d in cu}
            ds = sorted(gain)
            checks += [
                claim("KTCP raises the SACK flow's normalized throughput against CUBIC at d <= 50 ms",
                      all(ck[d] > cu[d] for d in short), f"KTCP {_fmt(ck)}; CUBIC {_fmt(cu)}",
                      reason=REASONS[self.name]["cubic"]),
                claim("the improvement for CUBIC is larger at the shortest d than at the longest",
                      gain[ds[0]] > gain[ds[-1]], "gain " + _fmt(gain),
                      reason=self._spread_reason(st_ns, ds[-1])),
            ]
        md = _table({"normalized SACK (Fig. 12)": st_ns, "high-speed flow (Mbit/s)": st_x,
                     "SACK flow (Mbit/s)": st_s}, self.CFGS)
        return Report(figures={"fig12": fig}, checks=checks, markdown=md)

    @staticmethod
    def _spread_reason(st_ns: pd.DataFrame, d: int) -> str:
        ci = st_ns[(st_ns.d_ms == d) & st_ns.config.isin(["CUBIC", "CUBIC+KTCP a=0.90"])].set_index("config").ci
        return (f"at d = {d} ms the SACK flow's normalized throughput against CUBIC spreads widely over the seeds "
                f"(95% intervals ±{ci['CUBIC']:.2f} without KTCP, ±{ci['CUBIC+KTCP a=0.90']:.2f} with), more than "
                "the gain itself: the two gains cannot be told apart there")


@register
class Fig13to14(Experiment):
    paper = "002"
    name = "fig13-14"
    title = ("Two high-speed flows without SACK flows: HSTCP + HSTCP, HSTCP + HSTCP+KTCP, HSTCP+KTCP x 2 "
             "(alpha = 0.90): total throughput (Fig. 13) and packet drops (Fig. 14), over d")
    assumptions = SETUP + [
        "Packet drops are the bottleneck queue's over the whole run (the paper: 'total number of packet "
        "drops obtained by two flows').",
        _full_form(),
    ]
    CFGS = ("HSTCP x 2", "HSTCP + HSTCP+KTCP", "HSTCP+KTCP x 2")

    def runs(self, quick: bool) -> List[Run]:
        ds, seeds, dur = _ds(quick)
        hs = ("highspeed", 0.0)
        k = ("highspeed+ktcp", 0.9)
        pairs = {"HSTCP x 2": (hs, hs), "HSTCP + HSTCP+KTCP": (hs, k), "HSTCP+KTCP x 2": (k, k)}
        runs = []
        for c in self.CFGS:
            (c1, a1), (c2, a2) = pairs[c]
            for d in ds:
                for seed in range(1, seeds + 1):
                    sc = _scenario([_group("x", c1, 1, a1), _group("y", c2, 1, a2)], d, dur)
                    runs.append(Run(f"{c},d={d},s={seed}", sc, seed, {"config": c, "d_ms": d, "seed": seed}))
        return runs

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        f = data["flows"]
        tot = f.groupby(["config", "d_ms", "seed"]).goodput_bps.sum() / 1e6
        s = data["summary"].set_index(["config", "d_ms", "seed"])
        df = pd.DataFrame({"total": tot, "drops": s.bottleneck_drops}).reset_index()
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
        tk, th = _at(st_t, "HSTCP+KTCP x 2"), _at(st_t, "HSTCP x 2")
        dk, dh = _at(st_d, "HSTCP+KTCP x 2"), _at(st_d, "HSTCP x 2")
        short = _short(dk, quick)
        where = "d = 10 ms" if quick else "d <= 50 ms"
        checks = [
            claim(f"two HSTCP+KTCP flows drop fewer packets than two HSTCP flows at {where} (Fig. 14)",
                  all(dk[d] < dh[d] for d in short), f"KTCP {_fmt(dk)}; HSTCP {_fmt(dh)}",
                  reason=REASONS[self.name]["drops"]),
            claim(f"two HSTCP+KTCP flows' total throughput is not lower than two HSTCP flows' (within 2%) at "
                  f"{where} (Fig. 13)", all(tk[d] >= 0.98 * th[d] for d in short),
                  f"KTCP {_fmt(tk)}; HSTCP {_fmt(th)} Mbit/s", reason=REASONS[self.name]["thr"]),
        ]
        if not quick:
            checks.append(claim("at d = 200 ms too, two HSTCP+KTCP flows drop no more and get no less than two "
                                "HSTCP flows (2%)", dk[200] <= dh[200] and tk[200] >= 0.98 * th[200],
                                f"drops {dk[200]:.0f} vs {dh[200]:.0f}; {tk[200]:.0f} vs {th[200]:.0f} Mbit/s",
                                reason=REASONS[self.name]["d200"]))
        md = _table({"total throughput (Mbit/s)": st_t, "packet drops": st_d}, list(self.CFGS))
        return Report(figures={"fig13-14": fig}, checks=checks, markdown=md)


#: Why a check of the full form differs, by experiment and check; written after the full runs
#: (kept at the end of the module so that editing them does not move ``measure`` methods, whose
#: source is part of each cached run's fingerprint).
REASONS: Dict[str, Dict[str, str]] = {
    "fig6-8": {"hs50": "", "equal10": "with random drops (overhead) a held KTCP window is hit in most of the frequent d = 10 ms congestion events, each loss during a hold sets w2 = 0.9 of the held window, so w2 ratchets down to the 38-packet threshold and the flow ends up Reno-like", "alpha10": "", "alpha200": "", "sack200": ""},
    "fig10-11": {"a08": "", "sack200": ""},
    "fig12": {"hs": "", "cubic": ""},
    "fig13-14": {"drops": "", "thr": "", "d200": ""},
}
