"""docs/linux.md, "Loss and delay schedules, jitter": the bottleneck's `loss_schedule`,
`delay_schedule` and `jitter` on Linux beside the simulator.

    sudo PYTHONPATH=python python docs/linux/measure_loss_delay_schedule.py [--reps N] [--ccs cubic,reno,bbr]

One flow, 20 Mbit/s, 40 ms round trip (the bottleneck's delay 18 ms), 1 BDP of buffer
(67 packets), 9 s, under three set-ups: `loss` 2 % of the forward packets from 3 s to 6 s;
`delay` the bottleneck's delay 38 ms from 3 s and 8 ms from 6 s (round trips of 80 and 20 ms);
`jitter J` each packet's bottleneck delay uniform in 18 +- J ms, J = 1 and 4. Prints, per
algorithm and seed, the largest window and the bottleneck's drops of the first 2 s (the
start-up), the flow's goodput in each phase (0.5-3, 3.5-6, 6.5-9 s), the least and
the mean smoothed RTT over 1-9 s, the bottleneck's overflow drops and random drops, Linux then
the simulator under the `linux` profile, and how late the testbed's steps landed. The
machine's load average is printed first.

    PYTHONPATH=python python docs/linux/measure_loss_delay_schedule.py --ablations

prints instead, for cubic with J = 1 ms in the simulator only, the largest window of the first
2 s and the overflow drops: as above, with HyStart off (`cc_params.hystart = 0`), without
delayed ACKs (`delayed_ack = false`), and with the
jitter on the sender's access link instead (before the queue, as the delay line applies it to
the data; a graph of the same path: 1 ms access links, 1 Gbit/s); then, for bbr under the `delay`
set-up, the smoothed RTT of 6.5-9 s and the overflow drops with the delay steps after the queue
(the simulator's bottleneck) and before it (the steps on the sender's access link of a graph);
then, for bbr with J = 1 ms, the drops of 0-2 s and of the run with the receiver acknowledging
every segment of the start-up (`quickacks = 1000`), the jitter before the queue, and both, and
with the receive-buffer autotuning that makes the kernel's receiver acknowledge them so
(`rcv_autotune = true`, `quickacks = 16`) in place of `quickacks = 1000`.
"""

from __future__ import annotations

import argparse
import os

import cclab
from cclab.crosscheck.matrix import with_stack

PHASES = ((0.5, 3.0), (3.5, 6.0), (6.5, 9.0))
SETUPS = {
    "loss": {"loss_schedule": [["3s", 0.02], ["6s", 0.0]]},
    "delay": {"delay_schedule": [["3s", "38ms"], ["6s", "8ms"]]},
    "jitter 1": {"jitter": "1ms"},
    "jitter 4": {"jitter": "4ms"},
}


def scenario(cc: str, setup: str) -> dict:
    return {"name": "linux-loss-delay-schedule", "duration": "9s", "sample_interval": "100ms",
            "topology": {"kind": "dumbbell",
                         "bottleneck": {"rate": "20Mbps", "delay": "18ms", "buffer": "1bdp", **SETUPS[setup]}},
            "flows": [{"cc": cc, "rtt": "40ms"}]}


def row(res) -> str:
    fs = res.flow_series
    d = fs.set_index("time_s")["delivered_bytes"]
    good = [(d[d.index <= b].iloc[-1] - d[d.index <= a].iloc[-1]) * 8 / (b - a) / 1e6 for a, b in PHASES]
    rtt = fs[fs.time_s >= 1.0].srtt_s
    q = res.queues.iloc[0]
    qs = res.queue_series
    early = qs[(qs.link == qs.link.iloc[0]) & (qs.time_s <= 2.0)].drops.iloc[-1]
    return (f"{fs[fs.time_s < 2.0].cwnd.max():.0f} | {int(early)} | " + " | ".join(f"{g:.2f}" for g in good)
            + f" | {rtt.min() * 1e3:.1f} | {rtt.mean() * 1e3:.1f} | {int(q.drops_overflow)} | {int(q.drops_link)}")


def before_the_queue(cc: str, jitter_ms: float) -> dict:
    """The same path as a graph, the jitter on the sender's access link (both directions)."""
    return {"name": "linux-jitter-before-queue", "duration": "9s", "sample_interval": "100ms",
            "topology": {"kind": "graph", "nodes": ["s", "r0", "r1", "d"], "links": [
                {"from": "s", "to": "r0", "rate": "1Gbps", "delay": "1ms", "jitter": f"{jitter_ms:g}ms"},
                {"from": "r0", "to": "r1", "rate": "20Mbps", "delay": "18ms", "buffer": "67pkts"},
                {"from": "r1", "to": "d", "rate": "1Gbps", "delay": "1ms"}]},
            "flows": [{"cc": cc, "src": "s", "dst": "d"}]}


def delay_before_the_queue(cc: str) -> dict:
    """The `delay` set-up as a graph, the bottleneck's delay steps on the sender's access link
    (before the queue, as the delay line applies them to the data), both directions: the same
    one-way delay at every time (11 + 8 + 1 ms, then 31 + 8 + 1 from 3 s, 1 + 8 + 1 from 6 s)."""
    return {"name": "linux-delay-before-queue", "duration": "9s", "sample_interval": "100ms",
            "topology": {"kind": "graph", "nodes": ["s", "r0", "r1", "d"], "links": [
                {"from": "s", "to": "r0", "rate": "1Gbps", "delay": "11ms",
                 "delay_schedule": [["3s", "31ms"], ["6s", "1ms"]]},
                {"from": "r0", "to": "r1", "rate": "20Mbps", "delay": "8ms", "buffer": "67pkts"},
                {"from": "r1", "to": "d", "rate": "1Gbps", "delay": "1ms"}]},
            "flows": [{"cc": cc, "src": "s", "dst": "d"}]}


