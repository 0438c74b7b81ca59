"""The Linux engine's traffic: bulk TCP senders and receivers, run inside a testbed namespace.

Run as a script (no cclab import, so it starts in a few ms): ``python endpoint.py send|recv
CONFIG_JSON``. Times are CLOCK_MONOTONIC, shared by every namespace, and relative to the
config's ``t0``. The sender sets each socket's congestion control with
``setsockopt(TCP_CONGESTION)`` (never the namespace's sysctl: docs/linux.md) and writes one
JSON line per sample and flow with the socket's TCP_INFO, then one ``final`` line per flow.
The receiver counts the bytes each flow delivered to it and writes them at the end.
"""

from __future__ import annotations

import ctypes
import json
import os
import socket
import struct
import sys
import threading
import time
from typing import Any, Dict, List, Optional

TCP_INFO_LEN = 248
INFINITE_SSTHRESH = 0x7FFFFFFF
CHUNK = 1 << 16

# struct tcp_info (include/uapi/linux/tcp.h, 6.7+ for total_rto): (offset, format) of the fields read.
_FIELDS = {
    "ca_state": (1, "B"), "snd_mss": (16, "I"), "rtt_us": (68, "I"), "rttvar_us": (72, "I"),
    "ssthresh": (76, "I"), "cwnd": (80, "I"), "total_retrans": (100, "I"), "pacing_rate": (104, "Q"),
    "bytes_acked": (120, "Q"), "data_segs_out": (156, "I"), "min_rtt_us": (148, "I"),
    "delivery_rate": (160, "Q"), "delivered": (192, "I"), "bytes_sent": (200, "Q"),
    "bytes_retrans": (208, "Q"), "unacked": (24, "I"), "notsent": (144, "I"), "total_rto": (240, "H"),
    "busy_us": (168, "Q"), "rwnd_limited_us": (176, "Q"), "sndbuf_limited_us": (184, "Q"), "snd_wnd": (228, "I"),
}


def tcp_info(sock: socket.socket) -> Dict[str, Any]:
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_LEN)
    out: Dict[str, Any] = {}
    for name, (off, fmt) in _FIELDS.items():
        size = struct.calcsize(fmt)
        out[name] = struct.unpack_from("=" + fmt, raw, off)[0] if off + size <= len(raw) else None
    return out


#: getsockopt level IPPROTO_TCP: the congestion control's own record (include/uapi/linux/tcp.h).
TCP_CC_INFO = 26
#: BBR's gains are fixed point over BBR_UNIT (net/ipv4/tcp_bbr.c).
BBR_UNIT = 256


