"""The reference simulators' outputs, kept across runs (``~/.cache/cclab/crosscheck/``).

ns-2 and ns-3 are deterministic: the same script (the seed is in it) on the same simulator
prints the same counters. A cross-check matrix reruns both sides each time, though most
changes touch only cclab, and the peer's side is nearly all of the time (minutes per
scenario for ns-3 at 1 Gbit/s). So the peer's output is stored under a hash of the
simulator (its binary's bytes: a rebuilt program or an upgraded package misses) and of the
exact input, and read back instead of running it again. ``CCLAB_PEER_CACHE=0`` turns it off.
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
import tempfile
from pathlib import Path
from typing import List


@functools.lru_cache(maxsize=None)
def _binary_hash(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _folder() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cclab" / "crosscheck"


def run(peer: str, command: List[str], text: str, timeout: float) -> subprocess.CompletedProcess:
    """``command`` (its first word the simulator's binary) run on ``text`` as standard input, or
    its stored output: a run that exited with 0 is stored; a failure is never."""
    use = os.environ.get("CCLAB_PEER_CACHE", "1") != "0"
    key = hashlib.sha256("\0".join([peer, _binary_hash(command[0]), *command[1:], text]).encode()).hexdigest()
    path = _folder() / peer / key[:2] / f"{key}.out"
    if use and path.exists():
        return subprocess.CompletedProcess(command, 0, path.read_text(), "")
    p = subprocess.run(command, input=text, capture_output=True, text=True, timeout=timeout)
    if use and p.returncode == 0:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written under a temporary name and renamed: a reader never sees half a file.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".out-")
        with os.fdopen(fd, "w") as f:
            f.write(p.stdout)
        os.replace(tmp, path)
    return p
