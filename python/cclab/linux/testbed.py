"""The namespace testbed: three network namespaces in a line, a bottleneck queue and a delay line.

    [PREFIX-snd] s0 10.201.0.1 <-veth-> m0 [PREFIX-mid] m1 <-veth-> r0 10.201.0.2 [PREFIX-rcv]

The middle namespace has no addresses: ``delay_line`` (c/delay_line.c) copies every frame from
m0 to m1 after the forward one-way delay and from m1 to m0 after the reverse one; the frames it
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
"""

from __future__ import annotations

import atexit
import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, List, Optional, Tuple

from .errors import LinuxEngineError

#: Every namespace this process creates starts with this.
PREFIX = f"cclab-{os.getpid()}-"
#: What every testbed namespace starts with, whichever process made it.
NS_STEM = "cclab-"
#: What every BPF congestion control of the project is named (cclab.linux.bpf).
CC_STEM = "cclab_"
#: One Linux-engine run at a time on a machine: the holder of this lock owns everything with the prefix.
LOCK = Path("/run" if os.access("/run", os.W_OK) else "/tmp") / "cclab-linux.lock"
#: Seconds a run waits for another run's lock before giving up.
LOCK_WAIT_S = 120.0

SND_ADDR, RCV_ADDR = "10.201.0.1", "10.201.0.2"
HERE = Path(__file__).resolve().parent


def cache_dir() -> Path:
    """Where compiled helpers (delay_line, BPF objects, vmlinux.h) are kept."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    d = Path(base) / "cclab" / "linux"
    d.mkdir(parents=True, exist_ok=True)
    return d


def sh(*cmd: str, check: bool = True, timeout: float = 30.0) -> str:
    """Runs a command, returns its stdout; LinuxEngineError with its stderr's first line on failure."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise LinuxEngineError(f"{cmd[0]}: not installed (docs/linux.md lists what the Linux engine needs)") from None
    if check and p.returncode != 0:
        err = (p.stderr.strip() or p.stdout.strip()).splitlines()
        raise LinuxEngineError(f"`{' '.join(cmd)}` failed: {err[0] if err else f'exit {p.returncode}'}")
    return p.stdout


def missing_requirements(bpf: bool = False) -> Optional[str]:
    """Why this machine cannot run the testbed (one line), or None when it can."""
    if os.geteuid() != 0:
        return "the Linux engine needs root (network namespaces, qdiscs, AF_PACKET)"
    for tool in ("ip", "tc", "ethtool", "gcc") + (("clang", "bpftool") if bpf else ()):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (docs/linux.md lists what the Linux engine needs)"
    if not Path("/proc/self/ns/net").exists():
        return "the kernel has no network namespaces"
    if bpf and not Path("/sys/kernel/btf/vmlinux").exists():
        return "the kernel has no BTF (/sys/kernel/btf/vmlinux), needed for BPF congestion controls"
    return _netns_probe()


@functools.lru_cache(maxsize=1)
def _netns_probe() -> Optional[str]:
    """Root is not enough in a container without CAP_NET_ADMIN or CAP_SYS_ADMIN: create and delete one
    namespace, once per process, and say why it failed."""
    ns = f"{PREFIX}probe"
    p = subprocess.run(["ip", "netns", "add", ns], capture_output=True, text=True, timeout=30)
    subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)
    if p.returncode != 0:
        err = (p.stderr.strip() or f"exit {p.returncode}").splitlines()[0]
        return f"cannot create a network namespace here (`ip netns add`: {err})"
    return None


def compile_c(source: Path, name: str, extra: tuple[str, ...] = ()) -> Path:
    """Compiles a C helper once per source text into the cache folder; returns the binary."""
    text = source.read_bytes()
    digest = hashlib.sha256(text + " ".join(extra).encode()).hexdigest()[:12]
    out = cache_dir() / f"{name}-{digest}"
    if not out.exists():
        tmp = out.with_suffix(f".tmp{os.getpid()}")
        sh("gcc", "-O2", "-Wall", "-o", str(tmp), str(source), *extra, timeout=120)
        tmp.replace(out)
    return out


# -- leftovers -----------------------------------------------------------------------------------


def _namespaces() -> List[str]:
    out = sh("ip", "netns", "list", check=False)
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _kill_netns_pids(ns: str) -> None:
    pids = [int(p) for p in sh("ip", "netns", "pids", ns, check=False).split() if p.isdigit()]
    for pid in pids:
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def registered_struct_ops() -> List[dict[str, Any]]:
    """The registered struct_ops whose name carries CC_STEM (id, name), via bpftool."""
    if shutil.which("bpftool") is None:
        return []
    out = sh("bpftool", "-j", "struct_ops", "show", check=False).strip()
    if not out:
        return []
    try:
        items = json.loads(out)
    except ValueError:
        # bpftool 7.1 prints one JSON object per map without a list around them.
        items = [json.loads(x) for x in re.findall(r"\{[^{}]*\}", out)]
    if isinstance(items, dict):
        items = [items]
    return [i for i in items if str(i.get("name", "")).startswith(CC_STEM)]


