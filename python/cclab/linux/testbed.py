"""The namespace testbed: three network namespaces in a line, a bottleneck queue and a delay line.

    [PREFIX-snd] s0 10.201.0.1 <-veth-> m0 [PREFIX-mid] m1 <-veth-> r0 10.201.0.2 [PREFIX-rcv]

The middle namespace has no addresses: ``delay_line`` (c/delay_line.c) copies every frame from
m0 to m1 after the forward one-way delay and from m1 to m0 after the reverse one (per flow when
``classes`` are given: a flow is its receiver's listening port); the frames it
writes to m1 go through m1's root qdisc, the bottleneck: HTB at the bottleneck's rate with one
class whose leaf is a ``pfifo`` (packet limit) or ``bfifo`` (byte limit) of the scenario's
buffer, i.e. drop-tail. The veths are created inside their namespaces, so none ever exists in
the host's namespace and deleting the namespaces deletes them.

Everything the testbed creates carries ``PREFIX`` (``cclab-<pid>-``; the BPF congestion
controls are named ``cclab_*``). One run at a time holds ``LOCK``; a new run takes it, then
removes whatever carries the prefix (namespaces, the processes in them, registered
``cclab_*`` struct_ops, cgroups named ``cclab-*`` with their processes and BPF programs): an
earlier run killed with SIGKILL cannot leave anything for long.
Teardown runs on leaving the ``with`` block (success or exception), on SIGTERM/SIGINT (turned
into an exception in the main thread) and at interpreter exit.

While it is up, the testbed holds a CPU latency request of 0 us (``/dev/cpu_dma_latency``, the
kernel's PM QoS interface, as cyclictest does): idle cores then poll instead of halting. On a
VM a halted vCPU is woken through the hypervisor, and on this project's machine kind that made
the relay wake 0.5-1.4 ms late on average with a fifth of its frames over 1 ms, enough to idle
the bottleneck (docs/linux.md, "Idle cores").
"""

from __future__ import annotations

import atexit
import json
import os
import re
import signal
import struct
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .errors import LinuxEngineError
from .host import (HERE, PREFIX, _kill_netns_pids, _Lock, cgroup2_root, cleanup_leftovers, compile_c,
                   missing_requirements, remove_cgroup, sh)

SND_ADDR, RCV_ADDR = "10.201.0.1", "10.201.0.2"


def _stop(p: subprocess.Popen, timeout: float) -> Tuple[Optional[str], Optional[str]]:
    """SIGTERM to a helper process (delay line, BPF loader), which prints its last words as it
    exits; SIGKILL if it has not within ``timeout`` s. Returns its (stdout, stderr)."""
    p.terminate()
    try:
        return p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.communicate()


class _Stop(KeyboardInterrupt):
    """SIGTERM/SIGHUP turned into an exception, so that ``with Testbed(...)`` tears down; a
    KeyboardInterrupt, so that the CLI reports it as an interruption in one line."""


def _raise_stop(signum: int, _frame: Any) -> None:
    raise _Stop(f"signal {signum}")


