"""docs/algorithms/img/bbr3-state.png: one BBRv3 flow alone on 100 Mbit/s, 40 ms, a DropTail
buffer of one BDP (333 packets), over 22 s: pacing rate and bandwidth estimate, cwnd and the
bottleneck queue, and the state (Startup, Drain, the four ProbeBW phases, ProbeRTT) with the
pacing gain. Also prints the figures docs/algorithms/bbr3.md quotes: the ProbeRTT spans of that
run, and BBRv3 against BBR v1 (cc = "bbr") on the same scenarios, seeds 1-3: the cross-check
scenarios 55-57 (scenarios/crosscheck/) with cc changed, and four flows in half a BDP.

Run from the repository root: python docs/algorithms/img/make_bbr3.py
"""

import copy
import tomllib
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import cclab  # noqa: E402

SCENARIO = {
    "name": "bbr3-state",
    "duration": "22s",
    "sample_interval": "5ms",
    "topology": {"kind": "dumbbell", "bottleneck": {"rate": "100Mbps", "delay": "18ms", "buffer": "333pkts"}},
    "flows": [{"cc": "bbr3", "recovery": "sack", "rtt": "40ms", "access_rate": "1Gbps"}],
}
STATES = ["Startup", "Drain", "ProbeBW_DOWN", "ProbeBW_CRUISE", "ProbeBW_REFILL", "ProbeBW_UP", "ProbeRTT"]
ROOT = Path(__file__).resolve().parents[3]


def figure() -> None:
    r = cclab.run(SCENARIO, seed=1)
    cs, fs, qs = r.cc_series, r.flow_series, r.queue_series
    fig, ax = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    ax[0].plot(cs["time_s"], cs["pacing_rate_bps"] / 1e6, lw=0.6, label="pacing rate")
    ax[0].plot(cs["time_s"], cs["bw_bps"] / 1e6, lw=1.2, label="bw = min(max_bw, bw_lo)")
    ax[0].set_ylabel("Mbit/s")
    ax[0].set_ylim(0, 300)
    ax[0].legend(loc="upper right", fontsize=8)
    ax[1].plot(fs["time_s"], fs["cwnd"], lw=0.8, label="cwnd")
    ax[1].plot(qs["time_s"], qs["len_pkts"], lw=0.6, label="bottleneck queue")
    ax[1].axhline(333, color="grey", ls=":", lw=0.8, label="1 BDP (buffer)")
    ax[1].set_ylabel("packets")
    ax[1].legend(loc="upper right", fontsize=8)
    ax[2].step(cs["time_s"], cs["state"].map(STATES.index), where="post", lw=0.8)
    ax[2].plot(cs["time_s"], cs["pacing_gain"] + 6.5, lw=0.6, color="C2", label="pacing gain + 6.5")
    ax[2].set_yticks(range(len(STATES)), STATES)
    ax[2].set_xlabel("time (s)")
    ax[2].legend(loc="upper right", fontsize=8)
    fig.suptitle("cclab bbr3: 1 flow, 100 Mbit/s, 40 ms, DropTail 1 BDP")
    fig.tight_layout()
    out = Path(__file__).with_name("bbr3-state.png")
    fig.savefig(out, dpi=110)
    print(out)
    st, t = cs["state"].to_numpy(), cs["time_s"].to_numpy()
    edges = [i for i in range(1, len(st)) if (st[i] == "ProbeRTT") != (st[i - 1] == "ProbeRTT")]
    print("ProbeRTT entered/left at (s):", [round(float(t[i]), 3) for i in edges])
    inside = [fs["cwnd"][j] for j in range(len(fs)) if st[min(j, len(st) - 1)] == "ProbeRTT"]
    print(f"cwnd in ProbeRTT (5 ms samples): {min(inside):.0f}-{max(inside):.0f} packets")


def with_cc(sc: dict, cc: str) -> dict:
    sc = copy.deepcopy(sc)
    for f in sc["flows"]:
        if f["cc"] == "bbr":
            f["cc"] = cc
    return sc


def compare() -> None:
    shallow = {
        "name": "shallow-4", "duration": "30s", "warmup": "5s",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "100Mbps", "delay": "10ms", "buffer": "0.5bdp"}},
        "flows": [{"cc": "bbr", "recovery": "sack", "rtt": "40ms", "count": 4}],
    }
    cases = [("4 flows, 0.5 BDP (tests/bbr3.rs)", shallow)]
    for name in ("55-bbr-one", "56-bbr-four", "57-bbr-vs-cubic-deep"):
        with open(ROOT / "scenarios" / "crosscheck" / f"{name}.toml", "rb") as fh:
            cases.append((name, tomllib.load(fh)))
    print("BBRv3 against BBR v1, seeds 1-3 (means): utilization, retransmissions, mean queue, "
          "goodput share of the bbr flows")
    for name, sc in cases:
        for cc in ("bbr", "bbr3"):
            util = retx = queue = share = 0.0
            per_seed = []
            for seed in (1, 2, 3):
                r = cclab.run(with_cc(sc, cc), seed=seed)
                s = r.summary()
                util += s["bottleneck_utilization"] / 3
                queue += s["bottleneck_mean_queue_pkts"] / 3
                retx += float(r.flows["retransmits"].sum()) / 3
                g = r.flows["goodput_bps"].to_numpy()
                ccs = r.flows["cc"].to_numpy() if "cc" in r.flows else None
                mine = g[[i for i in range(len(g)) if ccs is None or str(ccs[i]) == cc]].sum()
                share += mine / g.sum() / 3
                per_seed.append(mine / g.sum())
            print(f"  {name:34s} {cc:5s} utilization {util:.4f}  retransmissions {retx:8.0f}  "
                  f"mean queue {queue:6.1f}  share {share:.3f} ("
                  + ", ".join(f"{x:.3f}" for x in per_seed) + ")")


def convergence() -> None:
    sc = {
        "name": "two-bbr3", "duration": "40s", "warmup": "20s",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "100Mbps", "delay": "10ms", "buffer": "1bdp"}},
        "flows": [{"cc": "bbr3", "recovery": "sack", "rtt": "40ms"},
                  {"cc": "bbr3", "recovery": "sack", "rtt": "40ms", "start": "5s"}],
    }
    s = cclab.run(sc, seed=1).summary()
    print(f"two bbr3 flows, the second 5 s later, [20 s, 40 s] (tests/bbr3.rs): Jain {s['jain_index']:.4f}, "
          f"utilization {s['bottleneck_utilization']:.4f}")


def ecn() -> None:
    for on in (1, 0):
        sc = {
            "name": "bbr3-ecn", "duration": "10s", "warmup": "3s",
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "1Gbps", "delay": "1ms", "buffer": "1000pkts",
                                                            "queue_params": {"ecn_threshold": 30}}},
            "flows": [{"cc": "bbr3", "recovery": "sack", "rtt": "4ms", "count": 2, "cc_params": {"ecn": on}}],
        }
        r = cclab.run(sc, seed=1)
        s = r.summary()
        print(f"two bbr3 flows, 1 Gbit/s, 4 ms, marking at K = 30, ecn = {on} (tests/bbr3.rs): mean queue "
              f"{s['bottleneck_mean_queue_pkts']:.1f} packets, utilization {s['bottleneck_utilization']:.4f}, "
              f"drops {s['bottleneck_drops']:.0f}")


if __name__ == "__main__":
    figure()
    convergence()
    ecn()
    compare()
