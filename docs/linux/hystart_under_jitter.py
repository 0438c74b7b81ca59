"""docs/linux.md, "Jitter 1 ms, cubic": why the kernel's HyStart ends this slow start and the
simulator's does not.

    sudo PYTHONPATH=python python docs/linux/hystart_under_jitter.py [--seeds 1,2,3] [--acks-of bbr]

(needs tcpdump, and dpkt from the test extras).

The set-up of measure_loss_delay_schedule.py's `jitter 1` (one cubic flow, 20 Mbit/s, 40 ms,
1 BDP, 1 ms of jitter). For each seed:

- **Linux**: the run on the testbed, with tcpdump on the sender's interface (its data segments
  and the ACKs coming back) and the sender namespace's HyStart counters (TcpExt
  TCPHystartTrainDetect / DelayDetect and the window at detection, TrainCwnd / DelayCwnd);
- **the simulator** under the `linux` profile, traced, as is, with `quickacks = 1000` (the
  receiver acknowledges every segment of the start-up at once, as the kernel's did here), and
  with `rcv_autotune = true` and `quickacks = 16` (the kernel's receive-buffer autotuning, whose
  window growth sets those quick ACKs, tcp/rcv_autotune.rs, and its 16 quick ACKs at the start).

For each it prints the largest window and the bottleneck's drops in 0-2 s, the segments per
ACK before the first retransmission and from 2 s to the end (every ACK), and HyStart (Linux 6.x's `hystart_update`, tcp_cubic.c,
written out below) replayed on the RTT samples of its own packet log: the sample of an ACK
that advances snd_una is the time since the last transmission of the newest segment it
acknowledges (Linux's `ca_rtt`), none when a retransmitted segment is among them. The replay
on the kernel's capture gives the test and window its counters give (checked below), so the
same replay on the simulator's log says where the two part.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))

import cclab  # noqa: E402
from cclab.crosscheck.matrix import with_stack  # noqa: E402
from measure_loss_delay_schedule import scenario  # noqa: E402

ACK_DELTA = 2e-3  # hystart_ack_delta_us
MIN_SAMPLES = 8  # HYSTART_MIN_SAMPLES
LOW_WINDOW = 16  # hystart_low_window
COUNTERS = ("TCPHystartTrainDetect", "TCPHystartTrainCwnd", "TCPHystartDelayDetect", "TCPHystartDelayCwnd")


def rtt_samples(sends, acks):
    """sends [(t, start, end)] in time order, acks [(t, ack)]: for each ACK that advances snd_una,
    (t, ack, rtt or None, snd_nxt before it)."""
    out, sent, i = [], [], 0
    una = sends[0][1]
    snd_nxt = una
    for t, ack in acks:
        while i < len(sends) and sends[i][0] < t:
            sent.append(sends[i])
            snd_nxt = max(snd_nxt, sends[i][2])
            i += 1
        if ack <= una:
            continue
        rtt, seen, retx = None, set(), False
        for ts, a, b in reversed(sent):
            if b <= una or a >= ack:
                continue
            if rtt is None and a <= ack - 1 < b:
                rtt = t - ts
            retx |= (a, b) in seen
            seen.add((a, b))
        out.append((t, ack, None if retx else rtt, snd_nxt))
        una = ack
    return out


def hystart(samples, unit):
    """Linux 6.x HyStart on (t, ack, rtt, snd_nxt): the test that fires, when, and the flight then
    (in `unit`s, bytes per segment), or None."""
    delay_min = end_seq = round_start = last_ack = curr = None
    cnt = 0
    for t, ack, rtt, snd_nxt in samples:
        if rtt is None:
            continue
        d = max(rtt, 1e-6)
        delay_min = d if delay_min is None else min(delay_min, d)
        if end_seq is None or ack > end_seq:  # bictcp_hystart_reset
            round_start = last_ack = t
            end_seq, curr, cnt = snd_nxt, None, 0
        flight = (snd_nxt - ack) / unit
        if flight < LOW_WINDOW:
            continue
        found = None
        if t - last_ack <= ACK_DELTA:
            last_ack = t
            if t - round_start > delay_min / 2:
                found = "train"
        curr = d if curr is None else min(curr, d)
        if cnt < MIN_SAMPLES:
            cnt += 1
        elif curr > delay_min + min(max(delay_min / 8, 4e-3), 16e-3):
            found = found or "delay"
        if found:
            return f"{found} at {t:.3f} s, flight {flight:.0f}"
    return "none"


def before_first_retransmission(sends, acks):
    seen = set()
    for t, a, b in sends:
        if (a, b) in seen:
            return [s for s in sends if s[0] < t], [x for x in acks if x[0] < t]
        seen.add((a, b))
    return sends, acks


def per_ack(samples, unit, until: float = 0.25) -> str:
    """Segments acknowledged per ACK in the slow start (the first `until` seconds)."""
    kept = [s for s in samples if s[0] < until]
    acked = (kept[-1][1] - kept[0][1]) / unit if len(kept) > 1 else 0
    return f"{acked / max(len(kept) - 1, 1):.2f}"


def tcpext(ns: str) -> dict:
    out = subprocess.run(["ip", "netns", "exec", ns, "cat", "/proc/net/netstat"], capture_output=True, text=True).stdout
    rows = [line.split() for line in out.splitlines() if line.startswith("TcpExt:")]
    return dict(zip(rows[0][1:], map(int, rows[1][1:]))) if len(rows) >= 2 else {}


def linux_run(seed: int, pcap: str, cc: str = "cubic"):
    """The kernel's run, with tcpdump and the counters of its sender namespace."""
    state: dict = {}
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            for ns in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split():
                if ns.startswith("cclab-") and ns.endswith("-snd"):
                    if "tcpdump" in state and state["tcpdump"].poll() is not None:
                        del state["tcpdump"]  # it started before the interface was up: again
                    if "tcpdump" not in state:
                        links = subprocess.run(["ip", "netns", "exec", ns, "ip", "-o", "link"], capture_output=True,
                                               text=True).stdout
                        names = [ln.split(":")[1].strip().split("@")[0] for ln in links.splitlines()
                                 if "lo:" not in ln and "LOWER_UP" in ln]
                        if names:
                            state["tcpdump"] = subprocess.Popen(
                                ["ip", "netns", "exec", ns, "tcpdump", "-Z", "root", "-i", names[0], "-s", "128", "-U",
                                 "-w", pcap, "tcp"], stderr=subprocess.DEVNULL)
                    state["counters"] = tcpext(ns) or state.get("counters", {})
            time.sleep(0.002 if "tcpdump" not in state else 0.1)

    th = threading.Thread(target=watch, daemon=True)
    th.start()
    res = cclab.run(scenario(cc, "jitter 1"), engine="linux", seed=seed)
    stop.set()
    th.join()
    if "tcpdump" in state:
        state["tcpdump"].terminate()
        state["tcpdump"].wait()
    return res, state.get("counters", {})