def bbr_info(sock: socket.socket) -> Dict[str, Any]:
    """Kernel BBR's ``struct tcp_bbr_info`` (include/uapi/linux/inet_diag.h, filled by tcp_bbr.c
    ``bbr_get_info``): its bandwidth estimate in bytes per second (two 32-bit halves), its minimum
    RTT in microseconds and its pacing and window gains; {} from an algorithm that fills none."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, 20)
    if len(raw) < 20:
        return {}
    bw_lo, bw_hi, min_rtt_us, pacing_gain, cwnd_gain = struct.unpack("=5I", raw[:20])
    return {"bbr_bw_Bps": (bw_hi << 32) | bw_lo, "bbr_min_rtt_us": min_rtt_us,
            "bbr_pacing_gain": pacing_gain / BBR_UNIT, "bbr_cwnd_gain": cwnd_gain / BBR_UNIT}


class StateReader:
    """Reads a BPF congestion control's shown state (cclab_bpf.h ``cclab_show``: a hash map from
    the sender socket's local port to ``struct cclab_state {u32 state; u32 value;}``) with the
    bpf(2) system call: a map lookup per sample, no process started (bpftool would be one)."""

    _SYS_BPF = {"x86_64": 321, "aarch64": 280}
    _MAP_LOOKUP_ELEM, _MAP_GET_FD_BY_ID = 1, 14

    def __init__(self, map_id: int) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._nr = self._SYS_BPF[os.uname().machine]
        attr = (ctypes.c_uint32 * 32)(map_id)  # union bpf_attr: map_id first, the rest zero
        self.fd = self._bpf(self._MAP_GET_FD_BY_ID, attr)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), f"bpf(BPF_MAP_GET_FD_BY_ID, {map_id}): {os.strerror(ctypes.get_errno())}")

    def _bpf(self, cmd: int, attr: Any) -> int:
        return int(self._libc.syscall(self._nr, cmd, ctypes.byref(attr), ctypes.sizeof(attr)))

    def read(self, port: int) -> Optional[tuple]:
        """(state, value) of the socket bound to local ``port``, or None if it showed none."""
        key, value = ctypes.c_uint32(port), (ctypes.c_uint32 * 2)()
        attr = (ctypes.c_uint64 * 16)(self.fd, ctypes.addressof(key), ctypes.addressof(value))
        if self._bpf(self._MAP_LOOKUP_ELEM, attr) != 0:
            return None
        return int(value[0]), int(value[1])

    def close(self) -> None:
        os.close(self.fd)


def _sleep_until(t: float) -> None:
    while True:
        d = t - time.monotonic()
        if d <= 0:
            return
        time.sleep(min(d, 0.05))


class Flow:
    def __init__(self, cfg: Dict[str, Any], index: int, t0: float, addr: str, port: int) -> None:
        self.cfg, self.index, self.t0, self.addr, self.port = cfg, index, t0, addr, port
        self.sock: Optional[socket.socket] = None
        self.error: Optional[str] = None
        self.completion: Optional[float] = None
        self.lock = threading.Lock()

    def run(self, end: float) -> None:
        c = self.cfg
        _sleep_until(self.t0 + c["start_s"])
        stop = self.t0 + (c["stop_s"] if c.get("stop_s") is not None else end)
        size = c.get("size_bytes")
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, c["cc"].encode())
            s.connect((self.addr, self.port))
            s.settimeout(0.05)
            with self.lock:
                self.sock = s
            buf = b"\0" * CHUNK
            sent = 0
            while time.monotonic() < stop and (size is None or sent < size):
                want = CHUNK if size is None else min(CHUNK, size - sent)
                try:
                    sent += s.send(buf[:want])
                except socket.timeout:
                    continue
            if size is not None and sent >= size:
                while time.monotonic() < self.t0 + end:
                    info = tcp_info(s)
                    if info["bytes_acked"] >= size:
                        self.completion = time.monotonic() - self.t0 - c["start_s"]
                        break
                    time.sleep(0.001)
        except OSError as e:
            self.error = f"flow {self.index}: {e}"


def _abort(s: socket.socket) -> None:
    """Closes with a reset (SO_LINGER 0): a plain close would leave an orphan socket sending the
    unsent data after the run, holding its congestion control (a BPF struct_ops map can then not
    be freed) and its namespace until it gives up, minutes later when the testbed is gone."""
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    s.close()


def send(cfg: Dict[str, Any]) -> None:
    # The samples go to a file, not to stdout: a pipe the engine does not read during the run
    # would fill (64 KiB) and block the sampler, which would then take its late samples at the end.
    out = open(cfg["samples_path"], "w", encoding="utf-8")
    t0, end, dt = cfg["t0"], cfg["duration_s"], cfg.get("sample_interval_s")
    flows = [Flow(f, i, t0, cfg["addr"], cfg["port"] + i) for i, f in enumerate(cfg["flows"])]
    threads = [threading.Thread(target=f.run, args=(end,), daemon=True) for f in flows]
    for th in threads:
        th.start()

    readers: Dict[int, StateReader] = {}
    for i, fc in enumerate(cfg["flows"]):
        mid = fc.get("state_map_id")
        if mid is not None and mid not in readers:
            readers[mid] = StateReader(mid)

    def sample(t: float) -> None:
        for f in flows:
            with f.lock:
                s = f.sock
            row: Dict[str, Any] = {"t": t, "flow": f.index}
            if s is not None:
                try:
                    row.update(tcp_info(s))
                    if f.cfg.get("cc") == "bbr":
                        row.update(bbr_info(s))
                    reader = readers.get(f.cfg.get("state_map_id"))  # type: ignore[arg-type]
                    shown = reader.read(s.getsockname()[1]) if reader is not None else None
                    if shown is not None:
                        row["cc_state"], row["cc_value"] = shown
                except OSError:
                    pass
            out.write(json.dumps(row) + "\n")

    k = 0
    while dt:
        t = k * dt
        if t > end + 1e-9:
            break
        _sleep_until(t0 + t)
        sample(round(t, 9))
        k += 1
    _sleep_until(t0 + end)
    for f in flows:
        with f.lock:
            s = f.sock
        info = tcp_info(s) if s is not None else {}
        out.write(json.dumps({"final": f.index, "completion_s": f.completion, "error": f.error, **info}) + "\n")
        if s is not None:
            _abort(s)
    for reader in readers.values():
        reader.close()
    out.close()


def recv(cfg: Dict[str, Any]) -> None:
    n = len(cfg["flows"])
    got: List[int] = [0] * n
    last: List[Optional[float]] = [None] * n
    listeners = []
    for i in range(n):
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((cfg["addr"], cfg["port"] + i))
        ls.listen(1)
        listeners.append(ls)

    def serve(i: int) -> None:
        conn, _ = listeners[i].accept()
        buf = bytearray(1 << 18)
        while True:
            try:
                k = conn.recv_into(buf)
            except OSError:
                return
            if k == 0:
                return
            got[i] += k
            last[i] = time.monotonic() - cfg["t0"]

    for i in range(n):
        threading.Thread(target=serve, args=(i,), daemon=True).start()
    print("ready", flush=True)
    _sleep_until(cfg["t0"] + cfg["duration_s"] + 0.5)
    print(json.dumps({"received_bytes": got, "last_byte_s": last}), flush=True)


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as fh:
        config = json.load(fh)
    {"send": send, "recv": recv}[mode](config)
