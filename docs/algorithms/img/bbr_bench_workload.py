"""The workloads of benchmark cases B2 (CUBIC) and B5 (BBR) side by side, the full 60 s of
each, with 50 flows as specified and with 1 flow, and B5 with cc = "bbr3" (whose loss rate in
this buffer is CUBIC's, not v1's): delivered packets per second of user CPU time (the machine is
shared, so wall time is noisy; each case runs three times, the least user time counts), events
per delivered packet, loss rate at the bottleneck and timeouts (docs/algorithms/bbr.md,
"Speed"; docs/benchmarks.md).

Run from the repository root: python docs/algorithms/img/bbr_bench_workload.py
"""

import copy
import resource

import cclab
from cclab import bench


def user_s() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def main() -> None:
    rows = [("B2", "cubic", 50), ("B5", "bbr", 50), ("B5", "bbr3", 50), ("B2", "cubic", 1), ("B5", "bbr", 1),
            ("B5", "bbr3", 1)]
    base = {}
    for key, cc, count in rows:
        sc = copy.deepcopy(bench.CASES[key].scenario)
        sc["flows"][0]["count"] = count
        sc["flows"][0]["cc"] = cc
        cpu = float("inf")
        for _ in range(3):
            t0 = user_s()
            r = cclab.run(sc, seed=1)
            cpu = min(cpu, user_s() - t0)
        s = r.summary()
        rate = s["data_received"] / cpu
        base.setdefault(count, rate)
        print(f"{key} {cc:5s} {count:2d} flows: user {cpu:5.2f} s, {rate:10,.0f} delivered pkt per user-s "
              f"({rate / base[count]:.2f} x CUBIC), {s['events'] / s['data_received']:.2f} events per "
              f"delivered packet, loss {s['bottleneck_drops'] / s['data_sent']:.3f}, timeouts {s['timeouts']:.0f}")


if __name__ == "__main__":
    main()
