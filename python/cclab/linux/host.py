"""What the Linux engine finds and leaves on the host: its tools, the namespaces, cgroups and BPF
congestion controls that carry the project's names, compiled helpers, and the lock that lets
one run at a time own them (cclab.linux.testbed builds a testbed with them).
"""

from __future__ import annotations

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
from typing import Any, List, Optional

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