def registered_ccs() -> List[str]:
    """The congestion controls named ``cclab_*`` the kernel offers now. An unregistered struct_ops
    map stays listed by bpftool until the last socket that used it is freed; this list is what
    is registered."""
    text = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text()
    return [n for n in text.split() if n.startswith(CC_STEM)]


def cgroup2_root() -> Optional[Path]:
    """Where the cgroup v2 hierarchy is mounted (``/sys/fs/cgroup`` on a pure-v2 host,
    ``/sys/fs/cgroup/unified`` in the hybrid layout), or None."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return None
    roots = [Path(m.split()[1]) for m in mounts if len(m.split()) > 2 and m.split()[2] == "cgroup2"]
    return min(roots, key=lambda r: len(r.parts)) if roots else None


def _cgroups(include_own: bool) -> List[Path]:
    root = cgroup2_root()
    if root is None:
        return []
    return sorted(d for d in root.iterdir() if d.is_dir() and d.name.startswith(NS_STEM)
                  and (include_own or not d.name.startswith(PREFIX)))


def _cgroup_pids(cg: Path) -> List[int]:
    try:
        return [int(p) for p in (cg / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def remove_cgroup(cg: Path) -> List[str]:
    """Kills the processes in a testbed cgroup (the BPF loader and endpoints), detaches any BPF
    program still attached to it, and removes it; returns what it removed."""
    removed = []
    deadline = time.monotonic() + 3.0
    while (pids := [p for p in _cgroup_pids(cg) if p != os.getpid()]) and time.monotonic() < deadline:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    # A killed holder's cgroup links go with it; a program attached without a link stays: detach it.
    if shutil.which("bpftool") is not None:
        out = sh("bpftool", "-j", "cgroup", "show", str(cg), check=False).strip()
        try:
            progs = json.loads(out) if out else []
        except ValueError:
            progs = []
        for prog in progs if isinstance(progs, list) else []:
            sh("bpftool", "cgroup", "detach", str(cg), str(prog.get("attach_type")), "id", str(prog.get("id")),
               check=False)
            removed.append(f"bpf program {prog.get('name')} (id {prog.get('id')}) from cgroup {cg.name}")
    for _ in range(40):
        try:
            cg.rmdir()
            removed.append(f"cgroup {cg}")
            break
        except FileNotFoundError:
            break
        except OSError:
            time.sleep(0.05)  # its last process is still exiting
    return removed


def cleanup_leftovers(include_own: bool = False) -> List[str]:
    """Removes every namespace named ``cclab-*`` (and first the processes inside it), every cgroup
    v2 named ``cclab-*`` (its processes, the BPF programs attached to it) and every registered
    ``cclab_*`` struct_ops; returns what it removed. Callers hold ``LOCK`` (or know no run is
    going on): a running testbed's things carry the same stems."""
    removed = []
    for ns in _namespaces():
        if ns.startswith(NS_STEM) and (include_own or not ns.startswith(PREFIX)):
            _kill_netns_pids(ns)
            sh("ip", "netns", "del", ns, check=False)
            removed.append(f"netns {ns}")
    for cg in _cgroups(include_own):
        removed += remove_cgroup(cg)
    live = set(registered_ccs())
    for so in registered_struct_ops():
        if so["name"] in live:  # the others are unregistered already, waiting for their sockets
            sh("bpftool", "struct_ops", "unregister", "id", str(so["id"]), check=False)
            removed.append(f"struct_ops {so['name']} (id {so['id']})")
    return removed


def _stop(p: subprocess.Popen, timeout: float) -> Tuple[Optional[str], Optional[str]]:
    """SIGTERM to a helper process (delay line, BPF loader), which prints its last words as it
    exits; SIGKILL if it has not within ``timeout`` s. Returns its (stdout, stderr)."""
    p.terminate()
    try:
        return p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.communicate()