def linux_log(pcap: str, whole: bool = False):
    import dpkt

    sends, acks, src, t0 = [], [], None, None
    with open(pcap, "rb") as f:
        for ts, buf in dpkt.pcap.Reader(f):
            ip = dpkt.ethernet.Ethernet(buf).data
            if not isinstance(ip, dpkt.ip.IP) or not isinstance(ip.data, dpkt.tcp.TCP):
                continue
            tcp = ip.data
            n = ip.len - 4 * ip.hl - 4 * tcp.off  # the capture keeps 128 bytes; the length is the header's
            if n > 0:
                src = (ip.src, tcp.sport)
                t0 = ts if t0 is None else t0
                sends.append((ts - t0, tcp.seq, tcp.seq + n))
            elif src is not None and (ip.dst, tcp.dport) == src:
                acks.append((ts - t0, tcp.ack))
    return (sends, acks) if whole else before_first_retransmission(sends, acks)


def sim_log(res, whole: bool = False):
    p, s = res.packets, res.sender
    sends = [(t, q, q + 1) for t, q in p[(p.event == "send") & (p.kind == "data")][["time_s", "seq"]].itertuples(index=False)]
    acks = [(t, a) for t, a in s[s.event == "ack"][["time_s", "ack"]].itertuples(index=False)]
    return (sends, acks) if whole else before_first_retransmission(sends, acks)


