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

Two choices the paper leaves open move its verdicts, and are swept as variants
(``VARIANTS``): a random 0-12 us send jitter (ns-2's ``overhead``) or none, and
T_c unbounded (eq. (2) as defined) or capped (section 3's "keeps it constant").
This module holds the set-up shared by the paper's experiments and Fig. 5;
``paper002_fig6_8`` Figs. 6-8 with the variants, ``paper002_fig9_14`` the rest.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from . import register
from .base import Experiment, Report, Run, claim
from .verdicts import Check
from .common import dumbbell, figure, flow, mean_ci

RATE_BPS = 1e9
PKT = 1500
BUFFER = 200
SACK = "newreno"  # cclab's `newreno` congestion control with `recovery = "sack"`: ns-2's Agent/TCP/Sack1
D_FULL = (10, 50, 100, 200)
D_QUICK = (10, 50)
SEEDS_FULL = 10  # as the paper
SEEDS_QUICK = 3  # the fewest that give a spread
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
            f"form: 60 s, {SEEDS_QUICK} seeds, d = 10 and 50 ms, with its claims made at d = 10 ms (at 60 s a high-speed "
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


def _group(name: str, cc: str, count: int, alpha: float = 0.0, jitter: bool = True,
           tc_max: int = 0) -> Dict[str, Any]:
    """A flow group as Fig. 4 has it. ``jitter``: the 0-12 us send jitter (the default runs);
    ``tc_max``: KTCP's bound on T_c (0, unbounded, is left out so the default runs' scenarios,
    and so their stored results, stay as they were)."""
    extra = {"overhead": OVERHEAD} if jitter else {}
    f = flow(cc, name=name, count=count, recovery="sack", access_rate="10Gbps", access_delay="3ms",
             receiver_delay="3ms", start_spread="5s", packet_size=f"{PKT}B", **extra)
    p = _params(cc, alpha)
    if tc_max and cc.endswith("+ktcp"):
        p["ktcp_tc_max"] = tc_max
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
           dur: int, jitter: bool = True, tc_max: int = 0) -> List[Run]:
    """One run per (configuration, d, seed): n_x flows of the configuration's algorithm
    (group "x") and n_sack SACK flows (group "sack"). Runs off the default settings (no jitter,
    a bound on T_c) get a key suffix; with a bound on T_c only the KTCP configurations run (the
    others' scenarios are those of the unbounded runs)."""
    runs = []
    tag = ("" if jitter else ",nojit") + (f",tc<={tc_max}" if tc_max else "")
    for c in configs:
        cc, alpha = CONFIGS[c]
        if tc_max and not cc.endswith("+ktcp"):
            continue
        for d in ds:
            for seed in range(1, seeds + 1):
                groups = [_group("x", cc, n_x, alpha, jitter, tc_max)]
                if n_sack:
                    groups.append(_group("sack", SACK, n_sack, jitter=jitter))
                runs.append(Run(f"{c},d={d},s={seed}{tag}", _scenario(groups, d, dur), seed,
                                {"config": c, "d_ms": d, "seed": seed, "jitter": jitter, "tc_max": tc_max}))
    return runs


#: The settings the paper leaves open, swept as variants: name -> (send jitter, bound on T_c).
#: The first is the default (see ``VARIANT_WHY``).
TC_MAX = 3
VARIANTS: Dict[str, Tuple[bool, int]] = {
    "jitter, T_c unbounded": (True, 0),
    "no jitter, T_c unbounded": (False, 0),
    f"jitter, T_c <= {TC_MAX}": (True, TC_MAX),
    f"no jitter, T_c <= {TC_MAX}": (False, TC_MAX),
}
DEFAULT_VARIANT = "jitter, T_c unbounded"
JITTER_TEXT = {
    True: "a random 0-12 us delay before each packet leaves its sender (ns-2's `overhead`, one packet time)",
    False: "no send jitter (the only randomness is the flows' start times, as the paper describes)",
}
TC_TEXT = {
    0: "T_c counts every fast retransmit until a timeout (eq. (2) as the paper defines T_c)",
    TC_MAX: f"T_c stops at {TC_MAX} (`ktcp_tc_max = {TC_MAX}`: B stays {TC_MAX}^2 w2, section 3's "
            "\"keeps it constant\"; the paper gives no bound, this one is cclab's)",
}


def variant_text(name: str) -> str:
    """What a variant's runs do, in words."""
    j, t = VARIANTS[name]
    return f"{JITTER_TEXT[j]}; {TC_TEXT[t]}."


VARIANT_WHY = ("Default: it keeps the earlier full form's runs (10 seeds, four d); with the jitter the "
               "DropTail queue's drops are not locked to the flows' phases, a deterministic artefact the "
               "paper's random start times were meant to avoid ('to prevent any global synchronization'); "
               "and T_c unbounded is eq. (2) with T_c as the paper defines it (a count of fast "
               "retransmissions, reset by a timeout).")


#: The cause a setting of the variants is, when the variant without it explains a failing check
#: (``_ablate``): one sentence per setting, the same for every check and figure it moves, so that a
#: report lists one cause once, however many checks it explains.
SETTING_CAUSES: Dict[str, str] = {
    "jitter": "the send jitter: it spreads the DropTail queue's drops over the flows, so that they also reach "
              "a KTCP flow while it holds its window (each such loss sets w2 to alpha times the held window)",
    "no jitter": "no send jitter: the DropTail queue's drops fall in a fixed phase with the flows' growth and "
                 "spare a KTCP flow while it holds its window",
    "unbounded": "T_c unbounded: a KTCP flow's holds lengthen with every fast retransmit until a timeout, and "
                 "can outlast the intervals between losses",
    "bounded": "T_c capped: a KTCP flow's holds stay short, and it soon grows back into the drops",
}


def _select(data: Mapping[str, pd.DataFrame], jitter: bool, tc_max: int, seeds: Optional[int] = None,
            ds: Optional[Sequence[int]] = None) -> Dict[str, pd.DataFrame]:
    """The tables of one variant: its jitter setting; the KTCP runs with its bound on T_c and the
    others' (which have none); at most ``seeds`` seeds and only the delays ``ds``."""
    out = {}
    for name, df in data.items():
        m = df.jitter.astype(bool) == jitter
        ktcp = df.config.map(lambda c: CONFIGS[c][0].endswith("+ktcp"))
        m &= (df.tc_max == tc_max) | ~ktcp
        if seeds is not None:
            m &= df.seed <= seeds
        if ds is not None:
            m &= df.d_ms.isin(list(ds))
        out[name] = df[m].drop(columns=["jitter", "tc_max"]).reset_index(drop=True)
    return out


def _ktcp_idle(df: pd.DataFrame, d: int, configs: Sequence[str], cols: Sequence[str]) -> bool:
    """True when ``configs`` (the KTCP configurations with different alphas, or KTCP and its
    wrapped algorithm) give the same ``cols`` in every seed at delay ``d``: KTCP's cap
    w2 = alpha w1 never bound, so it never entered its non-aggressive period."""
    at = df[(df.d_ms == d) & df.config.isin(list(configs))]
    if at.config.nunique() < 2:
        return False
    spread = at.groupby("seed")[list(cols)].agg(lambda x: float(np.ptp(x.to_numpy(dtype=float))))
    return bool((spread.to_numpy() <= 1e-9).all())


def _gain(a: pd.DataFrame, b: pd.DataFrame, col: str, d: int) -> Tuple[float, float]:
    """Mean of ``col`` in ``a`` minus in ``b`` at delay ``d``, and the half-width of its 95%
    interval (the two intervals combined in quadrature: independent runs)."""
    ma, ha = mean_ci(a.loc[a.d_ms == d, col].to_numpy())
    mb, hb = mean_ci(b.loc[b.d_ms == d, col].to_numpy())
    return ma - mb, float(np.hypot(ha, hb))


def _ablate(check: Check, others: Mapping[str, Tuple[str, Optional[Check]]], causes: Mapping[str, str]) -> Check:
    """``check`` (failing in one variant) explained by the same check in a variant that differs in
    one setting, when it passes or closes enough of the gap there. ``others``: that setting's change
    in words -> (the name of this variant's setting the change removes: "jitter", "no jitter",
    "unbounded", "bounded"; the other variant's check); ``causes``: the cause each such setting is
    (``SETTING_CAUSES``; a setting without one is not blamed)."""
    if check.holds:
        return check
    for change, (setting, other) in others.items():
        if other is not None and causes.get(setting):
            ex = check.explained_by(other, cause=causes[setting], change=change)
            if ex.ablation is not None and ex.ablation.explains:
                return ex
    return check


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
    return (D_QUICK, SEEDS_QUICK, 60) if quick else (D_FULL, seeds, DUR_FULL)


def _short(ds: Any, quick: bool) -> List[int]:
    """The delays at which the short-d claims are made: 10 ms in the quick form, <= 50 ms in the full."""
    return [d for d in ds if d <= (10 if quick else 50)]


QUOTE_FIG5 = ("20 TCP with selective acknowledgment option (SACK) flows which is approximately the same "
              "throughput performance as that of one HSTCP flow as shown in Fig. 5")


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
                  all(0.8 <= ratio[d] <= 1.25 for d in short), "SACK/HSTCP " + _fmt(ratio),
                  quote=QUOTE_FIG5, section="§4, Fig. 5"),
        ]
        notes = []
        if 200 in ratio:
            checks.append(claim("at d = 200 ms, 20 SACK flows get about what one HSTCP flow gets (0.8-1.25)",
                                0.8 <= ratio[200] <= 1.25, f"SACK/HSTCP {ratio[200]:.2f}",
                                quote=QUOTE_FIG5, section="§4, Fig. 5",
                                reason="one HSTCP flow alone leaves slow start at its first burst losses, "
                                "far below the bandwidth-delay product, and HighSpeed's a(w) at that small "
                                "window climbs too slowly over the long round trip to fill the link within "
                                "the run, while 20 SACK flows climb one packet per round trip each"))
        md = _table({"throughput (Mbit/s)": st}, ["SACK", "HSTCP"])
        return Report(figures={"fig5": fig}, checks=checks, markdown=md, notes=notes)
