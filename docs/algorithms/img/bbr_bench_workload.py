"""The workloads of benchmark cases B2 (CUBIC) and B5 (BBR) side by side, 20 s of each, with
50 flows as specified and with 1 flow: delivered packets per wall second, events per delivered
packet, loss rate at the bottleneck and timeouts (docs/algorithms/bbr.md, "Speed").

Run from the repository root: python docs/algorithms/img/bbr_bench_workload.py
"""

import copy

import cclab
from cclab import bench


def main() -> None:
    for count in (50, 1):
        for key in ("B2", "B5"):
            sc = copy.deepcopy(bench.CASES[key].scenario)
            sc["duration"] = "20s"
            sc["flows"][0]["count"] = count
            r = cclab.run(sc, seed=1)
            s = r.summary()
            print(f"{key} {count:2d} flows: {s['delivered_pkts'] / r.wall_time_s:10,.0f} delivered pkt/s, "
                  f"{s['events'] / s['delivered_pkts']:.2f} events per delivered packet, "
                  f"loss {s['bottleneck_drops'] / s['data_sent']:.3f}, timeouts {s['timeouts']:.0f}")


if __name__ == "__main__":
    main()
