"""docs/linux.md, "Per-flow round trips": the accuracy of the delay line's per-flow delays.

    sudo PYTHONPATH=python python docs/linux/measure_rtt.py [--count N] [--sizes 56,1400]
    sudo PYTHONPATH=python python docs/linux/measure_rtt.py --late REPS [--rate 20Mbps] [--rtts 20,80] [--duration 5]
        [--idle-qos on|off|both]

One testbed with a class per TCP port (the receiver's listening port, as the engine gives each
flow) and a default class; at idle, one TCP connection per class does request-response
round trips (N per message size, 20 ms apart, all connections at once, TCP_NODELAY both ends)
while ping crosses the default class. Prints a markdown table of the measured round trip minus
the configured one: the application's (time.monotonic_ns around send and the echoed reply,
two Python wake-ups included), split into its one-way parts by the server's arrival time
(CLOCK_MONOTONIC is shared by the namespaces), the kernel's (TCP_INFO min_rtt and srtt at the
end), and ping's for the default class. ``--late REPS``: the relay's own lateness (summary
``linux_relay_late_*``) in REPS pairs of runs of two reno flows (by default 5 s at 20 Mbit/s, 1
BDP), round trips 20 and 80 ms (two classes) against 20 and 20 ms (one class), with the
testbed's CPU latency request held (``--idle-qos on``), not held (``off``), or each in turn
(``both``), and the bottleneck's utilization. The `client`/`server` modes are the two ends, run
by the script itself inside the namespaces.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

#: (port, forward one-way s, reverse one-way s): symmetric 10/40/60/250 ms and one asymmetric.
CLASSES = [(5201, 0.010, 0.010), (5202, 0.040, 0.040), (5203, 0.060, 0.060), (5204, 0.250, 0.250),
           (5205, 0.005, 0.035)]
#: Default class (ICMP, and any frame no class claims): 20 ms each way.
DEFAULT = (0.020, 0.020)
RCV = "10.201.0.2"


def _recv_exact(s: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    return buf


def server(ports: list[int]) -> None:
    def serve(ls: socket.socket) -> None:
        while True:  # one connection per message size
            conn, _ = ls.accept()
            threading.Thread(target=echo, args=(conn,), daemon=True).start()

    def echo(conn: socket.socket) -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                (n,) = struct.unpack("!I", _recv_exact(conn, 4))
                body = _recv_exact(conn, n)
                # The arrival time in the reply: CLOCK_MONOTONIC is one clock for every namespace,
                # so the client splits the round trip into its two one-way delays.
                conn.sendall(struct.pack("!IQ", n, time.monotonic_ns()) + body[8:])
        except (ConnectionError, OSError):
            return

    for p in ports:
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((RCV, p))
        ls.listen(1)
        threading.Thread(target=serve, args=(ls,), daemon=True).start()
    print("ready", flush=True)
    time.sleep(3600)


def client(ports: list[int], count: int, size: int) -> None:
    out: dict[int, dict] = {}

    def run(p: int) -> None:
        s = socket.create_connection((RCV, p))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        msg = struct.pack("!I", size) + b"\0" * size
        rtts, fwd = [], []
        for _ in range(count):
            t = time.monotonic_ns()
            s.sendall(msg)
            reply = _recv_exact(s, 4 + size)
            rtts.append((time.monotonic_ns() - t) / 1e9)
            fwd.append((struct.unpack_from("!Q", reply, 4)[0] - t) / 1e9)
            time.sleep(0.02)
        info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 248)
        srtt_us, = struct.unpack_from("=I", info, 68)
        min_rtt_us, = struct.unpack_from("=I", info, 148)
        out[p] = {"app": rtts, "fwd": fwd, "srtt": srtt_us / 1e6, "min_rtt": min_rtt_us / 1e6}
        s.close()

    threads = [threading.Thread(target=run, args=(p,)) for p in ports]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps(out))


def measure(count: int, sizes: list[int]) -> None:
    import numpy as np

    from cclab.linux.testbed import Testbed

    me = os.path.abspath(__file__)
    ports = [c[0] for c in CLASSES]
    print(f"\n### Per-flow delays at idle (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})\n")
    print("| class | one-way set (fwd / rev) | message | round trips | app min - set (ms) | app median - set (ms) "
          "| app p99 - set (ms) | app max - set (ms) | fwd median - set (ms) | rev median - set (ms) "
          "| kernel min_rtt - set (ms) | kernel srtt - set (ms) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    classes = {p: (f, r) for p, f, r in CLASSES}
    with Testbed(20e6, 1000, None, *DEFAULT, classes=classes) as tb:
        srv = tb.spawn(tb.rcv, sys.executable, me, "server", ",".join(map(str, ports)))
        assert srv.stdout is not None and srv.stdout.readline().strip() == "ready"
        for size in sizes:
            ping = threading.Thread(target=tb.ping_rtt, kwargs={"count": count, "interval_s": 0.02, "size": size})
            ping.start()
            res = json.loads(tb.exec(tb.snd, sys.executable, me, "client", ",".join(map(str, ports)), str(count),
                                     str(size), timeout=600))
            ping.join()
            for p, f, r in CLASSES:
                k = res[str(p)]
                d = np.array(k["app"]) - (f + r)
                fw = np.array(k["fwd"])
                rv = np.array(k["app"]) - fw
                print(f"| port {p} | {f * 1e3:g} / {r * 1e3:g} ms | {size} B | {len(d)} | {d.min() * 1e3:.3f} "
                      f"| {np.median(d) * 1e3:.3f} | {np.percentile(d, 99) * 1e3:.3f} | {d.max() * 1e3:.3f} "
                      f"| {(np.median(fw) - f) * 1e3:.3f} | {(np.median(rv) - r) * 1e3:.3f} "
                      f"| {(k['min_rtt'] - f - r) * 1e3:.3f} | {(k['srtt'] - f - r) * 1e3:.3f} |")
            m, set_rtt = tb.last_ping_summary, sum(DEFAULT)
            print(f"| default (ping) | {DEFAULT[0] * 1e3:g} / {DEFAULT[1] * 1e3:g} ms | {size} B | {count} "
                  f"| {(m['min'] - set_rtt) * 1e3:.3f} | - | - | {(m['max'] - set_rtt) * 1e3:.3f} | - | - "
                  f"| (ping mean - set {(m['avg'] - set_rtt) * 1e3:.3f}) | - |")
        lost = tb.stop_delay_line()
    print(f"\ndelay line: {lost}")


def late(reps: int, rate: str, rtts: tuple[int, int], duration: float, idle_qos: str = "on") -> None:
    """Reps x (two classes, one class), each with the CPU latency request held, not held, or
    both in turn (``idle_qos``): the relay's lateness and the bottleneck's utilization."""
    import warnings

    import cclab
    from cclab.linux.testbed import Testbed

    print(f"\n### Relay lateness, two reno flows, {rate}, {duration:g} s ({' '.join(f'{x:.2f}' for x in os.getloadavg())})\n")
    print("| round trips | relay classes | CPU latency request | load (1 min) | late mean (us) | late max (ms) "
          "| frames over 1 ms | frames relayed | bottleneck utilization |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    settings = Testbed.IDLE_QOS[idle_qos]
    for _ in range(reps):
        for (rtt1, n), qos in ((c, q) for c in ((rtts[1], 2), (rtts[0], 1)) for q in settings):
            Testbed.cpu_latency_qos = qos
            sc = {"name": "late", "duration": f"{duration}s", "sample_interval": "100ms",
                  "topology": {"kind": "dumbbell", "bottleneck": {"rate": rate, "delay": "5ms", "buffer": "1bdp"}},
                  "flows": [{"cc": "reno", "rtt": f"{rtts[0]}ms"}, {"cc": "reno", "rtt": f"{rtt1}ms"}]}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = cclab.run(sc, engine="linux")
            s = res.summary()
            held = "held" if s["linux_cpu_latency_held"] else "not held"
            print(f"| {rtts[0]} ms, {rtt1} ms | {n} | {held} | {os.getloadavg()[0]:.2f} "
                  f"| {s['linux_relay_late_mean_s'] * 1e6:.0f} | {s['linux_relay_late_max_s'] * 1e3:.2f} "
                  f"| {s['linux_relay_late_over_1ms']:.0f} | {s['linux_relay_frames']:.0f} "
                  f"| {s['bottleneck_utilization']:.3f} |", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "server":
        server([int(p) for p in sys.argv[2].split(",")])
    elif len(sys.argv) > 1 and sys.argv[1] == "client":
        client([int(p) for p in sys.argv[2].split(",")], int(sys.argv[3]), int(sys.argv[4]))
    else:
        ap = argparse.ArgumentParser()
        ap.add_argument("--count", type=int, default=100)
        ap.add_argument("--sizes", default="56,1400")
        ap.add_argument("--late", type=int, default=0, metavar="REPS")
        ap.add_argument("--rate", default="20Mbps")
        ap.add_argument("--rtts", default="20,80", help="two round trips, ms")
        ap.add_argument("--duration", type=float, default=5.0)
        ap.add_argument("--idle-qos", choices=("on", "off", "both"), default="on",
                        help="hold the testbed's CPU latency request (on, the default), not (off), or each in turn")
        a = ap.parse_args()
        if a.late:
            r0, r1 = (int(x) for x in a.rtts.split(","))
            late(a.late, a.rate, (r0, r1), a.duration, a.idle_qos)
        else:
            measure(a.count, [int(s) for s in a.sizes.split(",")])
