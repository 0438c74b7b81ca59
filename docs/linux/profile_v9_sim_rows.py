"""The simulator's rows of docs/linux.md's comparison tables under the `linux` profile's version 9
(receive-buffer autotuning and 16 first quick ACKs) beside version 8's, which those tables were
recorded with. Simulator only: no root, no kernel; the kernel's rows stay as recorded.

    PYTHONPATH=python python docs/linux/profile_v9_sim_rows.py

Version 8's receiver is version 9's with `rcv_autotune = false` and `quickacks = 5` (the only two
fields the version changed), so the `v8` rows must be the printed tables' simulator rows, digit for
digit: that checks the comparison, and the `v9` rows are then what the profile gives now.
"""

from __future__ import annotations

import statistics as st
import sys
import warnings
from pathlib import Path

import cclab
from cclab.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import measure  # noqa: E402
import measure_hrf_ktcp  # noqa: E402

#: Each version's receiver, set on every flow group (version 9 is the profile as it is).
VERSIONS = {8: {"rcv_autotune": False, "quickacks": 5}, 9: {}}


def with_fields(sc: dict, fields: dict) -> dict:
    return dict(sc, flows=[dict(g, **fields) for g in sc["flows"]])


def run(sc: dict, seed: int = 1) -> cclab.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cclab.run(sc, seed=seed)


def table(title: str, cases: list[tuple[str, callable]], hrf_columns: bool = False) -> None:
    """One table: each case (name, scenario builder) at version 8, then at 9."""
    print(f"\n### {title}\n")
    if hrf_columns:
        print(measure_hrf_ktcp.HEAD)
    else:
        print("| cc | engine | goodput (Mbit/s) | mean queue (packets) | cwnd mean (packets) | retransmits | runs |")
        print("|---|---|---:|---:|---:|---:|---:|")
    for name, build in cases:
        for v in (8, 9):
            res = run(with_fields(build(), VERSIONS[v]))
            eng = f"sim (stack linux, v{v})"
            if hrf_columns:
                measure_hrf_ktcp.row(name, eng, [res], None)
            else:
                measure._row(name, eng, [res])


def main() -> None:
    sc, sc_n = measure.scenario, measure.scenario_n
    table("Kernel against simulator: 1 flow, 20 Mbit/s, 40 ms, 1 BDP (measure.py compare)",
          [(cc, lambda cc=cc: sc("20Mbps", 40, cc, 30, 10, stack="linux")) for cc in ("newreno", "cubic")])
    for rate, rtt, n in (("20Mbps", 40, 1), ("50Mbps", 40, 4)):
        table(f"Papers' algorithms: {n} flow(s), {rate}, {rtt} ms (measure.py compare_papers)",
              [(cc, lambda cc=cc: sc_n(rate, rtt, cc, n, 30, 10, stack="linux")) for _, cc in measure.PAPER_CCS])

    def small(cc: str) -> dict:
        s = sc("20Mbps", 40, cc, 30, 10, stack="linux")
        s["topology"]["bottleneck"]["buffer"] = "7pkts"
        return s

    table("Under-buffered: 1 flow, 20 Mbit/s, 40 ms, 7 packets (measure.py compare_small_buffer)",
          [(cc, lambda cc=cc: small(cc)) for cc in ("newreno", "ubr")])
    for rate, rtt, n in measure.TCPGT_SCENARIOS:
        table(f"TCP-GT: {n} flow(s), {rate}, {rtt} ms (measure.py compare_tcpgt)",
              [("tcp-gt", lambda: sc_n(rate, rtt, "tcp-gt", n, 30, 10, stack="linux"))])
    for rate, rtt, n in measure_hrf_ktcp.SCENARIOS:
        table(f"HRF and Kyushu-TCP: {n} flow(s), {rate}, {rtt} ms (measure_hrf_ktcp.py compare)",
              [(cc, lambda cc=cc: sc_n(rate, rtt, cc, n, 30, measure_hrf_ktcp.WARMUP, stack="linux"))
               for _, cc in measure_hrf_ktcp.CCS], hrf_columns=True)
    variants = (("cclab_w_cr_reno", "w+cr+reno"), ("cclab_w_cr_cr", "w+cr+cr"))
    for rate, rtt, n in measure_hrf_ktcp.SCENARIOS[:1]:
        table(f"Paper 001's section 5.2 variants: {n} flow(s), {rate}, {rtt} ms (measure_hrf_ktcp.py variants)",
              [(cc, lambda cc=cc: sc_n(rate, rtt, cc, n, 30, measure_hrf_ktcp.WARMUP, stack="linux"))
               for _, cc in variants], hrf_columns=True)
    rtt_fairness()


def rtt_fairness() -> None:
    """scenarios/linux/rtt-fairness-*.toml: the simulator's column of `cclab compare`'s table there
    (the same scenario translation and metrics)."""
    from cclab.linux.compare import metrics, sim_scenario

    for name in ("hrf", "reno"):
        path = ROOT / "scenarios" / "linux" / f"rtt-fairness-{name}.toml"
        base = sim_scenario(dict(load_scenario(path)))[0]
        cols = {v: metrics(run(with_fields(base, f)), float(base["warmup"].rstrip("s"))) for v, f in VERSIONS.items()}
        print(f"\n### RTT fairness: {path.relative_to(ROOT)} (`cclab compare`'s simulator column)\n")
        print("| metric | sim (stack linux, v8) | sim (stack linux, v9) |\n|---|---:|---:|")
        for k in cols[8]:
            print(f"| {k} | {cols[8][k]:.4g} | {cols[9][k]:.4g} |")
        # The table's one run is seed 1; the "Misses" note spreads the 120 ms flow over seeds 1-10.
        # For Reno also each of the two fields alone (which of them moves the split).
        alone = [("v8 with rcv_autotune", {"rcv_autotune": True, "quickacks": 5}),
                 ("v8 with quickacks = 16", {"rcv_autotune": False, "quickacks": 16})] if name == "reno" else []
        for label, fields in [("v8", VERSIONS[8])] + alone + [("v9", VERSIONS[9])]:
            g = [float(run(with_fields(base, fields), s).flows.goodput_bps.iloc[1]) / 1e6 for s in range(1, 11)]
            print(f"\n{name}, {label}: 120 ms flow over seeds 1-10: mean {st.mean(g):.1f} ({min(g):.1f}-{max(g):.1f}) Mbit/s")


if __name__ == "__main__":
    main()