def per_ack_after(acks, unit, since: float = 2.0) -> str:
    """Segments per ACK from `since` to the end, every ACK counted (duplicates too): once the
    window stops growing, a delaying receiver acknowledges about two."""
    kept = [a for t, a in acks if t >= since]
    return f"{(kept[-1] - kept[0]) / unit / max(len(kept) - 1, 1):.2f}" if len(kept) > 1 else "-"


def start_up(res) -> str:
    fs, qs = res.flow_series, res.queue_series
    drops = qs[(qs.link == qs.link.iloc[0]) & (qs.time_s <= 2.0)].drops.iloc[-1]
    return f"{fs[fs.time_s < 2].cwnd.max():.0f} | {int(drops)}"


#: The simulator's runs beside each kernel run: the `linux` profile as it is, with a receiver that
#: acknowledges every segment (the cause, removed by hand), and with the receive-buffer
#: autotuning that makes the kernel's receiver do so (tcp/rcv_autotune.rs) and the kernel's 16
#: quick ACKs at the first segment.
SIM_ROWS = (("simulator", {}), ("simulator, quickacks = 1000", {"quickacks": 1000}),
            ("simulator, rcv_autotune, quickacks = 16", {"rcv_autotune": True, "quickacks": 16}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--acks-of", metavar="CC", help="only the kernel's ACKs of another algorithm (bbr, reno): "
                    "its start-up and segments per ACK, as the receiver acknowledged them")
    a = ap.parse_args()
    if a.acks_of:
        print("| seed | run | window 0-2 s | drops 0-2 s | segments per ACK, 0-0.25 s |")
        print("|---:|---|---:|---:|---:|")
        with tempfile.TemporaryDirectory() as tmp:
            for seed in (int(s) for s in a.seeds.split(",")):
                pcap = os.path.join(tmp, f"linux-{seed}.pcap")
                res, _ = linux_run(seed, pcap, a.acks_of)
                smp = rtt_samples(*linux_log(pcap))
                print(f"| {seed} | Linux, {a.acks_of} | {start_up(res)} | {per_ack(smp, 1448)} |", flush=True)
        return
    print("| seed | run | window 0-2 s | drops 0-2 s | segments per ACK, 0-0.25 s | segments per ACK, 2-9 s | "
          "HyStart replayed | kernel's counters |")
    print("|---:|---|---:|---:|---:|---:|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for seed in (int(s) for s in a.seeds.split(",")):
            pcap = os.path.join(tmp, f"linux-{seed}.pcap")
            res, c = linux_run(seed, pcap)
            counted = ", ".join(f"{k} at {c[k + 'Cwnd']}" for k in ("TCPHystartTrain", "TCPHystartDelay")
                                if c.get(k + "Detect"))
            smp = rtt_samples(*linux_log(pcap))
            after = per_ack_after(linux_log(pcap, whole=True)[1], 1448)
            print(f"| {seed} | Linux | {start_up(res)} | {per_ack(smp, 1448)} | {after} | {hystart(smp, 1448)} | "
                  f"{counted or 'none'} |", flush=True)
            for name, fields in SIM_ROWS:
                sc = with_stack(scenario("cubic", "jitter 1"), "linux")
                sc["flows"][0].update(fields)
                res = cclab.run(sc, seed=seed, trace={"flows": [0], "links": []})
                smp = rtt_samples(*sim_log(res))
                after = per_ack_after(sim_log(res, whole=True)[1], 1)
                print(f"| {seed} | {name} | {start_up(res)} | {per_ack(smp, 1)} | {after} | {hystart(smp, 1)} | |",
                      flush=True)


if __name__ == "__main__":
    main()
