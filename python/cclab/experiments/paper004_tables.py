"""Paper 004: Zhang, Hasegawa, Murata, gHSTCP and gARED: Tables 1-6 (cases 1-31).

Section 3.1's set-up (Fig. 3): five flows S1 on 100 Mbit/s access links and five
flows S2 on 1 Gbit/s access links share a 2.5 Gbit/s bottleneck of 25, 50 or
100 ms, routers with 10,000-packet buffers, 1500-byte packets, greedy FTP.
The paper's tables give, per case and delay, the 95% confidence interval of the
total average throughput, the utilization (%) and a fairness index: Jain's index
of x_i = M_i / C_i, C_i the max-min fair share. The groups' throughputs did not
survive the paper's text; utilization and fairness are compared, and the
intervals are shown beside cclab's.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np
import pandas as pd

from . import register
from . import paper004_checks as K
from .base import Check, Experiment, Report, Run, claim
from .common import dumbbell, figure, flow

C_BPS = 2.5e9
ACCESS_BPS = (100e6, 1e9)  # S1's and S2's access links: each flow's cap in the max-min split
SEEDS_FULL = 3  # the paper's confidence intervals need several runs; it does not say how many
DUR_FULL, DUR_QUICK = 300, 80  # quick: at 1/10 scale HSTCP needs ~60 s to push the Reno flows down

# name -> (cc, recovery)
PROTO = {
    "Reno": ("reno", "reno"),
    "Reno+SACK": ("reno", "sack"),
    "HSTCP": ("highspeed", "reno"),
    "HSTCP+SACK": ("highspeed", "sack"),
    "gHSTCP": ("ghstcp", "reno"),
    "gHSTCP+SACK": ("ghstcp", "sack"),
}

# table -> (title, queue, params, cases: (case, S1, S2, {delay_ms: (utilization %, fairness)}))
H, G = "HSTCP", "gHSTCP"
_THREE = [("Reno", H), ("Reno", H + "+SACK"), ("Reno+SACK", H + "+SACK"),
          ("Reno", G), ("Reno", G + "+SACK"), ("Reno+SACK", G + "+SACK")]


def _cases(first: int, pairs: Sequence[Tuple[str, str]], published: Sequence[Sequence[str]]):
    """Each published row, as printed: (confidence interval Mbit/s, utilization %, fairness) at 25, 50, 100 ms."""
    out = []
    for i, ((s1, s2), row) in enumerate(zip(pairs, published)):
        out.append((first + i, s1, s2, {d: tuple(row[3 * j:3 * j + 3]) for j, d in enumerate((25, 50, 100))}))
    return out


TABLES: Dict[int, Tuple[str, str, Dict[str, float], list]] = {
    1: ("Performance of HSTCP with DropTail (cases 1-4)", "droptail", {}, _cases(1, [
        ("Reno", "Reno"), ("Reno", H), ("Reno", H + "+SACK"), ("Reno+SACK", H + "+SACK")], [
        ("113.824", "87.361", "0.994", "109.676", "75.634", "0.976", "199.217", "83.989", "0.989"),
        ("12.549", "70.925", "0.887", "14.005", "64.362", "0.821", "49.861", "60.923", "0.747"),
        ("0.947", "97.489", "0.582", "2.040", "97.397", "0.581", "1.084", "95.603", "0.556"),
        ("3.345", "97.618", "0.652", "1.532", "97.431", "0.629", "0.981", "95.668", "0.591")])),
    2: ("Performance of gHSTCP with DropTail (cases 5-7)", "droptail", {}, _cases(5, _THREE[3:], [
        ("24.621", "87.908", "0.997", "12.540", "78.933", "0.925", "16.031", "72.177", "0.849"),
        ("1.556", "97.405", "0.893", "1.808", "97.230", "0.741", "1.750", "96.034", "0.612"),
        ("1.176", "97.540", "0.986", "1.936", "97.362", "0.897", "1.209", "96.202", "0.724")])),
    3: ("Performance of HSTCP/gHSTCP with RED, max_p = 0.1 (cases 8-13)", "red", {"max_p": 0.1}, _cases(8, _THREE, [
        ("59.000", "66.891", "0.998", "35.620", "57.937", "0.920", "80.048", "61.054", "0.881"),
        ("4.097", "93.889", "0.782", "2.191", "90.303", "0.666", "4.882", "88.831", "0.600"),
        ("1.564", "93.920", "0.841", "1.610", "90.356", "0.710", "3.842", "38.943", "0.635"),
        ("12.774", "81.549", "0.998", "25.582", "69.398", "0.993", "47.055", "64.702", "0.885"),
        ("2.906", "95.065", "0.979", "7.477", "91.388", "0.838", "4.729", "89.124", "0.625"),
        ("1.385", "95.062", "0.993", "4.357", "91.595", "0.906", "3.568", "89.240", "0.691")])),
    4: ("Performance of HSTCP/gHSTCP with RED, max_p = 0.001 (cases 14-19)", "red", {"max_p": 0.001},
        _cases(14, _THREE, [
            ("2.643", "97.193", "0.985", "14.792", "94.621", "0.950", "29.052", "87.515", "0.947"),
            ("1.634", "97.483", "0.981", "2.891", "96.377", "0.934", "6.305", "93.250", "0.829"),
            ("0.745", "97.481", "0.979", "1.486", "96.463", "0.946", "6.065", "93.356", "0.848"),
            ("0.849", "97.435", "1.000", "2.516", "96.615", "1.000", "24.977", "92.151", "0.987"),
            ("0.767", "97.455", "1.000", "1.738", "97.145", "0.996", "3.384", "94.022", "0.951"),
            ("1.983", "97.403", "1.000", "1.726", "97.062", "1.000", "7.117", "93.896", "0.953")])),
    5: ("Performance of HSTCP/gHSTCP with ARED (cases 20-25)", "ared", {}, _cases(20, _THREE, [
        ("10.075", "91.465", "0.995", "24.128", "81.059", "0.992", "20.574", "70.070", "0.976"),
        ("4.323", "95.813", "0.970", "7.216", "92.558", "0.887", "7.465", "89.026", "0.778"),
        ("4.080", "95.690", "0.980", "7.515", "92.707", "0.887", "16.732", "88.473", "0.801"),
        ("4.665", "96.766", "1.000", "6.549", "91.555", "1.000", "27.368", "80.035", "0.984"),
        ("0.828", "96.965", "1.000", "8.815", "95.294", "0.988", "5.446", "91.502", "0.897"),
        ("2.842", "97.041", "1.000", "3.232", "94.892", "0.994", "15.010", "91.522", "0.902")])),
    6: ("Performance of HSTCP/gHSTCP with gARED (cases 26-31)", "gared", {}, _cases(26, _THREE, [
        ("10.496", "96.761", "0.976", "22.905", "90.103", "0.895", "185.851", "79.353", "0.827"),
        ("1.591", "97.543", "0.980", "1.542", "97.406", "0.844", "2.875", "95.702", "0.555"),
        ("1.741", "97.508", "0.975", "1.860", "97.425", "0.789", "3.914", "96.357", "0.652"),
        ("10.335", "97.277", "1.000", "30.243", "95.227", "0.995", "113.194", "94.362", "0.942"),
        ("2.014", "97.511", "1.000", "6.657", "97.328", "0.990", "12.327", "96.307", "0.824"),
        ("2.023", "97.310", "1.000", "2.773", "97.443", "1.000", "9.237", "96.528", "0.962")])),
}
# Table 3, case 10 at 100 ms prints 38.943 % (see paper004_checks.misprint); Tables 1 and 2 print the
# case numbers 8-13 for Table 4 too, whose text calls them cases 14-19.

#: Open choices swept, per table: (variant, queue params added, send jitter, description, default, why).
_JITTER = [
    ("jitter", {}, True, "each packet leaves its sender after a random 0-12 us (ns-2's `overhead_`).", True,
     "Default: without it the deterministic TailDrop queue drops by arrival phase (see the assumptions), which "
     "the paper's UDP background and ns-2's own timing noise would break; the paper does not say."),
    ("no-jitter", {}, False, "packets leave their senders at once (the paper states no jitter).", False, ""),
]
_FLOORS = [
    ("ARED floor 0.01", {"bottom": 0.01}, True, "ARED's lower bound of max_p is 0.01.", True,
     "Default: §4.1 gives max_p's range as (0.01, 0.5), and §4.2 names the floor set by the manager as ARED's "
     "weakness; cclab's queue default (ns-2's later rule) removes that weakness from ARED itself."),
    ("ARED floor auto", {}, True, "ARED's lower bound of max_p is min(0.01, 80000/C) (cclab's queue default, "
     "ns-2's rule; 3.2e-5 at 2.5 Gbit/s).", False, ""),
]
_INITS = [
    ("gARED max_p0 0.1", {}, True, "gARED starts from max_p = 0.1 (ARED's initial value, cclab's default).", True,
     "Default: gARED is ARED with another adaptation rule (§4.3), so it starts where ARED starts; the paper "
     "gives no initial value."),
    ("gARED max_p0 0.01", {"max_p": 0.01}, True, "gARED starts from max_p = 0.01 (ARED's floor in §4.1).", False, ""),
    ("gARED max_p0 0.001", {"max_p": 0.001}, True, "gARED starts from max_p = 0.001 (Table 4's tuned RED).", False,
     ""),
]
_ONE = [("default", {}, True, "", True, "")]
#: The send jitter's sensitivity check in the RED-family tables: no jitter, 25 ms only (a variant's
#: optional seventh element restricts its delays). RED's random early drops already break the
#: TailDrop phase effects the jitter is there for; this measures whether any verdict moves anyway.
_NOJIT = ("no-jitter", {}, False, "packets leave their senders at once (the paper states no jitter); 25 ms only, "
          "a sensitivity check of the default's cells.", False, "", (25,))
_NOJIT_ARED = ("no-jitter", {"bottom": 0.01}, False, "packets leave their senders at once, ARED's floor of max_p "
               "0.01; 25 ms only, a sensitivity check of the default's cells.", False, "", (25,))
VARIANTS = {1: _JITTER, 2: _JITTER, 3: _ONE + [_NOJIT], 4: _ONE + [_NOJIT], 5: _FLOORS + [_NOJIT_ARED],
            6: _INITS + [_NOJIT]}

SETUP = [
    "Fig. 3's dumbbell: 5 S1 flows on 100 Mbit/s access links and 5 S2 flows on 1 Gbit/s access links, a "
    "2.5 Gbit/s bottleneck of 25/50/100 ms, 10,000-packet router buffer, 1500-byte packets, flows starting "
    "in the first second; 'Reno' is cclab's `reno` with Reno recovery (ns-2's, with `bugfix_`), '+SACK' SACK "
    "recovery; HSTCP is `highspeed` (RFC 3649 table), gHSTCP `ghstcp`.",
    "Not in the paper, chosen: access links buffer 10,000 packets like the routers (the paper gives no "
    "access buffer; with ns-2's default of 50 a Reno flow cannot fill its 100 Mbit/s link, which the paper "
    "says the S1 flows do in case 1; an unlimited one lets it queue seconds of data in front of its own "
    "link); no UDP background traffic (the paper gives none of its parameters; docs/algorithms/ghstcp.md "
    "found on/off UDP sources changed nothing systematic); send jitter of 0-12 us per packet (one packet "
    "time at 1 Gbit/s, ns-2's `overhead_`), swept in Tables 1 and 2 (with and without) and, at 25 ms, in "
    "Tables 3-6 (a sensitivity check: RED's random drops already break the phase effects); "
    f"{DUR_FULL} s runs measured over the second half (the paper: 'the latter half of the simulation "
    f"time', length not given; windows of thousands of packets need minutes to leave their start-up), "
    f"{SEEDS_FULL} seeds per point; tolerances are the paper's printed precision plus the half-width of "
    "cclab's 95% Student-t interval over the seeds.",
    "Fairness: C_i is the max-min split of the throughput the ten flows achieved together, each flow capped "
    "by its access link (docs/algorithms/ghstcp.md); the index is computed per run and averaged over the "
    "seeds. The capacity reading is in the CSV (`fairness_capacity`).",
    "Per-cell checks carry the other protocol's value in the same queue/delay cell (case c against case c ± 3: "
    "HSTCP against gHSTCP) as `against`: a value both protocols reach (a saturated link) is uninformative.",
    "RED (Tables 3, 4): the paper's min_th = 2,500, max_th = 3 min_th, w_q = 0.002 and ns-2's other "
    "defaults (gentle); ARED and gARED min_th = 2,500 (max_th, w_q, target automatic, docs/queues/red.md). "
    "ARED's floor of max_p and gARED's initial max_p are left open by the paper and swept (Tables 5, 6).",
    f"Quick form: rates and buffers divided by 10 (250 Mbit/s, 10 and 100 Mbit/s access links, 1,000 packets, "
    f"min_th 250), 25 ms only, {DUR_QUICK} s, one seed.",
]


def _scenario(s1: str, s2: str, d_ms: int, queue: str, qp: Dict[str, float], quick: bool,
              duration: int = 0, jitter: bool = True) -> Dict[str, Any]:
    scale = 10 if quick else 1
    rate = C_BPS / scale
    buf = 10_000 // scale
    params = dict(qp)
    if queue != "droptail":
        params.setdefault("min_th", 2500 / scale)
        if queue == "red":
            params.setdefault("max_th", 7500 / scale)
            params.setdefault("q_weight", 0.002)
    flows = []
    for proto, access in ((s1, ACCESS_BPS[0] / scale), (s2, ACCESS_BPS[1] / scale)):
        cc, rec = PROTO[proto]
        extra = {"overhead": f"{12 * scale}us"} if jitter else {}
        flows.append(flow(cc, recovery=rec, count=5, access_rate=f"{access:g}bps", access_buffer=f"{buf}pkts",
                          start_spread="1s", **extra))
    dur = duration or (DUR_QUICK if quick else DUR_FULL)
    return dumbbell(f"{rate:g}bps", f"{d_ms}ms", f"{buf}pkts", flows, f"{dur}s", warmup=f"{dur // 2}s",
                    queue=queue, queue_params=params or None)


def max_min(total: float, caps: Sequence[float]) -> np.ndarray:
    """The max-min fair split of ``total`` among flows capped at ``caps`` (water filling)."""
    caps = np.asarray(caps, dtype=float)
    share = np.zeros_like(caps)
    left = float(total)
    for k, i in enumerate(np.argsort(caps, kind="stable")):
        share[i] = min(caps[i], left / (len(caps) - k))
        left -= share[i]
    return share


def fairness(goodput_bps: Sequence[float], scale: int = 1, capacity: bool = False) -> float:
    """The paper's index: Jain's index of M_i / C_i, C_i the max-min fair share of the throughput
    achieved (or, with ``capacity``, of the link's capacity); S1 flows first, then S2."""
    g = np.asarray(goodput_bps, dtype=float)
    caps = np.repeat(np.asarray(ACCESS_BPS) / scale, 5)
    x = g / max_min(C_BPS / scale if capacity else g.sum(), caps)
    return float(x.sum() ** 2 / (len(x) * (x * x).sum()))


def _delays(quick: bool) -> Tuple[int, ...]:
    return (25,) if quick else (25, 50, 100)


def _runs(table: int, cases: Sequence[int], quick: bool, delays: Sequence[int] = ()) -> List[Run]:
    """The runs of ``cases`` (numbers of ``table``'s queue) under every variant of ``table``, over the seeds."""
    _, queue, qp, _ = TABLES[table]
    pairs = {c: (s1, s2) for t in TABLES.values() for c, s1, s2, _ in t[3]}
    seeds = 1 if quick else SEEDS_FULL
    out = []
    for name, vqp, jitter, *rest in VARIANTS[table]:
        only = rest[3] if len(rest) > 3 else None
        for c in cases:
            s1, s2 = pairs[c]
            for d in [d for d in delays or _delays(quick) if only is None or d in only]:
                sc = _scenario(s1, s2, d, queue, {**qp, **vqp}, quick, jitter=jitter)
                out += [Run(f"{name}/case{c},d={d},seed={seed}", sc, seed,
                            {"variant": name, "queue": queue, "case": c, "s1": s1, "s2": s2, "delay_ms": d})
                        for seed in range(1, seeds + 1)]
    return out


class _Table(Experiment):
    paper = "004"
    table = 0
    assumptions = SETUP
    #: The cases run: the table's own, plus those its checks compare with.
    extra: Tuple[Tuple[int, Tuple[int, ...]], ...] = ()

    @property
    def spec(self):
        return TABLES[self.table]

    def runs(self, quick: bool) -> List[Run]:
        own = _runs(self.table, [c for c, *_ in self.spec[3]], quick)
        return own + [r for t, cs in self.extra for r in _runs(t, cs, quick)]

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        g = res.flows.goodput_bps.to_numpy()
        s = res.summary()
        scale = 10 if res.links.rate_bps.iloc[0] < 1e9 else 1
        q = res.queues[res.queues.role == "bottleneck"] if "bottleneck" in set(res.queues.role) else res.queues
        q = q.loc[q.arrivals.idxmax()]  # the forward direction of the bottleneck
        return {"cases": {"seed": run.seed, "s1_mbps": g[:5].mean() / 1e6, "s2_mbps": g[5:].mean() / 1e6,
                          "total_mbps": g.sum() / 1e6,
                          "utilization_pct": 100 * s["bottleneck_utilization"],
                          "timeouts": int(res.flows.timeouts.sum()),
                          "drops": int(s["bottleneck_drops"]),
                          "early_drops": int(q.drops_early), "overflow_drops": int(q.drops_overflow),
                          "mean_queue_pkts": s["bottleneck_mean_queue_pkts"],
                          "fairness": fairness(g, scale),
                          "fairness_capacity": fairness(g, scale, capacity=True)}}

    def published(self) -> Dict[int, Dict[int, Tuple[str, str, str]]]:
        return {c: p for t in TABLES.values() for c, _, _, p in t[3]}

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        title, queue, _, cases = self.spec
        d = K.cell_frame(data["cases"])
        variants = []
        for name, _, _, desc, default, why, *_ in VARIANTS[self.table]:
            checks = K.cell_checks(self.table, cases, d, name, queue) + self.claims(d, name, quick)
            variants.append(K.variant(name, desc, checks, default, why))
        default = next(v for v in variants if v.default)
        checks = self.ablate(default.checks, variants)
        md = self.table_md(d, default.name, queue, cases)
        fig = self.figure(d, default.name, queue, cases)
        return Report(figures={f"table{self.table}": fig}, checks=checks, markdown=md,
                      variants=variants if len(variants) > 1 else [])

    def ablate(self, checks: List[Check], variants: List[Any]) -> List[Check]:
        """The default's checks with an ablation from another variant, where one removes a cause."""
        return checks

    def table_md(self, d: pd.DataFrame, v: str, queue: str, cases: list) -> str:
        md = [f"Variant shown: {v}.", "",
              "| case | S1 | S2 | delay (ms) | S1 per flow (Mbit/s) | S2 per flow (Mbit/s) | 95% interval of the "
              "total, Mbit/s (paper / cclab) | utilization % (paper / cclab) | fairness (paper / cclab) | early / "
              "overflow drops, timeouts per run |", "|---" * 10 + "|"]
        for c, s1, s2, pub in cases:
            for dl, (pci, pu, pf) in pub.items():
                if (v, queue, c, dl) not in d.index:
                    continue
                r = d.loc[(v, queue, c, dl)]
                ci = f"{r.total_ci:.1f}" if r.n > 1 else "—"
                md.append(f"| {c} | {s1} | {s2} | {dl} | {r.s1_mbps:.1f} | {r.s2_mbps:.1f} | {pci} / {ci} | "
                          f"{pu} / {r.utilization_pct:.2f} ± {r.util_ci:.2f} | {pf} / {r.fairness:.3f} ± "
                          f"{r.fair_ci:.3f} | {r.early:.0f} / {r.overflow:.0f}, {r.timeouts:.0f} |")
        return "\n".join(md)

    def figure(self, d: pd.DataFrame, v: str, queue: str, cases: list) -> Any:
        fig, axes = figure(1, 2, width=5.0, height=3.4, sharex=False)
        xs = np.arange(len(cases))
        delays = sorted({dl for (vv, q, _, dl) in d.index if vv == v and q == queue})
        for ax, key, pi, lab in ((axes[0], "utilization_pct", 1, "utilization (%)"),
                                 (axes[1], "fairness", 2, "fairness index")):
            for j, dl in enumerate(delays):
                meas = [d.loc[(v, queue, c, dl)][key] if (v, queue, c, dl) in d.index else np.nan for c, *_ in cases]
                pub = [float(p[dl][pi]) for *_, p in cases]
                ax.bar(xs + 0.27 * (j - 1), meas, 0.25, label=f"cclab {dl} ms", alpha=0.8)
                ax.plot(xs + 0.27 * (j - 1), pub, "k_", ms=12, mew=2, label="paper" if j == 0 else None)
            ax.set_xticks(xs)
            ax.set_xticklabels([f"{c}\n{s2}" for c, s1, s2, _ in cases], fontsize=7)
            ax.set_ylabel(lab)
            ax.legend(fontsize=6)
        axes[1].set_ylim(0, 1.05)
        fig.suptitle(f"Table {self.table}: {self.spec[0]} ({v})", fontsize=9)
        return fig

    def claims(self, d: pd.DataFrame, v: str, quick: bool) -> List[Check]:
        return []

    def fairer(self, d: pd.DataFrame, v: str, first: int) -> List[Check]:
        pairs = [(first + i, first + i + 3) for i in range(3)] if first else [(2, 5), (3, 6), (4, 7)]
        return K.fairer(self.table, pairs, self.published(), d, v, self.spec[1])


def _m(d: pd.DataFrame, v: str, q: str, case: int, key: str, dl: int = 25) -> float:
    return float(d.loc[(v, q, case, dl)][key]) if (v, q, case, dl) in d.index else float("nan")


@register
class Table1(_Table):
    name = "table1"
    table = 1
    title = TABLES[1][0]
    extra = ((2, (5, 6, 7)),)  # gHSTCP's cells, the alternative of cases 2-4

    def ablate(self, checks, variants):
        nj = next(v for v in variants if v.name == "no-jitter")
        return K.with_ablations(checks, nj.checks, "cclab's send jitter of 0-12 us per packet, which the paper "
                                "does not state", "no send jitter")

    def claims(self, d, v, quick):
        q, out = "droptail", []
        for dl in _delays(quick):
            a, b = _m(d, v, q, 2, "s1_mbps", dl), _m(d, v, q, 3, "s1_mbps", dl)
            out.append(claim(f"Reno beside HSTCP+SACK (case 3) gets less than beside HSTCP (case 2), {dl} ms", b < a,
                             f"S1 per flow {a:.1f} -> {b:.1f} Mbit/s", section="§3.1, Table 1",
                             quote="Since this function is not available to S1 group, it receives less link "
                                   "bandwidth compared to Case 2."))
            u2, u3 = _m(d, v, q, 2, "utilization_pct", dl), _m(d, v, q, 3, "utilization_pct", dl)
            out.append(claim(f"without SACK the link is under-utilized: case 2 below case 3, {dl} ms", u2 < u3,
                             f"{u2:.1f} vs {u3:.1f} %", section="§3.3",
                             quote="Tables 1 and 2 show that the bottleneck is under-utilized when SACK option "
                                   "isn't present and TailDrop is deployed."))
        return out


@register
class Table2(_Table):
    name = "table2"
    table = 2
    title = TABLES[2][0]
    extra = ((1, (2, 3, 4)),)  # HSTCP's cells

    ablate = Table1.ablate

    def claims(self, d, v, quick):
        q, out = "droptail", []
        for dl in _delays(quick):
            a, b = _m(d, v, q, 2, "s1_mbps", dl), _m(d, v, q, 5, "s1_mbps", dl)
            ua, ub = _m(d, v, q, 2, "utilization_pct", dl), _m(d, v, q, 5, "utilization_pct", dl)
            quote = ("In Case 5, the throughput is significantly improved for both TCP Reno and gHSTCP comparing "
                     "with Case 2.")
            out.append(claim(f"gHSTCP (case 5) gives the Reno flows more than HSTCP (case 2), {dl} ms", b > a,
                             f"S1 per flow {a:.1f} -> {b:.1f} Mbit/s", quote=quote, section="§3.3, Table 2"))
            out.append(claim(f"gHSTCP (case 5) uses the link better than HSTCP (case 2), {dl} ms", ub > ua,
                             f"{ua:.1f} -> {ub:.1f} %", quote=quote, section="§3.3, Table 2"))
        return out + self.fairer(d, v, 0)


@register
class Table3(_Table):
    name = "table3"
    table = 3
    title = TABLES[3][0]

    def claims(self, d, v, quick):
        u8, u9 = _m(d, v, "red", 8, "utilization_pct"), _m(d, v, "red", 9, "utilization_pct")
        return [claim("with RED (max_p = 0.1), SACK raises utilization: case 9 above case 8 (25 ms)", u9 > u8,
                      f"{u8:.1f} -> {u9:.1f} %", section="§3.3, Table 3",
                      quote="link under-utilization is present and total throughput is less than that using "
                            "TailDrop in some cases, especially in the case when the SACK option is not available.")] + self.fairer(d, v, 8)


@register
class Table4(_Table):
    name = "table4"
    table = 4
    title = TABLES[4][0]
    extra = ((3, (8,)),)  # case 8 (max_p = 0.1) for the comparison the paper draws

    def claims(self, d, v, quick):
        u8 = _m(d, "default", "red", 8, "utilization_pct")
        u14 = _m(d, v, "red", 14, "utilization_pct")
        return [claim("a tuned RED (max_p = 0.001) gives HSTCP without SACK a fuller link than max_p = 0.1 (case 14 "
                      "vs case 8, 25 ms)", u14 > u8, f"{u8:.1f} -> {u14:.1f} %", section="§3.3, Table 4",
                      quote="The results in Table 4 show that the system can achieve both higher throughput and "
                            "better fairness in this situation.")] + self.fairer(d, v, 14)


@register
class Table5(_Table):
    name = "table5"
    table = 5
    title = TABLES[5][0]
    extra = ((3, (8,)),)  # case 8 (RED, max_p = 0.1) for the comparison the paper draws

    def claims(self, d, v, quick):
        u8 = _m(d, "default", "red", 8, "utilization_pct")
        u20 = _m(d, v, "ared", 20, "utilization_pct")
        return [claim("ARED improves on RED (max_p = 0.1): HSTCP without SACK uses the link better (case 20 vs "
                      "case 8, 25 ms)", u20 > u8, f"{u8:.1f} -> {u20:.1f} %", section="§4.2, Table 5",
                      quote="System performance is improved in terms of throughput and fairness compared with that "
                            "of RED (Table 3).")] + self.fairer(d, v, 20)


#: Table 6's one proven cause, for the gARED-vs-ARED headline and Table 6's own cells alike
_GARED_STUCK = ("gARED left at ARED's initial max_p of 0.1, which its rule lowers only while the average queue "
                "falls between min_th and the target")


@register
class Table6(_Table):
    name = "table6"
    table = 6
    title = TABLES[6][0]
    extra = ((5, (20, 21, 22, 23, 24, 25)),)  # ARED's cells, for the comparison the paper draws

    def report(self, data, quick):
        rep = super().report(data, quick)
        d = K.cell_frame(data["cases"])
        pub = self.published()
        cmp = {(c, dl): (pub[c - 6][dl][1], pub[c][dl][1]) for c in range(26, 32) for dl in _delays(quick)}
        variants = []
        for g in rep.variants:
            # gARED without jitter is compared with ARED without jitter only
            aredv = [_NOJIT_ARED] if g.name == _NOJIT[0] else _FLOORS
            for a, _, _, adesc, adef, awhy, *_ in aredv:
                cks = g.checks + K.gared_vs_ared(range(26, 32), _delays(quick), d, g.name, a, cmp)
                name = g.name if g.name == _NOJIT[0] else f"{g.name}, {a}"
                desc = g.description if g.name == _NOJIT[0] else f"{g.description} {adesc}"
                variants.append(K.variant(name, desc, cks, g.default and adef,
                                          (g.why + " " + awhy) if g.default and adef else ""))
        default = next(v for v in variants if v.default)
        head = K.gared_vs_ared(range(26, 32), _delays(quick), d, default.name.split(", ")[0],
                               default.name.split(", ")[1], cmp)
        ablated = next(v for v in variants if v.name == f"gARED max_p0 0.001, {_FLOORS[0][0]}")
        head = K.with_ablations(head, ablated.checks, _GARED_STUCK, "initial max_p = 0.001")
        rep.checks = head + rep.checks
        rep.variants = variants
        return rep

    def ablate(self, checks, variants):
        low = next(v for v in variants if v.name == "gARED max_p0 0.001")
        return K.with_ablations(checks, low.checks, _GARED_STUCK, "initial max_p = 0.001")

    def claims(self, d, v, quick):
        return self.fairer(d, v, 26)
