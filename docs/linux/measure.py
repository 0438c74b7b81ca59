"""The figures of docs/linux.md: the delay line's accuracy, the testbed's rate ceiling, and the
first comparison of the kernel's reno and cubic with the simulator's Linux profile.

    sudo PYTHONPATH=python python docs/linux/measure.py [delay|ceiling|compare ...] [--reps N] [--idle-qos on|off|both]

Prints markdown tables (and the load average, since every figure is real time on a shared
machine). Takes about 4 minutes with the default 3 repetitions.
"""

from __future__ import annotations

import argparse
import os
import statistics as st
import warnings

import numpy as np

import cclab
from cclab.linux.testbed import Testbed


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def delay() -> None:
    print(f"\n### Delay line accuracy ({load()})\n")
    print("| one-way delay | ping size | pings | min - set (ms) | mean - set (ms) | mdev (ms) | max - set (ms) | median - set (ms, 3 digits) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for one_way in (0.005, 0.020, 0.050):
        with Testbed(20e6, 1000, None, one_way, one_way) as tb:
            for size in (56, 1400):
                r = np.array(tb.ping_rtt(count=100, interval_s=0.02, size=size)) - 2 * one_way
                m = tb.last_ping_summary
                print(f"| {one_way * 1e3:g} ms | {size} B | {len(r)} | {(m['min'] - 2 * one_way) * 1e3:.3f} "
                      f"| {(m['avg'] - 2 * one_way) * 1e3:.3f} | {m['mdev'] * 1e3:.3f} | {(m['max'] - 2 * one_way) * 1e3:.3f} "
                      f"| {np.median(r) * 1e3:.1f} |")


def scenario(rate: str, rtt_ms: float, cc: str, duration: float, warmup: float, stack: str = "cclab") -> dict:
    return {"name": f"{cc}-{rate}", "duration": f"{duration}s", "warmup": f"{warmup}s", "sample_interval": "100ms",
            "topology": {"kind": "dumbbell",
                         "bottleneck": {"rate": rate, "delay": f"{rtt_ms / 2 - 2}ms", "buffer": "1bdp"}},
            "flows": [{"cc": cc, "rtt": f"{rtt_ms}ms", "stack": stack}]}


def ceiling(reps: int) -> None:
    print(f"\n### Rate ceiling: one cubic flow, 20 ms, 1 BDP, 8 s, goodput over the last 6 s ({load()})\n")
    print("| bottleneck | goodput / rate (each run) | bottleneck drops (each run) | retransmits (each run) | frames the delay line lost (each run) | mean queue, packets (each run) |")
    print("|---:|---|---|---|---|---|")
    for rate in ("50Mbps", "100Mbps", "200Mbps", "400Mbps"):
        runs = []
        for _ in range(reps):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the relay-loss warning: the column shows it
                res = cclab.run(_unchecked(scenario(rate, 20, "cubic", 8, 2)), engine="linux")
            s = res.summary()
            runs.append((s["total_goodput_bps"] / float(rate[:-4]) / 1e6, s["bottleneck_drops"],
                         int(res.flows.retransmits.iloc[0]), s["bottleneck_mean_queue_pkts"], s["linux_relay_lost"]))
        print(f"| {rate} | {', '.join(f'{r[0]:.3f}' for r in runs)} | {', '.join(str(r[1]) for r in runs)} "
              f"| {', '.join(str(r[2]) for r in runs)} | {', '.join(f'{r[4]:.0f}' for r in runs)} "
              f"| {', '.join(f'{r[3]:.1f}' for r in runs)} |")


def _unchecked(sc: dict) -> dict:
    """400 Mbit/s is above the engine's refusal threshold: lift it for the measurement only."""
    from cclab.linux import engine

    engine.MAX_RATE_BPS = 1e9
    return sc


def compare_bpf(reps: int) -> None:
    """cclab_reno (BPF) in the comparison's scenario: the row to set beside the kernel's reno."""
    print(f"\n### cclab_reno (BPF), same scenario ({load()})\n")
    print("| cc | engine | goodput (Mbit/s) | mean queue (packets) | cwnd mean (packets) | retransmits | runs |")
    print("|---|---|---:|---:|---:|---:|---:|")
    results = [cclab.run(scenario("20Mbps", 40, "cclab_reno", 30, 10), engine="linux") for _ in range(reps)]
    _row("cclab_reno", "linux", results)


def _row(name: str, eng: str, results: list) -> None:
    g = [r.summary()["total_goodput_bps"] / 1e6 for r in results]
    q = [r.summary()["bottleneck_mean_queue_pkts"] for r in results]
    c = [float(r.flow_series[r.flow_series.time_s >= 10].cwnd.mean()) for r in results]  # over all flows
    rt = [int(r.flows.retransmits_measured.sum()) for r in results]  # of all flows

    def fmt(x: list, f: str) -> str:
        return format(x[0], f) if len(x) == 1 else f"{format(st.mean(x), f)} ({format(min(x), f)}-{format(max(x), f)})"

    print(f"| {name} | {eng} | {fmt(g, '.2f')} | {fmt(q, '.1f')} | {fmt(c, '.1f')} | {fmt(rt, '.0f')} | {len(results)} |")


def scenario_n(rate: str, rtt_ms: float, cc: str, flows: int, duration: float, warmup: float,
               stack: str = "cclab") -> dict:
    """`flows` flows of `cc`, all with the same RTT (the engine refuses differing ones), started 0.5 s apart."""
    sc = scenario(rate, rtt_ms, cc, duration, warmup, stack)
    sc["flows"] = [{"cc": cc, "rtt": f"{rtt_ms}ms", "stack": stack, "start": f"{0.5 * i}s"} for i in range(flows)]
    return sc


#: The papers' algorithms in BPF beside the simulator's: (BPF name, simulator name).
PAPER_CCS = (("cclab_ubr", "ubr"), ("cclab_ghstcp", "ghstcp"))


def compare_papers(reps: int) -> None:
    """Each paper algorithm in BPF against the simulator's (stack = "linux"), on two scenarios."""
    for rate, rtt, n in (("20Mbps", 40, 1), ("50Mbps", 40, 4)):
        print(f"\n### Papers' algorithms: {n} flow(s), {rate}, {rtt} ms, 1 BDP, 30 s, measured over [10 s, 30 s] "
              f"({load()})\n")
        print("| cc | engine | goodput (Mbit/s) | mean queue (packets) | cwnd mean (packets) | retransmits | runs |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for bpf_cc, sim_cc in PAPER_CCS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sim = cclab.run(scenario_n(rate, rtt, sim_cc, n, 30, 10, stack="linux"))
            _row(sim_cc, "sim (stack linux)", [sim])
            _row(bpf_cc, "linux", [cclab.run(scenario_n(rate, rtt, bpf_cc, n, 30, 10), engine="linux")
                                   for _ in range(reps)])


def evidence_ghstcp() -> None:
    """Simulator only: where gHSTCP's four-flow figures fall between always-HSTCP and always-Reno."""
    print("\n### Evidence: simulator, 4 flows, 50Mbps, 40 ms, 1 BDP, 30 s, over [10 s, 30 s]\n")
    print("| cc | engine | goodput (Mbit/s) | mean queue (packets) | cwnd mean (packets) | retransmits | runs |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for cc, params in (("ghstcp", None), ("ghstcp", {"z": 0.0}), ("ghstcp", {"z": 100.0}), ("highspeed", None),
                       ("newreno", None)):
        sc = scenario_n("50Mbps", 40, cc, 4, 30, 10, stack="linux")
        for g in sc["flows"]:
            g.update({"cc_params": params} if params else {})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _row(cc + (f" z = {params['z']:g}" if params else ""), "sim (stack linux)", [cclab.run(sc)])


def ghstcp_mode(reps: int) -> None:
    """gHSTCP's mode, four flows (compare_papers' second scenario): the share of 100-ms samples
    over [10 s, 30 s] each flow spends in Reno mode, simulator (examples/ghstcp_mode.rs, which
    reads the mode as the run goes) against the BPF version (cc_series, from cclab_show)."""
    import subprocess
    import tempfile

    root = os.path.join(os.path.dirname(__file__), "..", "..")
    subprocess.run(["cargo", "build", "--release", "-q", "--example", "ghstcp_mode"], cwd=root, check=True)
    exe = os.path.join(root, "target", "release", "examples", "ghstcp_mode")
    print(f"\n### gHSTCP's mode: 4 flows, 50 Mbit/s, 40 ms, 1 BDP, 30 s; share of samples in Reno mode over "
          f"[10 s, 30 s] ({load()})\n")
    print("| engine | run | flow 0 | flow 1 | flow 2 | flow 3 | mean |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    # The simulator as compared, then with one thing changed each (evidence runs).
    variants = (("sim (stack linux)", {}), ("sim, tumbling = 1", {"cc_params": {"tumbling": 1}}),
                ("sim, timestamps = false", {"timestamps": False}), ("sim, delayed_ack = false", {"delayed_ack": False}))
    for label, change in variants:
        sc = scenario_n("50Mbps", 40, "ghstcp", 4, 30, 10, stack="linux")
        for g in sc["flows"]:
            g.update(change)
        with tempfile.NamedTemporaryFile("w", suffix=".toml") as fh:
            fh.write(cclab.to_toml(sc))
            fh.flush()
            out = subprocess.run([exe, fh.name], capture_output=True, text=True, check=True).stdout
        shares = [float(line.split(",")[3]) for line in out.splitlines()[1:]]
        print(f"| {label} | 1 | " + " | ".join(f"{x:.2f}" for x in shares) + f" | {np.mean(shares):.2f} |")
    for k in range(reps):
        r = cclab.run(scenario_n("50Mbps", 40, "cclab_ghstcp", 4, 30, 10), engine="linux")
        cs = r.cc_series[r.cc_series["time_s"] >= 10.0 - 1e-9]
        shares = [float((g["state"] == "reno").mean()) for _, g in cs.groupby("flow")]
        print(f"| linux (cclab_ghstcp) | {k + 1} | " + " | ".join(f"{x:.2f}" for x in shares)
              + f" | {np.mean(shares):.2f} |")


def compare_small_buffer(reps: int) -> None:
    """ubr's case: an under-buffered link (0.1 BDP), where the extra window has room to act."""
    print(f"\n### Under-buffered: 1 flow, 20Mbps, 40 ms, 7 packets (0.1 BDP), 30 s, measured over [10 s, 30 s] "
          f"({load()})\n")
    print("| cc | engine | goodput (Mbit/s) | mean queue (packets) | cwnd mean (packets) | retransmits | runs |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for bpf_cc, sim_cc in (("cclab_reno", "newreno"), ("cclab_ubr", "ubr")):
        sim_sc = scenario("20Mbps", 40, sim_cc, 30, 10, stack="linux")
        lin_sc = scenario("20Mbps", 40, bpf_cc, 30, 10)
        for sc in (sim_sc, lin_sc):
            sc["topology"]["bottleneck"]["buffer"] = "7pkts"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _row(sim_cc, "sim (stack linux)", [cclab.run(sim_sc)])
        _row(bpf_cc, "linux", [cclab.run(lin_sc, engine="linux") for _ in range(reps)])


#: TCP-GT's two comparison scenarios: (rate, round trip ms, flows).
TCPGT_SCENARIOS = (("50Mbps", 40, 1), ("100Mbps", 40, 4))


def compare_tcpgt(reps: int) -> None:
    """cclab_tcpgt (BPF, echo in a TCP option) against the simulator's tcp-gt (stack = "linux")."""
    for rate, rtt, n in TCPGT_SCENARIOS:
        print(f"\n### TCP-GT: {n} flow(s), {rate}, {rtt} ms, 1 BDP, 30 s, measured over [10 s, 30 s] ({load()})\n")
        print("| cc | engine | goodput (Mbit/s) | mean queue (packets) | cwnd mean (packets) | retransmits | runs |")
        print("|---|---|---:|---:|---:|---:|---:|")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = cclab.run(scenario_n(rate, rtt, "tcp-gt", n, 30, 10, stack="linux"))
        _row("tcp-gt", "sim (stack linux)", [sim])
        runs = [cclab.run(scenario_n(rate, rtt, "cclab_tcpgt", n, 30, 10), engine="linux") for _ in range(reps)]
        _row("cclab_tcpgt", "linux", runs)
        _tcpgt_trace([sim] + runs, ["sim"] + [f"linux {i + 1}" for i in range(reps)])
        for i, r in enumerate(runs):
            s = r.summary()
            print(f"linux {i + 1}: epochs {s['linux_bpf_epochs']:.0f}, increases {s['linux_bpf_increases']:.0f}, "
                  f"decreases {s['linux_bpf_decreases']:.0f}, options written on data / parsed by the receiver "
                  f"{s['linux_bpf_opt_data_written']:.0f} / {s['linux_bpf_opt_data_parsed']:.0f}, on ACKs / parsed "
                  f"{s['linux_bpf_opt_ack_written']:.0f} / {s['linux_bpf_opt_ack_parsed']:.0f}, |TS - TR| > 1 ms / "
                  f"> 2.5 ms in {s['linux_bpf_ts_tr_over_1ms']:.0f} / {s['linux_bpf_ts_tr_over_2500us']:.0f} epochs, "
                  f"relay lost {s['linux_relay_lost']:.0f}, largest app- / sndbuf- / rwnd-limited share "
                  f"{100 * s['linux_app_limited_max']:.1f} / {100 * s['linux_sndbuf_limited_max']:.1f} / "
                  f"{100 * s['linux_rwnd_limited_max']:.1f} %")


def compare_tcpgt_gso1(reps: int) -> None:
    """compare_tcpgt with the sender's veth at gso_max_segs 1 (evidence: the GSO bursts)."""
    from cclab.linux.testbed import Testbed

    Testbed.gso_max_segs = 1
    print("\n(sender veth: gso_max_segs 1)")
    compare_tcpgt(reps)


def evidence_tcpgt_gso1(reps: int) -> None:
    """evidence_tcpgt with the sender's veth at gso_max_segs 1: no multi-segment skbs, no bursts."""
    from cclab.linux.testbed import Testbed

    Testbed.gso_max_segs = 1
    print("\n(sender veth: gso_max_segs 1)")
    evidence_tcpgt(reps)


def evidence_tcpgt(reps: int, idle_qos: str = "on") -> None:
    """What triggers the one-flow cclab_tcpgt's decreases: one flow, 50Mbps, 40 ms, 30 s, 20 ms
    samples. A decrease is a window drop of 5 packets or more between two samples. TCP-GT decreases
    when TR exceeds rtt_min by 0.05 TR rtt_base / rtt = 2.5 ms at 40 ms, 10.4 packets of queue at
    50 Mbit/s: a decrease with less queue than that in the 200 ms before it was set off by delay
    the bottleneck queue did not make. ``idle_qos``: the Linux runs hold the testbed's CPU latency
    request (on), not (off), or each in turn (both; docs/linux.md, "Idle cores")."""
    print(f"\n### Evidence: TCP-GT's decreases, 1 flow, 50Mbps, 40 ms, 30 s, over [10 s, 30 s] ({load()})\n")
    print("| run | decreases | with < 10.4 packets queued in the 200 ms before | window before them (packets) "
          "| largest queue before them (packets) | cwnd mean | goodput (Mbit/s) | relay frames over 1 ms late |")
    print("|---|---:|---:|---|---|---:|---:|---:|")
    settings = Testbed.IDLE_QOS[idle_qos]
    for name, eng, cc, qos in [("sim (stack linux)", "sim", "tcp-gt", True)] + [
            (f"linux {i + 1}, CPU latency request {'held' if q else 'not held'}", "linux", "cclab_tcpgt", q)
            for i in range(reps) for q in settings]:
        Testbed.cpu_latency_qos = qos
        sc = scenario_n("50Mbps", 40, cc, 1, 30, 10, stack="linux" if eng == "sim" else "cclab")
        sc["sample_interval"] = "20ms"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = cclab.run(sc, engine=eng)
        fs = r.flow_series[r.flow_series.time_s >= 10].set_index("time_s")
        q = r.queue_series.set_index("time_s").len_pkts.reindex(fs.index).to_numpy(dtype=float)
        c = fs.cwnd.to_numpy(dtype=float)
        idx = [i for i in range(1, len(c)) if c[i - 1] - c[i] >= 5 and (i < 2 or c[i - 2] - c[i - 1] < 5)]
        qmax = [float(np.nanmax(q[max(0, i - 10):i + 1])) for i in idx]
        print(f"| {name} | {len(idx)} | {sum(x < 10.4 for x in qmax)} | {', '.join(f'{c[i - 1]:.0f}' for i in idx)} "
              f"| {', '.join(f'{x:.0f}' for x in qmax)} | {np.nanmean(c):.1f} "
              f"| {r.summary()['total_goodput_bps'] / 1e6:.2f} | {r.summary().get('linux_relay_late_over_1ms', float('nan')):.0f} |",
              flush=True)
    Testbed.cpu_latency_qos = True


def _tcpgt_trace(results: list, names: list) -> None:
    """The cwnd trace over [10 s, 30 s], all flows' 100 ms samples: quartiles and the flows' spread."""
    print("\n| run | cwnd p10 | cwnd median | cwnd p90 | per-flow mean cwnd | Jain |")
    print("|---|---:|---:|---:|---|---:|")
    for name, r in zip(names, results):
        fs = r.flow_series[r.flow_series.time_s >= 10]
        q = np.percentile(fs.cwnd.dropna(), [10, 50, 90])
        per = fs.groupby("flow").cwnd.mean()
        print(f"| {name} | {q[0]:.1f} | {q[1]:.1f} | {q[2]:.1f} | {', '.join(f'{v:.1f}' for v in per)} "
              f"| {r.summary()['jain_index']:.3f} |")


def compare(reps: int) -> None:
    print(f"\n### Kernel against simulator: 1 flow, 20 Mbit/s, 40 ms, 1 BDP, 30 s, measured over [10 s, 30 s] ({load()})\n")
    print("| cc | engine | goodput (Mbit/s) | mean queue (packets) | cwnd mean (packets) | retransmits | runs |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for sim_cc, linux_cc in (("newreno", "reno"), ("cubic", "cubic")):
        rows = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = cclab.run(scenario("20Mbps", 40, sim_cc, 30, 10, stack="linux"))
        rows["sim (stack linux)"] = [sim]
        rows["linux"] = [cclab.run(scenario("20Mbps", 40, linux_cc, 30, 10), engine="linux") for _ in range(reps)]
        for eng, results in rows.items():
            _row(sim_cc if eng.startswith("sim") else linux_cc, eng, results)


def limited(reps: int) -> None:
    """Each Linux run of cclab compare's example on its own: does the starvation flag (TCP_INFO's
    chrono times) pick out the runs that did not use the link?"""
    sc = cclab.load_scenario(os.path.join(os.path.dirname(__file__), "ghstcp-4flows.toml"))
    print(f"\n### Starvation flag: {reps} Linux runs of ghstcp-4flows.toml, measured over [5 s, 20 s] ({load()})\n")
    print("| run | utilization % | goodput min flow (Mbit/s) | app-limited max % | sndbuf-limited max % "
          "| rwnd-limited max % | flagged |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for k in range(reps):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = cclab.run(sc, engine="linux", seed=k + 1)
        s = r.summary()
        flagged = any("congestion window" in str(x.message) for x in w)
        print(f"| {k + 1} | {100 * s['bottleneck_utilization']:.1f} | {r.flows['goodput_bps'].min() / 1e6:.2f} "
              f"| {100 * s['linux_app_limited_max']:.1f} | {100 * s['linux_sndbuf_limited_max']:.1f} "
              f"| {100 * s['linux_rwnd_limited_max']:.1f} | {'yes' if flagged else 'no'} |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("what", nargs="*", default=["delay", "ceiling", "compare"])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--idle-qos", choices=("on", "off", "both"), default="on",
                    help="evidence_tcpgt: hold the testbed's CPU latency request, not, or each in turn")
    a = ap.parse_args()
    for w in a.what:
        {"delay": lambda: delay(), "ceiling": lambda: ceiling(a.reps), "compare": lambda: compare(a.reps),
         "compare_bpf": lambda: compare_bpf(a.reps), "compare_papers": lambda: compare_papers(a.reps),
         "compare_small_buffer": lambda: compare_small_buffer(a.reps), "evidence_ghstcp": evidence_ghstcp,
         "limited": lambda: limited(a.reps), "ghstcp_mode": lambda: ghstcp_mode(a.reps),
         "compare_tcpgt": lambda: compare_tcpgt(a.reps), "evidence_tcpgt": lambda: evidence_tcpgt(a.reps, a.idle_qos),
         "evidence_tcpgt_gso1": lambda: evidence_tcpgt_gso1(a.reps),
         "compare_tcpgt_gso1": lambda: compare_tcpgt_gso1(a.reps)}[w]()
    print(f"\n({load()} at the end)")
