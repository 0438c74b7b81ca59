"""docs/img/delay-reno.png and the results table of docs/writing-an-algorithm.md: the worked
example, delay-reno (Reno whose increase pauses while SRTT - RTT_min > 5 ms), against the
built-in newreno on scenarios/quickstart.toml (4 flows with SACK, 100 Mbit/s, 40 ms, a buffer of
one BDP, 30 s, seed 1). delay-reno runs twice, from its plugin (examples/plugin-cc, built with
cargo first) and from its Python prototype (examples/python_cc.py); the script checks they give
the same results and prints the table.

Run from the repository root: python docs/img/make_delay_reno.py
"""

import os
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

import cclab  # noqa: E402
import python_cc  # noqa: E402


def plugin() -> Path:
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "delay-reno"], cwd=ROOT, check=True)
    suffix = {"darwin": "lib{}.dylib", "win32": "{}.dll"}.get(sys.platform, "lib{}.so")
    return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / suffix.format("delay_reno")


def main() -> None:
    cclab.load_plugin(plugin())
    cclab.register_cc("py-delay-reno", python_cc.DelayReno)
    base = cclab.load_scenario(ROOT / "scenarios" / "quickstart.toml")
    runs = {}
    for name in ["newreno", "delay-reno", "py-delay-reno"]:
        sc = {**base, "flows": [dict(g, cc=name) for g in base["flows"]]}
        runs[name] = cclab.run(sc, seed=1)
    a, b = runs["delay-reno"], runs["py-delay-reno"]
    same = all(a.tables()[t].drop(columns="cc", errors="ignore").equals(b.tables()[t].drop(columns="cc", errors="ignore"))
               for t in cclab.result.TABLES)
    print(f"plugin and Python prototype give the same tables: {same}")
    print()
    print("| cc | built as | goodput Mbit/s | utilization | mean queue pkts | drops | retransmits | timeouts | "
          "mean RTT ms | Jain | wall s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in runs.items():
        s, f = r.summary(), r.flows
        kind = {"newreno": "built in", "delay-reno": "plugin", "py-delay-reno": "Python"}[name]
        rtt = (f["rtt_mean_s"] * f["delivered_bytes"]).sum() / f["delivered_bytes"].sum() * 1e3
        print(f"| {name} | {kind} | {s['total_goodput_bps'] / 1e6:.2f} | {s['bottleneck_utilization']:.4f} | "
              f"{s['bottleneck_mean_queue_pkts']:.1f} | {s['bottleneck_drops']} | {int(f['retransmits'].sum())} | "
              f"{s['timeouts']} | {rtt:.1f} | {s['jain_index']:.4f} | {s['wall_time_s']:.2f} |")

    fig, ax = plt.subplots(3, 1, figsize=(8, 7.5), sharex=True, layout="constrained")
    colors = {"newreno": "tab:blue", "delay-reno": "tab:red"}
    for name in ["newreno", "delay-reno"]:
        r = runs[name]
        q = r.timeseries("queues")
        q = q[q["name"] == "bottleneck"]
        ax[0].plot(q["time_s"], q["len_pkts"], color=colors[name], lw=0.8, label=name)
        fs = r.timeseries("flows")
        f0 = fs[fs["flow"] == 0]
        ax[1].plot(f0["time_s"], f0["cwnd"], color=colors[name], lw=0.8, label=f"{name}, flow 0")
        ax[2].plot(f0["time_s"], f0["srtt_s"] * 1e3, color=colors[name], lw=0.8, label=f"{name}, flow 0")
    ax[0].axhline(333, color="gray", ls=":", lw=0.8)
    ax[0].text(3, 333, "buffer (1 BDP)", ha="left", va="bottom", fontsize=8, color="gray")
    ax[0].set_ylabel("bottleneck queue, packets")
    ax[1].set_ylabel("cwnd, packets")
    ax[2].set_ylabel("SRTT, ms")
    ax[2].axhline(45, color="gray", ls=":", lw=0.8)
    ax[2].text(3, 45, "40 ms + 5 ms target", ha="left", va="top", fontsize=8, color="gray")
    ax[2].set_xlabel("time, s")
    for a_ in ax:
        a_.legend(loc="upper right", fontsize=8)
        a_.grid(alpha=0.3)
    fig.suptitle("quickstart.toml (4 flows, 100 Mbit/s, 40 ms, 1 BDP): newreno vs delay-reno (target 5 ms)")
    out = Path(__file__).with_name("delay-reno.png")
    fig.savefig(out, dpi=110)
    print(f"\nwrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
