"""cclab's congestion controls as BPF struct_ops (docs/linux.md, "BPF congestion controls").

Each algorithm is one file ``bpf/<name>.bpf.c`` and one line of ``REGISTRY``. Objects are built
with ``clang -target bpf`` against a ``vmlinux.h`` generated from the running kernel's BTF, both
cached; ``register`` loads and registers one with ``bpftool struct_ops register`` (Debian 12's
libbpf 1.1 has no ``.struct_ops.link``, so the registration outlives the loader: the testbed
unregisters it by id at teardown, and a new run removes every ``cclab_*`` one a killed run left).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Tuple

from .errors import LinuxEngineError
from .host import CC_STEM, cache_dir, sh

HERE = Path(__file__).resolve().parent / "bpf"


@dataclass(frozen=True)
class BpfCc:
    """A BPF congestion control: its source file (in ``bpf/``), the simulator's name of the
    same algorithm (the simulator parses scenarios that name the BPF one with it) and the names
    of the states it shows (``cclab_show``'s codes 0, 1, ...: the ``state`` of ``cc_series``;
    none: it shows nothing)."""

    source: str
    sim_name: str
    states: Tuple[str, ...] = ()
    #: It has a sockops program too (the testbed's cgroup, c/bpf_loader.c): started with ``Testbed.load_with_sockops``.
    sockops: bool = False
    #: Bytes of TCP option it adds to every data segment (the MSS is that much smaller).
    option_bytes: int = 0
    #: Names of the 64-bit counters in its ``.bss``, in order (the loader prints them at exit).
    counters: Tuple[str, ...] = ()


#: name -> algorithm; the name is the struct_ops' and the kernel's (``tcp_congestion_ops.name``).
REGISTRY: Dict[str, BpfCc] = {
    "cclab_reno": BpfCc("cclab_reno.bpf.c", "newreno"),
    "cclab_ubr": BpfCc("cclab_ubr.bpf.c", "ubr", ("none", "filling", "full")),
    "cclab_ghstcp": BpfCc("cclab_ghstcp.bpf.c", "ghstcp", ("hstcp", "reno")),
    "cclab_tcpgt": BpfCc("cclab_tcpgt.bpf.c", "tcp-gt", ("measuring", "increase", "decrease"), sockops=True,
                         option_bytes=12, counters=(
        "opt_data_written", "opt_ack_written", "opt_data_parsed", "opt_ack_parsed", "epochs", "increases",
        "decreases", "no_storage", "ts_tr_over_1ms", "ts_tr_over_2500us")),
    "cclab_hrf": BpfCc("cclab_hrf.bpf.c", "hrf", ("vacant", "buffered")),
    "cclab_w_cr_reno": BpfCc("cclab_w_cr_reno.bpf.c", "w+cr+reno", ("vacant", "buffered")),  # cclab_hrf.h, 001 5.2
    "cclab_w_cr_cr": BpfCc("cclab_w_cr_cr.bpf.c", "w+cr+cr", ("vacant", "buffered")),
    "cclab_ktcp": BpfCc("cclab_ktcp.bpf.c", "ktcp", ("free", "rising", "holding")),
    # A new algorithm: its file in bpf/ and one line here.
}
assert all(n.startswith(CC_STEM) for n in REGISTRY)


def vmlinux_h() -> Path:
    """``vmlinux.h`` of the running kernel (from its BTF), generated once per kernel build."""
    release = os.uname().release + os.uname().version
    d = cache_dir() / f"btf-{hashlib.sha256(release.encode()).hexdigest()[:12]}"
    out = d / "vmlinux.h"
    if not out.exists():
        if not Path("/sys/kernel/btf/vmlinux").exists():
            raise LinuxEngineError("the kernel has no BTF (/sys/kernel/btf/vmlinux): BPF congestion controls need it")
        d.mkdir(parents=True, exist_ok=True)
        text = sh("bpftool", "btf", "dump", "file", "/sys/kernel/btf/vmlinux", "format", "c", timeout=120)
        tmp = out.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)
    return out


def build(name: str) -> Path:
    """The BPF object of ``name``, compiled once per source text and kernel."""
    src = HERE / REGISTRY[name].source
    header = vmlinux_h()
    headers = b"".join(h.read_bytes() for h in sorted(HERE.glob("*.h")))  # cclab_bpf.h and tables
    digest = hashlib.sha256(src.read_bytes() + headers + str(header).encode()).hexdigest()[:12]
    obj = cache_dir() / f"{name}-{digest}.bpf.o"
    if not obj.exists():
        tmp = obj.with_suffix(f".tmp{os.getpid()}")
        sh("clang", "-g", "-O2", "-target", "bpf", "-D__TARGET_ARCH_x86", "-I", str(header.parent), "-I", str(HERE),
           "-c", str(src), "-o", str(tmp), timeout=120)
        tmp.replace(obj)
    return obj


def register(name: str) -> int:
    """Loads and registers ``name``; returns its struct_ops map id (unregister with ``unregister``).
    An algorithm with a sockops program goes through ``Testbed.load_with_sockops`` instead."""
    if REGISTRY[name].sockops:
        raise LinuxEngineError(f"{name} has a sockops program: load it with Testbed.load_with_sockops")
    obj = build(name)
    p = subprocess.run(["bpftool", "struct_ops", "register", str(obj)], capture_output=True, text=True, timeout=60)
    out = p.stdout + p.stderr  # bpftool 7.1 writes "Registered ... id N" to stderr
    m = re.search(rf"Registered tcp_congestion_ops {re.escape(name)} id (\d+)", out)
    if not m:
        raise LinuxEngineError(f"bpftool did not register {name}: {out.strip() or 'no output'}")
    return int(m.group(1))


def unregister(struct_ops_id: int) -> None:
    sh("bpftool", "struct_ops", "unregister", "id", str(struct_ops_id), check=False)


def state_map(name: str) -> Optional[int]:
    """The id of the ``cclab_state`` map of the registered ``name`` (the map its programs use;
    every cclab object has its own), or None if it shows no state."""
    if not REGISTRY[name].states:
        return None
    progs = json.loads(sh("bpftool", "prog", "show", "-j"))
    ids = {m for p in progs if str(p.get("name", "")).startswith(f"{name}_") for m in p.get("map_ids", [])}
    maps = json.loads(sh("bpftool", "map", "show", "-j"))
    found = [m["id"] for m in maps if m.get("id") in ids and m.get("name") == "cclab_state"]
    return found[0] if found else None