def delay_ablations(reps: int) -> None:
    print("| run | seed | smoothed RTT 6.5-9 s, least | mean | overflow drops |")
    print("|---|---:|---:|---:|---:|")
    for seed in range(1, reps + 1):
        for name, sc, link in (("bbr, delay steps after the queue", scenario("bbr", "delay"), 0),
                               ("bbr, delay steps before the queue", delay_before_the_queue("bbr"), 2)):
            r = cclab.run(with_stack(sc, "linux"), seed=seed)
            late = r.flow_series[r.flow_series.time_s >= 6.5].srtt_s
            q = r.queues[r.queues.link == link].iloc[0]
            print(f"| {name} | {seed} | {late.min() * 1e3:.1f} | {late.mean() * 1e3:.1f} | {int(q.drops_overflow)} |",
                  flush=True)


def bbr_jitter_ablations(reps: int) -> None:
    print("| run | seed | drops 0-2 s | overflow drops |")
    print("|---|---:|---:|---:|")
    for seed in range(1, reps + 1):
        for name in ("jitter 1", "jitter 1, quickacks = 1000", "jitter 1 before the queue",
                     "jitter 1 before the queue, quickacks = 1000", "jitter 1, rcv_autotune",
                     "jitter 1 before the queue, rcv_autotune"):
            before = "before" in name
            sc = with_stack(before_the_queue("bbr", 1.0) if before else scenario("bbr", "jitter 1"), "linux")
            if "quickacks" in name:
                sc["flows"][0]["quickacks"] = 1000  # every segment of the start-up acknowledged at once
            if "rcv_autotune" in name:
                # What makes the kernel's receiver do so (tcp/rcv_autotune.rs), its 16 first quick ACKs.
                sc["flows"][0].update(rcv_autotune=True, quickacks=16)
            r = cclab.run(sc, seed=seed)
            link = 2 if before else 0
            qs = r.queue_series
            early = qs[(qs.link == link) & (qs.time_s <= 2.0)].drops.iloc[-1]
            q = r.queues[r.queues.link == link].iloc[0]
            print(f"| bbr, {name} | {seed} | {int(early)} | {int(q.drops_overflow)} |", flush=True)


def ablations(reps: int) -> None:
    print("| run | seed | largest window, 0-2 s | overflow drops |")
    print("|---|---:|---:|---:|")
    for seed in range(1, reps + 1):
        for name, sc, link in (("jitter 1", with_stack(scenario("cubic", "jitter 1"), "linux"), 0),
                               ("jitter 1, hystart = 0", with_stack(scenario("cubic", "jitter 1"), "linux"), 0),
                               ("jitter 1, no delayed ACKs", with_stack(scenario("cubic", "jitter 1"), "linux"), 0),
                               ("jitter 1 before the queue", with_stack(before_the_queue("cubic", 1.0), "linux"), 2)):
            if "hystart" in name:
                sc["flows"][0]["cc_params"] = {"hystart": 0}
            if "delayed" in name:
                sc["flows"][0]["delayed_ack"] = False
            r = cclab.run(sc, seed=seed)
            fs = r.flow_series
            q = r.queues[r.queues.link == link].iloc[0]
            print(f"| {name} | {seed} | {fs[fs.time_s < 2].cwnd.max():.0f} | {int(q.drops_overflow)} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--ccs", default="cubic,reno,bbr")
    ap.add_argument("--ablations", action="store_true")
    a = ap.parse_args()
    if a.ablations:
        ablations(a.reps)
        print()
        delay_ablations(a.reps)
        print()
        bbr_jitter_ablations(a.reps)
        return
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("Largest window (packets) and bottleneck drops in 0-2 s; goodput per phase (Mbit/s); smoothed RTT over "
          "1-9 s, least and mean (ms); bottleneck drops over the run.\n")
    print("| set-up | cc | seed | engine | window 0-2 s | drops 0-2 s | 0.5-3 s | 3.5-6 s | 6.5-9 s | RTT min | "
          "RTT mean | overflow | random | steps late, max |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for setup in SETUPS:
        for cc in a.ccs.split(","):
            for seed in range(1, a.reps + 1):
                sc = scenario(cc, setup)
                linux = cclab.run(sc, engine="linux", seed=seed)
                s = linux.summary()
                late = max(s["linux_loss_step_late_max_s"] if s["linux_loss_steps"] else 0.0,
                           s["linux_delay_step_late_max_s"] if s["linux_delay_steps"] else 0.0)
                steps = f"{late * 1e3:.2f} ms" if s["linux_loss_steps"] or s["linux_delay_steps"] else ""
                print(f"| {setup} | {cc} | {seed} | Linux | {row(linux)} | {steps} |", flush=True)
                sim = cclab.run(with_stack(sc, "linux"), seed=seed)
                print(f"| {setup} | {cc} | {seed} | simulator | {row(sim)} | |", flush=True)


if __name__ == "__main__":
    main()