class Testbed:
    """The three namespaces, the bottleneck and the delay line, as a context manager.

    ``rate_bps``: bottleneck rate. ``limit_pkts`` / ``limit_bytes``: its drop-tail buffer (one
    of them; neither: a pfifo of 100,000 packets, "unlimited"). ``delay_fwd_s``/``delay_rev_s``:
    one-way propagation delay sender->receiver and back, of every frame no class claims.
    ``mtu``: of every veth. ``classes``: per-flow delays, {receiver's TCP port: (forward s,
    reverse s)}; the TCP frames to and from that port take them (c/delay_line.c). ``loss``: the
    probability that the delay line drops a forward frame carrying TCP payload, drawn from a
    generator seeded with ``seed``; ``gilbert_elliott``: (p, r, loss_good, loss_bad), the
    simulator's two-state channel for those frames instead. ``jitter_s``: each frame's delay
    uniform within that of its own, order kept (at most the least delay). ``set_loss`` and
    ``change_delay`` follow the schedules while up.
    """

    __test__ = False  # not a pytest class, whatever a test module imports it as

    #: Set to 1 for evidence runs only (docs/linux.md, cclab_tcpgt): the sender's veth then takes
    #: skbs of one segment; by default TCP builds multi-segment (GSO) skbs, segmented in software
    #: and sent back to back.
    gso_max_segs: Optional[int] = None

    #: Hold the 0 us CPU latency request while up (the module's docstring says why). Set to False
    #: for evidence runs only (docs/linux/measure_rtt.py --late ... --idle-qos both).
    cpu_latency_qos: bool = True
    #: The evidence scripts' ``--idle-qos`` choices: the ``cpu_latency_qos`` settings each runs in turn.
    IDLE_QOS = {"on": (True,), "off": (False,), "both": (True, False)}

    def __init__(self, rate_bps: float, limit_pkts: Optional[int], limit_bytes: Optional[int],
                 delay_fwd_s: float, delay_rev_s: float, mtu: int = 1500,
                 classes: Optional[Dict[int, Tuple[float, float]]] = None, loss: float = 0.0,
                 seed: int = 0, gilbert_elliott: Optional[Tuple[float, float, float, float]] = None,
                 jitter_s: float = 0.0) -> None:
        self.rate_bps, self.limit_pkts, self.limit_bytes = rate_bps, limit_pkts, limit_bytes
        self.delay_fwd_s, self.delay_rev_s, self.mtu = delay_fwd_s, delay_rev_s, mtu
        self.classes = dict(classes or {})
        self.loss, self.seed, self.gilbert_elliott = loss, seed, gilbert_elliott
        self.jitter_s = jitter_s
        self.snd, self.mid, self.rcv = PREFIX + "snd", PREFIX + "mid", PREFIX + "rcv"
        self.procs: List[subprocess.Popen[Any]] = []
        self.struct_ops: List[int] = []
        self._lock = _Lock()
        self._old_handlers: dict[int, Any] = {}
        self._up = False
        self.removed_at_start: List[str] = []
        self.last_ping_summary: dict[str, float] = {}
        self.late_spells: List[Tuple[str, float, float]] = []
        #: Whether the CPU latency request was held for this run (False: not asked for, or the
        #: kernel has no /dev/cpu_dma_latency or refused it).
        self.cpu_latency_held = False
        self._qos_fd: Optional[int] = None
        self._relay: Optional["subprocess.Popen[str]"] = None
        #: The cgroup v2 the endpoints join when a BPF algorithm has a sockops program (else None).
        self.cgroup: Optional[Path] = None
        self._loader: Optional["subprocess.Popen[str]"] = None

    # -- life cycle ------------------------------------------------------------------------

    def __enter__(self) -> "Testbed":
        why = missing_requirements()
        if why:
            raise LinuxEngineError(why)
        self._lock.acquire()
        self._up = True
        atexit.register(self.teardown)
        for sig in (signal.SIGTERM, signal.SIGHUP):
            try:
                self._old_handlers[sig] = signal.signal(sig, _raise_stop)
            except ValueError:  # not the main thread: the atexit hook and the lock still hold
                pass
        try:
            self._hold_cpu_latency()
            self.removed_at_start = cleanup_leftovers(include_own=True)
            self._build()
        except BaseException:
            self.teardown()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self.teardown()

    def teardown(self) -> None:
        """Stops every process started here, deletes the namespaces and unregisters the struct_ops."""
        if not self._up:
            return
        self._up = False
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=2)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            for pipe in (p.stdin, p.stdout, p.stderr):
                if pipe is not None:
                    try:
                        pipe.close()
                    except OSError:  # the delay line's command pipe, its reader gone
                        pass
        for ns in (self.snd, self.mid, self.rcv):
            _kill_netns_pids(ns)
            sh("ip", "netns", "del", ns, check=False)
        for sid in self.struct_ops:
            sh("bpftool", "struct_ops", "unregister", "id", str(sid), check=False)
        self.struct_ops.clear()
        if self.cgroup is not None:
            remove_cgroup(self.cgroup)
            self.cgroup = None
        for sig, old in self._old_handlers.items():
            signal.signal(sig, old)
        self._old_handlers.clear()
        if self._qos_fd is not None:  # closing the file withdraws the request
            os.close(self._qos_fd)
            self._qos_fd = None
        atexit.unregister(self.teardown)
        self._lock.release()

    def _hold_cpu_latency(self) -> None:
        """Asks the kernel for 0 us wake-up latency until teardown (the request lasts as long as
        the file is open; the kernel takes a binary 32-bit value)."""
        if not self.cpu_latency_qos:
            return
        try:
            fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY | os.O_CLOEXEC)
        except OSError:
            return
        try:
            os.write(fd, struct.pack("=i", 0))
        except OSError:
            os.close(fd)
            return
        self._qos_fd, self.cpu_latency_held = fd, True

    # -- building --------------------------------------------------------------------------

    def _build(self) -> None:
        for ns in (self.snd, self.mid, self.rcv):
            sh("ip", "netns", "add", ns)
        sh("ip", "-n", self.snd, "link", "add", "s0", "type", "veth", "peer", "name", "m0", "netns", self.mid)
        sh("ip", "-n", self.rcv, "link", "add", "r0", "type", "veth", "peer", "name", "m1", "netns", self.mid)
        for ns, devs in ((self.snd, ("s0",)), (self.mid, ("m0", "m1")), (self.rcv, ("r0",))):
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            for dev in devs:
                sh("ip", "-n", ns, "link", "set", "dev", dev, "mtu", str(self.mtu))
                # Frames larger than the MTU (TSO/GSO/GRO) or with partial checksums break the
                # relay and make the bottleneck count super-packets. With them off each skb the
                # device gets is one wire packet (TCP still builds multi-segment skbs; the stack
                # segments them in software before the device).
                self.exec(ns, "ethtool", "-K", dev, "tx", "off", "tso", "off", "gso", "off", "gro", "off")
                sh("ip", "-n", ns, "link", "set", "dev", dev, "up")
        if self.gso_max_segs is not None:
            sh("ip", "-n", self.snd, "link", "set", "dev", "s0", "gso_max_segs", str(self.gso_max_segs))
        sh("ip", "-n", self.snd, "addr", "add", f"{SND_ADDR}/24", "dev", "s0")
        sh("ip", "-n", self.rcv, "addr", "add", f"{RCV_ADDR}/24", "dev", "r0")
        # Static neighbours: no ARP exchange through the delay line at the start of a flow.
        mac = {ns: self._mac(ns, dev) for ns, dev in ((self.snd, "s0"), (self.rcv, "r0"))}
        sh("ip", "-n", self.snd, "neigh", "replace", RCV_ADDR, "lladdr", mac[self.rcv], "dev", "s0", "nud", "permanent")
        sh("ip", "-n", self.rcv, "neigh", "replace", SND_ADDR, "lladdr", mac[self.snd], "dev", "r0", "nud", "permanent")
        for ns in (self.snd, self.mid, self.rcv):
            # No IPv6: its neighbour and router solicitations would cross the bottleneck.
            self.exec(ns, "sh", "-c", "echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6; "
                                      "echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6")
        for ns in (self.snd, self.rcv):
            # Per-namespace TCP settings (never net.ipv4.tcp_congestion_control: docs/linux.md).
            for key, value in (("tcp_no_metrics_save", "1"), ("tcp_wmem", "4096 131072 67108864"),
                               ("tcp_rmem", "4096 131072 67108864")):
                self.exec(ns, "sh", "-c", f"echo '{value}' > /proc/sys/net/ipv4/{key}")
        self._bottleneck()
        self._delay_line()

    def _mac(self, ns: str, dev: str) -> str:
        info = json.loads(sh("ip", "-n", ns, "-j", "link", "show", "dev", dev))
        return str(info[0]["address"])

    def _htb_class(self, verb: str, rate_bps: float) -> None:
        # HTB counts the 14-byte Ethernet header: scale the rate so that full-size IP packets
        # leave at the scenario's rate (the simulator's packets are IP packets).
        rate = f"{int(round(rate_bps * (self.mtu + 14) / self.mtu))}bit"
        # quantum = one full frame: HTB's default (rate/r2q) warns or misbehaves at low rates.
        sh("tc", "-n", self.mid, "class", verb, "dev", "m1", "parent", "1:", "classid", "1:1", "htb",
           "rate", rate, "ceil", rate, "quantum", str(self.mtu + 14))

    def set_rate(self, rate_bps: float) -> None:
        """Changes the bottleneck's rate (a `rate_schedule` step); the queue keeps its packets."""
        self._htb_class("change", rate_bps)

    def _bottleneck(self) -> None:
        sh("tc", "-n", self.mid, "qdisc", "add", "dev", "m1", "root", "handle", "1:", "htb", "default", "1")
        self._htb_class("add", self.rate_bps)
        if self.limit_bytes is not None:
            # bfifo counts the frame (IP packet + 14 bytes of Ethernet header).
            leaf = ["bfifo", "limit", str(int(self.limit_bytes))]
        else:
            leaf = ["pfifo", "limit", str(int(self.limit_pkts if self.limit_pkts is not None else 100_000))]
        sh("tc", "-n", self.mid, "qdisc", "add", "dev", "m1", "parent", "1:1", "handle", "10:", *leaf)

    def stop_delay_line(self) -> dict[str, int]:
        """Stops the delay line; returns the frames it lost per direction ({"fwd": n, "rev": n}):
        nonzero means the run went beyond what the testbed carries honestly (losses that the
        bottleneck did not make); the frames that took the default delay ("default_fwd",
        "default_rev"): with classes, a flow's frame there had the wrong delay; and how late the
        relay found frames due ("late_fwd_frames", "late_fwd_mean_ns", "late_fwd_max_ns",
        "late_fwd_over_1ms", and the same for "rev"); the forward frames it dropped at random
        ("random_fwd", the scenario's ``loss`` or ``gilbert_elliott``) and the runs of consecutive
        ones among them ("random_fwd_bursts")."""
        p = self._relay
        if p is None or p.poll() is not None:
            return {}
        _, err = _stop(p, 5)
        out = {}
        m = re.search(r"lost a->b (\d+) b->a (\d+)", err or "")
        if m:
            out.update(fwd=int(m.group(1)), rev=int(m.group(2)))
        m = re.search(r"default class a->b (\d+) b->a (\d+)", err or "")
        if m:
            out.update(default_fwd=int(m.group(1)), default_rev=int(m.group(2)))
        m = re.search(r"random loss a->b (\d+) bursts (\d+)", err or "")
        if m:
            out.update(random_fwd=int(m.group(1)), random_fwd_bursts=int(m.group(2)))
        for d, key in (("a->b", "fwd"), ("b->a", "rev")):
            m = re.search(rf"late {d} frames (\d+) mean_ns (\d+) max_ns (\d+) over_1ms (\d+)", err or "")
            if m:
                out.update({f"late_{key}_frames": int(m.group(1)), f"late_{key}_mean_ns": int(m.group(2)),
                            f"late_{key}_max_ns": int(m.group(3)), f"late_{key}_over_1ms": int(m.group(4))})
        #: Spells of lateness over 2 ms: (direction "fwd"/"rev", CLOCK_MONOTONIC s when due, worst s).
        self.late_spells = [("fwd" if d == "a->b" else "rev", int(t) / 1e9, int(w) / 1e9) for d, t, w in
                            re.findall(r"spell (a->b|b->a) at_ns (\d+) max_ns (\d+)", err or "")]
        return out

    def _relay_command(self, line: str) -> None:
        p = self._relay
        if p is None or p.stdin is None or p.poll() is not None:
            raise LinuxEngineError("the delay line is not running")
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def set_loss(self, probability: float) -> None:
        """The forward random loss from now on (a `loss_schedule` step)."""
        self._relay_command(f"loss {probability!r}")

    def change_delay(self, by_s: float) -> None:
        """Every one-way delay, both directions, ``by_s`` from the configured one from now on (a
        `delay_schedule` step: the bottleneck's delay changed by that much)."""
        self._relay_command(f"delay {round(by_s * 1e6)}")

    def load_with_sockops(self, obj: Path) -> Path:
        """Creates the testbed's cgroup v2 and starts ``c/bpf_loader.c`` on the BPF object ``obj``:
        it registers the object's congestion control and attaches its sockops program to the
        cgroup (sharing the object's maps). Returns the cgroup; the endpoints join it before they
        create sockets. Teardown stops the loader (which detaches and unregisters) and removes
        the cgroup."""
        root = cgroup2_root()
        if root is None:
            raise LinuxEngineError("cgroup v2 is not mounted: the sockops program of this algorithm needs one")
        binary = compile_c(HERE / "c" / "bpf_loader.c", "bpf_loader", ("-lbpf",))
        cg = root / f"{PREFIX}endpoints"
        cg.mkdir(exist_ok=True)
        self.cgroup = cg
        p = self._loader = subprocess.Popen([str(binary), str(obj), str(cg)], stdin=subprocess.DEVNULL,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(p)
        for line in iter(p.stdout.readline if p.stdout else str, ""):
            m = re.match(r"registered \S+ id (\d+)", line)
            if m:
                self.struct_ops.append(int(m.group(1)))
            if line.strip() == "ready":
                return cg
        err = p.stderr.read() if p.stderr and p.wait(timeout=10) is not None else ""
        raise LinuxEngineError(f"bpf_loader did not start: {err.strip() or 'no output'}")

    def stop_loader(self) -> List[int]:
        """Stops the BPF loader (it detaches the sockops program and unregisters the congestion
        control); returns the object's counters (its ``.bss`` as 64-bit words), [] if none."""
        p = self._loader
        if p is None or p.poll() is not None:
            return []
        out, _ = _stop(p, 10)
        m = re.search(r"^counters((?: \d+)*)$", out or "", re.M)
        return [int(v) for v in m.group(1).split()] if m else []

    def _delay_line(self) -> None:
        binary = compile_c(HERE / "c" / "delay_line.c", "delay_line")
        per_flow = [f"{port}:{round(fwd * 1e6)}:{round(rev * 1e6)}" for port, (fwd, rev) in sorted(self.classes.items())]
        # The seed draws the random loss (also a `loss_schedule`'s) and the jitter.
        opts = [f"seed={self.seed}"] + ([f"loss={self.loss!r}"] if self.loss > 0 else [])
        if self.gilbert_elliott:
            opts = [f"seed={self.seed}", "gemodel=" + ":".join(repr(float(v)) for v in self.gilbert_elliott)]
        if self.jitter_s > 0:
            opts.append(f"jitter={round(self.jitter_s * 1e6)}")
        # Its stdin takes the schedules' steps (set_loss, change_delay).
        p = self._relay = self.spawn(self.mid, str(binary), "m0", "m1", str(round(self.delay_fwd_s * 1e6)),
                                     str(round(self.delay_rev_s * 1e6)), *opts, *per_flow, commands=True)
        line = p.stdout.readline() if p.stdout else ""
        if line.strip() != "ready":
            err = p.stderr.read() if p.stderr and p.poll() is not None else ""
            raise LinuxEngineError(f"delay_line did not start: {err.strip() or line.strip() or 'no output'}")

    # -- using ---------------------------------------------------------------------------------

    def exec(self, ns: str, *cmd: str, timeout: float = 30.0) -> str:
        return sh("ip", "netns", "exec", ns, *cmd, timeout=timeout)

    def spawn(self, ns: str, *cmd: str, in_cgroup: bool = False, commands: bool = False) -> "subprocess.Popen[str]":
        """Starts a process in a namespace (``ip netns exec`` execs it: the Popen's pid is the
        process itself); teardown stops it. ``in_cgroup``: it first joins the testbed's cgroup
        (``load_with_sockops``), before ``ip netns exec``, which mounts a /sys without it.
        ``commands``: its stdin is a pipe (else /dev/null)."""
        pre: List[str] = []
        if in_cgroup and self.cgroup is not None:
            pre = ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.cgroup / "cgroup.procs")]
        p = subprocess.Popen([*pre, "ip", "netns", "exec", ns, *cmd],
                             stdin=subprocess.PIPE if commands else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(p)
        return p

    def qdisc_stats(self) -> dict[str, Any]:
        """The bottleneck leaf's counters: backlog bytes/packets, drops, packets and bytes sent."""
        for q in json.loads(sh("tc", "-n", self.mid, "-s", "-j", "qdisc", "show", "dev", "m1")):
            if q.get("handle") == "10:":
                return q
        raise LinuxEngineError("the bottleneck qdisc disappeared")

    def ping_rtt(self, count: int = 20, interval_s: float = 0.05, size: int = 56) -> List[float]:
        """Round trips of ``count`` pings sender->receiver at idle, seconds."""
        out = self.exec(self.snd, "ping", "-n", "-c", str(count), "-i", str(interval_s),
                        "-s", str(size), RCV_ADDR, timeout=30 + count * interval_s)
        self.last_ping_summary = {k: float(v) / 1e3 for k, v in zip(
            ("min", "avg", "max", "mdev"), re.findall(r"= ([0-9.]+)/([0-9.]+)/([0-9.]+)/([0-9.]+) ms", out)[0])} \
            if "min/avg/max" in out else {}
        # ping prints 3 significant digits per reply (0.1 ms at 10-99 ms); its summary, microseconds.
        return [float(m) / 1e3 for m in re.findall(r"time=([0-9.]+) ms", out)]
