"""docs/algorithms/img/bbr-state.png: one BBR flow alone on 100 Mbit/s, 40 ms, a DropTail
buffer of one BDP (333 packets), over 22 s: pacing rate and bandwidth estimate, cwnd and the
bottleneck queue, and BBR's mode, with PROBE_RTT at about 10 and 20 s. Also prints the figures
docs/algorithms/bbr.md quotes: the PROBE_RTT spans of that run, utilization and mean queue of
the same path measured over [4 s, 12 s], and BBR's share against CUBIC in deep buffers.

Run from the repository root: python docs/algorithms/img/make_bbr.py
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import cclab  # noqa: E402

SCENARIO = {
    "name": "bbr-state",
    "duration": "22s",
    "sample_interval": "5ms",
    "topology": {"kind": "dumbbell", "bottleneck": {"rate": "100Mbps", "delay": "18ms", "buffer": "333pkts"}},
    "flows": [{"cc": "bbr", "recovery": "sack", "rtt": "40ms", "access_rate": "1Gbps"}],
}
MODES = ["STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT"]


def main() -> None:
    r = cclab.run(SCENARIO, seed=1)
    cs, fs, qs = r.cc_series, r.flow_series, r.queue_series
    fig, ax = plt.subplots(3, 1, figsize=(9, 7.5), sharex=True)
    ax[0].plot(cs["time_s"], cs["pacing_rate_bps"] / 1e6, lw=0.6, label="pacing rate")
    ax[0].plot(cs["time_s"], cs["bw_bps"] / 1e6, lw=1.2, label="bandwidth estimate (max filter)")
    ax[0].set_ylabel("Mbit/s")
    ax[0].set_ylim(0, 300)
    ax[0].legend(loc="upper right", fontsize=8)
    ax[1].plot(fs["time_s"], fs["cwnd"], lw=0.8, label="cwnd")
    ax[1].plot(qs["time_s"], qs["len_pkts"], lw=0.6, label="bottleneck queue")
    ax[1].axhline(333, color="grey", ls=":", lw=0.8, label="1 BDP (buffer)")
    ax[1].set_ylabel("packets")
    ax[1].legend(loc="upper right", fontsize=8)
    ax[2].step(cs["time_s"], cs["state"].map(MODES.index), where="post", lw=0.8)
    ax[2].plot(cs["time_s"], cs["pacing_gain"] + 4.5, lw=0.6, color="C2", label="pacing gain + 4.5")
    ax[2].set_yticks(range(4), MODES)
    ax[2].set_xlabel("time (s)")
    ax[2].legend(loc="upper right", fontsize=8)
    fig.suptitle("cclab bbr: 1 flow, 100 Mbit/s, 40 ms, DropTail 1 BDP")
    fig.tight_layout()
    out = Path(__file__).with_name("bbr-state.png")
    fig.savefig(out, dpi=110)
    print(out)
    st = cs["state"].to_numpy()
    t = cs["time_s"].to_numpy()
    edges = [i for i in range(1, len(st)) if (st[i] == "PROBE_RTT") != (st[i - 1] == "PROBE_RTT")]
    print("PROBE_RTT entered/left at (s):", [round(float(t[i]), 3) for i in edges])
    steady = dict(SCENARIO, duration="12s", warmup="4s")
    s = cclab.run(steady, seed=1).summary()
    print(f"1 flow, [4 s, 12 s]: utilization {s['bottleneck_utilization']:.4f}, "
          f"mean queue {s['bottleneck_mean_queue_pkts']:.1f} packets (1 BDP = 333)")
    bdp = 20e6 * 0.04 / 8 / 1500
    print("BBR's share against n CUBIC, 20 Mbit/s, 40 ms, [30 s, 90 s], seeds 1-3:")
    for n, buf in [(1, 8), (4, 8), (16, 8), (1, 16), (4, 16), (16, 16)]:
        sc = {"name": "share", "duration": "90s", "warmup": "30s",
              "topology": {"kind": "dumbbell",
                           "bottleneck": {"rate": "20Mbps", "delay": "10ms", "buffer": f"{round(buf * bdp)}pkts"}},
              "flows": [{"cc": "bbr", "recovery": "sack", "rtt": "40ms"},
                        {"cc": "cubic", "recovery": "sack", "rtt": "40ms", "count": n}]}
        shares = []
        for seed in (1, 2, 3):
            g = cclab.run(sc, seed=seed).flows["goodput_bps"].to_numpy()
            shares.append(g[0] / g.sum())
        print(f"  n = {n:2d}, buffer {buf:2d} BDP: " + ", ".join(f"{x:.3f}" for x in shares)
              + f"; mean {sum(shares) / 3:.3f}")


if __name__ == "__main__":
    main()