class _Lock:
    def __init__(self) -> None:
        self.fd: Optional[int] = None

    def acquire(self) -> None:
        self.fd = os.open(LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    holder = os.pread(self.fd, 32, 0).decode(errors="replace").strip()
                    raise LinuxEngineError(f"another Linux-engine run (pid {holder}) holds {LOCK}") from None
                time.sleep(0.2)
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing drops the flock
            self.fd = None


class _Stop(KeyboardInterrupt):
    """SIGTERM/SIGHUP turned into an exception, so that ``with Testbed(...)`` tears down; a
    KeyboardInterrupt, so that the CLI reports it as an interruption in one line."""


def _raise_stop(signum: int, _frame: Any) -> None:
    raise _Stop(f"signal {signum}")


class Testbed:
    """The three namespaces, the bottleneck and the delay line, as a context manager.

    ``rate_bps``: bottleneck rate. ``limit_pkts`` / ``limit_bytes``: its drop-tail buffer (one
    of them; neither: a pfifo of 100,000 packets, "unlimited"). ``delay_fwd_s``/``delay_rev_s``:
    one-way propagation delay sender->receiver and back. ``mtu``: of every veth.
    """

    __test__ = False  # not a pytest class, whatever a test module imports it as

    #: Set to 1 for evidence runs only (docs/linux.md, cclab_tcpgt): the sender's veth then takes
    #: skbs of one segment; by default TCP builds multi-segment (GSO) skbs, segmented in software
    #: and sent back to back.
    gso_max_segs: Optional[int] = None

    def __init__(self, rate_bps: float, limit_pkts: Optional[int], limit_bytes: Optional[int],
                 delay_fwd_s: float, delay_rev_s: float, mtu: int = 1500) -> None:
        self.rate_bps, self.limit_pkts, self.limit_bytes = rate_bps, limit_pkts, limit_bytes
        self.delay_fwd_s, self.delay_rev_s, self.mtu = delay_fwd_s, delay_rev_s, mtu
        self.snd, self.mid, self.rcv = PREFIX + "snd", PREFIX + "mid", PREFIX + "rcv"
        self.procs: List[subprocess.Popen[Any]] = []
        self.struct_ops: List[int] = []
        self._lock = _Lock()
        self._old_handlers: dict[int, Any] = {}
        self._up = False
        self.removed_at_start: List[str] = []
        self.last_ping_summary: dict[str, float] = {}
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
            for pipe in (p.stdout, p.stderr):
                if pipe is not None:
                    pipe.close()
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
        atexit.unregister(self.teardown)
        self._lock.release()

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

    def _bottleneck(self) -> None:
        # HTB counts the 14-byte Ethernet header: scale the rate so that full-size IP packets
        # leave at the scenario's rate (the simulator's packets are IP packets).
        rate = f"{int(round(self.rate_bps * (self.mtu + 14) / self.mtu))}bit"
        sh("tc", "-n", self.mid, "qdisc", "add", "dev", "m1", "root", "handle", "1:", "htb", "default", "1")
        # quantum = one full frame: HTB's default (rate/r2q) warns or misbehaves at low rates.
        sh("tc", "-n", self.mid, "class", "add", "dev", "m1", "parent", "1:", "classid", "1:1", "htb",
           "rate", rate, "ceil", rate, "quantum", str(self.mtu + 14))
        if self.limit_bytes is not None:
            # bfifo counts the frame (IP packet + 14 bytes of Ethernet header).
            leaf = ["bfifo", "limit", str(int(self.limit_bytes))]
        else:
            leaf = ["pfifo", "limit", str(int(self.limit_pkts if self.limit_pkts is not None else 100_000))]
        sh("tc", "-n", self.mid, "qdisc", "add", "dev", "m1", "parent", "1:1", "handle", "10:", *leaf)

    def stop_delay_line(self) -> dict[str, int]:
        """Stops the delay line; returns the frames it lost per direction ({"fwd": n, "rev": n}):
        nonzero means the run went beyond what the testbed carries honestly (losses that the
        bottleneck did not make)."""
        p = self._relay
        if p is None or p.poll() is not None:
            return {}
        _, err = _stop(p, 5)
        m = re.search(r"lost a->b (\d+) b->a (\d+)", err or "")
        return {"fwd": int(m.group(1)), "rev": int(m.group(2))} if m else {}

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
        p = self._relay = self.spawn(self.mid, str(binary), "m0", "m1", str(round(self.delay_fwd_s * 1e6)),
                       str(round(self.delay_rev_s * 1e6)))
        line = p.stdout.readline() if p.stdout else ""
        if line.strip() != "ready":
            err = p.stderr.read() if p.stderr and p.poll() is not None else ""
            raise LinuxEngineError(f"delay_line did not start: {err.strip() or line.strip() or 'no output'}")

    # -- using ---------------------------------------------------------------------------------

    def exec(self, ns: str, *cmd: str, timeout: float = 30.0) -> str:
        return sh("ip", "netns", "exec", ns, *cmd, timeout=timeout)

    def spawn(self, ns: str, *cmd: str, in_cgroup: bool = False) -> "subprocess.Popen[str]":
        """Starts a process in a namespace (``ip netns exec`` execs it: the Popen's pid is the
        process itself); teardown stops it. ``in_cgroup``: it first joins the testbed's cgroup
        (``load_with_sockops``), before ``ip netns exec``, which mounts a /sys without it."""
        pre: List[str] = []
        if in_cgroup and self.cgroup is not None:
            pre = ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.cgroup / "cgroup.procs")]
        p = subprocess.Popen([*pre, "ip", "netns", "exec", ns, *cmd], stdin=subprocess.DEVNULL,
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
