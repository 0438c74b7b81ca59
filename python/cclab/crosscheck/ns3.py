"""The ns-3 side of ``cclab crosscheck``: a built cclab network (``_core.Sim.network()``)
written as a plain-text description, run by one C++ program compiled against the ns-3 of
the ``ns3`` wheel (``pip install ns3==3.44.post0``: headers and libraries, no bindings), its
counters read back.

The program (ns3_crosscheck.cc, beside this file) is compiled once per machine, on first
use, into ``~/.cache/cclab/ns3/<hash of source, ns-3 version and flags>/``; a scenario is
data, not code. What ns-3 counts or builds differently is said here and beside the line:

- **Queues.** Without flow control ns-3 installs no queue disc, and a point-to-point
  device's DropTailQueue holds only packets waiting (``TransmitStart`` takes the one it
  sends out of it): cclab's DropTail buffer B is that queue with MaxSize B (B - 1 with
  ``count_in_service = 1``). RED, CoDel, FQ-CoDel and PIE are ns-3's queue discs with
  cclab's resolved parameters, MaxSize B - 1 and one packet staged in the device
  (ns3_queues.py says how each maps and what is left at ns-3's): RED averages a length
  one packet shorter than cclab's while the link is busy.
- **Bytes.** ns-3's SegmentSize is the payload; a data packet adds 20 (TCP) + 20 (IP) +
  2 (PPP) bytes, + 12 with timestamps (10 of option, 2 of padding). The payload is cclab's
  packet size less those, so the same number of bytes crosses each link per packet and
  goodput (payload bytes delivered / payload x packet size) counts packets as cclab does.
  Residual: ns-3's ACKs are 42 bytes (+12, + SACK blocks), cclab's ``ack_size``.
- **Recovery.** cclab's ``recovery = "sack"`` is ns-3's SACK (RFC 6675) and ``"newreno"``
  ns-3 without SACK (it counts duplicate ACKs as SACKed segments, TcpTxBuffer
  ``AddRenoSack``, and leaves recovery at the recovery point as RFC 6582). ns-3 has no
  Reno recovery (leaving at the first partial ACK): ``"reno"`` is refused. The window in
  recovery follows the profile: ``TcpPrrRecovery`` (RFC 6937) where cclab's flow runs PRR
  (the ``linux`` profile with SACK), else ``TcpClassicRecovery`` (ssthresh plus the
  duplicate ACKs, RFC 5681/6582). cclab's linux profile runs PRR only with SACK; Linux and
  ns-3 also run it without, so ``linux`` without SACK compares two different recoveries.
- **Start.** ns-3 opens with a three-way handshake; cclab's ``cclab`` and ``linux``
  profiles send data at the start time: ns-3's data starts one round trip later, and its
  first RTT sample is the SYN's. The SYN's timeout is ``rto_initial`` (ConnTimeout).
- **Counters.** Retransmitted packets are the socket's ``Retransmission`` trace; ns-3 has
  no timeout counter, so a timeout is the RTO doubling that ``ReTxTimeout`` does (see the
  program). Drops at a link are its queue's and its loss model's.
- **Loss.** A link's random loss is a RateErrorModel on the receiving device: the packet is
  lost after it crossed the queue and the link (cclab drops it on arrival at the queue, so
  ns-3's link carries the lost packets too).
- **UDP.** A UDP source is an OnOffApplication (ns3_udp.h) whose payload and rate keep cclab's
  packet size and rate on the wire (``UDP_HEADERS``); constant, or exponential on and off periods.
- **DCTCP** (``cc = "dctcp"``) is ns-3's TcpDctcp (DctcpShiftG = g, UseEct0, ECN on both
  ends; its receiver runs ns-3's own CE state machine). ns-3.44 answers a loss with the
  alpha reduction too (``TcpDctcp::GetSsThresh``), cclab by default with Reno's halving
  (RFC 8257 section 3.5, Linux): only ``loss_reduction = 1``, ns-3's, is translated.
  ``alpha_init`` other than 1 is refused: ns-3 refuses DctcpAlphaOnInit once the socket has
  its algorithm, which is before the program can set it. ns-3's ``GetSsThresh`` has no floor
  of 2 segments (Linux and cclab have one): two echoes at the start take a window of 2 to
  half a segment, and that flow waits for its retransmission timeout. ns-3 enters CWR on an
  echo and does not grow the window until the ACK passes the data sent before it (with PRR
  under ``linux`` it also brings the window down over that round trip; with classic
  recovery at once, as cclab); cclab's DCTCP holds it so too (``cwr_hold = 1``, the
  default); ``cwr_hold = 0`` is translated as it stands (ns-3 holds either way). ns-3's
  DCTCP sends its ACKs and SYN ECT; cclab's ACKs are Not-ECT.
- **Step marking** (``queue_params.ecn_threshold = K`` on a DropTail queue) is a
  RedQueueDisc as ns-3's examples/tcp/dctcp-example.cc sets one up: MinTh = MaxTh, QW = 1,
  UseEcn, UseHardDrop false, Gentle false, so an arrival is marked when the disc holds at
  least MinTh. The disc holds one packet less than cclab's queue while the link is busy
  (one is staged in the device, see Queues), so MinTh = MaxTh = K - 1. ns-3's RED marks
  only when the disc holds more than one packet (K of at least 3) and drops what it cannot
  mark where cclab's marker passes Not-ECT packets unmarked: every flow through the link
  must run ECN. Byte thresholds and thresholds on other disciplines are refused.
- **Not mapped, left at ns-3's:** the RTO's upper bound (60 s in ``ReTxTimeout``), clock
  granularity 1 ms (cclab's too). Limited transmit follows the profile (cclab: off).
- **Not in ns-3:** the ``linux`` profile's quick-ACK mode (its first ``quickacks`` segments
  ACKed one by one; ns-3 delays from the first) and its receive-buffer autotuning
  (``rcv_autotune``: a segment that grows the receiver's window is ACKed at once), its RTO
  estimator (Linux puts the minimum RTO on the variance term, ns-3's ``MinRto`` bounds the
  whole timeout, RFC 6298) and its RACK-TLP loss detection (``loss_detection = "rack-tlp"``;
  ns-3.44's SACK sender marks losses by RFC 6675's ``IsLost`` and probes no tail): the flow is
  translated with RFC 6675's.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import counters, ns3_queues, peer_cache
from .errors import CrosscheckError
from .network import check_tree, monitored as monitored_links

NAME = "ns3"
#: The bytes ns-3 adds to a UDP payload on a point-to-point link: UDP 8, IP 20, PPP 2.
UDP_HEADERS = 30
#: The stack profiles a fidelity matrix compares with this peer by default.
STACKS = ("linux", "cclab")
SUFFIX = ".ns3.txt"
#: The cc_params the translation carries over, by algorithm (the rest are refused).
CC_PARAMS = {"vegas": ("alpha", "beta", "gamma"),
             # hystart for either; the rest are Linux's CUBIC's (cc/cubic_linux.rs), built for
             # `cubic` under the linux stack.
             "cubic": ("hystart", "beta", "bic_scale", "fast_convergence", "tcp_friendliness"),
             # Linux's BIC, built for `bic` under the linux stack (cc/bic_linux.rs).
             "bic": ("max_increment", "low_window", "beta", "smooth_part", "fast_convergence"),
             # TcpBbr's attributes (_bbr); tso_segs 1 is its fixed send quantum of one segment.
             # (ns-3 has no policer detection: lt_bw 0 is its behaviour, 1 a documented departure).
             "bbr": ("bw_rtts", "min_rtt_win_sec", "probe_rtt_mode_ms", "tso_segs", "lt_bw"),
             "dctcp": ("g", "alpha_init", "loss_reduction", "cwr_hold")}
#: The flow counters the program prints, in order.
FLOW_COUNTERS = ("rx_bytes", "retransmitted", "timeouts")
RETRANSMITS, TIMEOUTS = "retransmitted", "timeouts"
SOURCE = Path(__file__).with_name("ns3_crosscheck.cc")
#: Every header it includes (beside it, by quoted includes); all part of the cache key.
HEADER_SOURCES = sorted(Path(__file__).parent.glob("ns3_*.h"))
#: ns-3 congestion controls by cclab name, with the attributes that make them cclab's
#: defaults (crates/cclab-sim/src/cc/*.rs tables).
CC = {
    "reno": ("ns3::TcpNewReno", {}),
    "newreno": ("ns3::TcpNewReno", {}),
    "highspeed": ("ns3::TcpHighSpeed", {}),  # RFC 3649's table, as cclab's table = 1
    "vegas": ("ns3::TcpVegas", {}),
    # cclab's variant 0 (RFC 9438): C 0.4, beta 0.7, fast convergence, Reno-friendly region;
    # HyStart as the flow's resolved `hystart` says (ns-3 turns it on by default; see HYSTART).
    "cubic": ("ns3::TcpCubic", {"HyStart": "false", "C": "0.4", "Beta": "0.7",
                                 "FastConvergence": "true", "TcpFriendliness": "true"}),
    # cclab a = 0.01 per acknowledged packet: one packet per 100 acknowledged (AIFactor);
    # b = 0.125. ns-3 is Reno-like below AIFactor packets, cclab below lwnd = 16.
    "scalable": ("ns3::TcpScalable", {"AIFactor": "100", "MDFactor": "0.125"}),
    # cclab: the paper's midpoint (coefficient 2), S_max 32, beta 0.8, low_window 14.
    "bic": ("ns3::TcpBic", {"BinarySearchCoefficient": "2", "MaxIncr": "32", "Beta": "0.8",
                             "LowWnd": "14", "FastConvergence": "true"}),
    # BBR v1 (cc/bbr/): ns-3's TcpBbr at its defaults, which are tcp_bbr.c's constants but for
    # HighGain 2.89 (Linux 739/256 = 2.8867) and its own departures (docs/algorithms/bbr.md,
    # "ns-3"). TcpBbr turns pacing on itself (TcpBbr::InitPacingRate sets the socket state's
    # m_pacing), so no TcpSocketState attribute is needed; its random first gain phase comes
    # from its own stream (attribute Stream), not from cclab's seed.
    "bbr": ("ns3::TcpBbr", {}),
    # RFC 8257 over Linux's Reno (TcpLinuxReno); g per flow (_flow), alpha starts at 1.
    "dctcp": ("ns3::TcpDctcp", {"UseEct0": "true"}),
}
#: ns-3's TcpCubic HyStart attributes at Linux's values (net/ipv4/tcp_cubic.c), for a flow with
#: hystart = 1. ns-3.44 samples for HyStart after 10 ms of an epoch (CubicDelta), Linux after 1 s
#: (HZ). HyStartDelayMin/Max are set per flow (_hystart): ns-3 clamps delay_min itself into them
#: (tcp-cubic.cc:410, HystartDelayThresh) where Linux clamps delay_min / 8 into 4..16 ms.
HYSTART = {"HyStart": "true", "HyStartDetect": "BOTH", "HyStartLowWindow": "16", "HyStartMinSamples": "8",
           "HyStartAckDelta": "0.002s", "CubicDelta": "1.0s"}
#: Linux's bounds of the delay test's margin (HYSTART_DELAY_MIN, HYSTART_DELAY_MAX), seconds.
HYSTART_MARGIN = (0.004, 0.016)
RECOVERY = "ns3::TcpClassicRecovery"
PRR_RECOVERY = "ns3::TcpPrrRecovery"
#: Bytes ns-3 adds to a segment's payload on a point-to-point link: TCP, IP, PPP headers.
HEADERS = 20 + 20 + 2
TIMESTAMP_OPTION = 12
#: A queue "without limit": the largest MaxSize ns-3's QueueSize takes in packets.
UNLIMITED = ns3_queues.UNLIMITED
#: Socket buffers when the path has an unlimited queue, and their upper bound (bytes).
BIG_BUFFER = 2**30


def _prefix() -> Optional[Path]:
    """The installed ns3 package's folder (with include/ and lib64/), or None."""
    try:
        spec = importlib.util.find_spec("ns3")
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    for loc in list(spec.submodule_search_locations or []) + ([str(Path(spec.origin).parent)] if spec.origin else []):
        p = Path(loc)
        if (p / "include" / "ns3").is_dir() and (p / "lib64").is_dir():
            return p
    return None


def _compiler() -> Optional[str]:
    return shutil.which(os.environ.get("CXX", "g++"))


def available() -> Optional[str]:
    """The ns-3 folder when both the ``ns3`` wheel and a C++ compiler are there, else None."""
    p, cxx = _prefix(), _compiler()
    return str(p) if p is not None and cxx is not None else None


def _version() -> str:
    v = importlib.metadata.version("ns3")
    major_minor = ".".join(v.split(".")[:2])
    return major_minor


def _command(prefix: Path, cxx: str, out: Path, source: Path = SOURCE) -> List[str]:
    """The compile command (compile definitions as the wheel's CMake targets declare them)."""
    ver = _version()
    lib = prefix / "lib64"
    defs = ["-D__LINUX__", "-DNS3_BUILD_PROFILE_RELEASE", "-DNS3_LOG_ENABLE", "-DNS3_ASSERT_ENABLE",
            "-DHAVE_SQLITE3", "-DHAVE_LIBXML2", "-DHAVE_GSL"]
    libs = [f"-lns{ver}-{m}" for m in ("applications", "traffic-control", "internet", "point-to-point",
                                         "bridge", "network", "core")]
    return [cxx, "-std=c++20", "-O2", "-pipe", *defs, f"-I{prefix / 'include'}", str(source), "-o", str(out),
            f"-L{lib}", f"-Wl,-rpath,{lib}", f"-Wl,-rpath-link,{lib}", *libs, "-lpthread"]


def binary(source: Path = SOURCE, name: str = "ns3-crosscheck", field: str = "--with") -> Path:
    """The compiled program (the cross-check's, or another ``source`` against the same ns-3),
    compiled now if this source and ns-3 version have none yet; cached by their digest."""
    prefix, cxx = _prefix(), _compiler()
    if prefix is None or cxx is None:
        raise CrosscheckError(field, NAME, "an installed ns-3 (pip install ns3==3.44.post0) and g++")
    probe = _command(prefix, cxx, Path("OUT"), source)
    headers = HEADER_SOURCES if source == SOURCE else []
    key = hashlib.sha256(source.read_bytes() + b"".join(h.read_bytes() for h in headers)
                         + "\0".join(probe).encode()
                         + _version().encode()).hexdigest()[:16]
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cclab" / "ns3" / key
    exe = base / name
    if exe.exists():
        return exe
    base.mkdir(parents=True, exist_ok=True)
    # Compiled under a temporary name and renamed: two runs compiling at once both succeed.
    fd, tmp = tempfile.mkstemp(dir=base, prefix=".build-")
    os.close(fd)
    p = subprocess.run(_command(prefix, cxx, Path(tmp), source), capture_output=True, text=True)
    if p.returncode != 0:
        Path(tmp).unlink(missing_ok=True)  # the compiler may have removed it
        errors = [x for x in p.stderr.splitlines() if "error" in x] or p.stderr.strip().splitlines() or ["(no message)"]
        raise CrosscheckError("ns-3 program", "did not compile", f"a compiler that builds it ({errors[0][:300]})")
    os.replace(tmp, exe)
    return exe


def payload(f: Mapping[str, Any]) -> int:
    """ns-3's SegmentSize for a flow: cclab's packet size less ns-3's headers."""
    return int(f["packet_size"]) - HEADERS - (TIMESTAMP_OPTION if f["timestamps"] else 0)


def _fmt(v: float) -> str:
    return repr(float(v))


def _check_links(net: Mapping[str, Any]) -> None:
    """ns-3's point-to-point channel has one delay for both directions."""
    by_pair = {(l["from"], l["to"]): l for l in net["links"]}
    for l in net["links"]:
        back = by_pair.get((l["to"], l["from"]))
        if back is None:
            raise CrosscheckError(f"link {l['name']}", "one direction only", "links in both directions")
        if back["delay_s"] != l["delay_s"]:
            raise CrosscheckError(f"link {l['name']}: delay", l["delay_s"],
                                  f"the delay of its reverse direction {back['name']} ({back['delay_s']})")


def _path_rtt(net: Mapping[str, Any], f: Mapping[str, Any]) -> float:
    """The flow's round-trip propagation delay, seconds (its data and ACK paths' link delays)."""
    links = net["links"]
    return sum(links[i]["delay_s"] for i in f["path_data"]) + sum(links[i]["delay_s"] for i in f["path_ack"])


def _bic_linux(p: Mapping[str, float]) -> Dict[str, str]:
    """ns-3 TcpBic attributes for Linux's BIC (cc/bic_linux.rs) with parameters ``p``.

    ns-3's TcpBic is Linux's table (tcp-bic.cc ``Update``, the divisor 4 its default), but is
    Reno below ``LowWnd`` where Linux is at or below ``low_window`` (hence + 1), and reads
    ``Beta`` as a fraction where Linux counts 1024ths. Its own departures stay: fast
    convergence takes ``W_max`` to ``Beta`` of the window instead of (1 + beta)/2 of it
    (``GetSsThresh``), ``cnt`` is not divided by the packets per ACK, and the window grows
    after more than ``cnt`` segments where Linux waits for ``cnt``."""
    return {"BinarySearchCoefficient": "4", "MaxIncr": str(int(p["max_increment"])),
            "Beta": _fmt(p["beta"] / 1024), "LowWnd": str(int(p["low_window"]) + 1),
            "SmoothPart": str(int(p["smooth_part"])),
            "FastConvergence": "true" if p["fast_convergence"] else "false"}


def _cubic_linux(p: Mapping[str, float]) -> Dict[str, str]:
    """ns-3 TcpCubic attributes for Linux's CUBIC (cc/cubic_linux.rs) with parameters ``p``.

    ns-3's TcpCubic is Linux's (tcp-cubic.cc ``Update``: the curve at t + delay_min, ``cnt``
    at least 2 and at most 20 before a loss, the Reno estimate); it takes ``C`` and ``Beta``
    as fractions where Linux has ``bic_scale`` (C = 10 bic_scale / 1024 per s^3) and
    1024ths."""
    return {"C": _fmt(p["bic_scale"] * 10 / 1024), "Beta": _fmt(p["beta"] / 1024),
            "FastConvergence": "true" if p["fast_convergence"] else "false",
            "TcpFriendliness": "true" if p["tcp_friendliness"] else "false"}


def _hystart(net: Mapping[str, Any], f: Mapping[str, Any]) -> Dict[str, str]:
    """ns-3 TcpCubic attributes for the flow's resolved ``hystart`` (0 or 1).

    With HyStart on, the delay test's margin is Linux's for the path: ns-3's threshold is
    delay_min + clamp(delay_min, HyStartDelayMin, HyStartDelayMax) (tcp-cubic.cc:410), Linux's
    delay_min + clamp(delay_min / 8, 4 ms, 16 ms); both bounds set to Linux's margin for a
    delay_min of the path's propagation RTT make them agree while delay_min is that RTT."""
    if not f["cc_params"].get("hystart", 0):
        return {"HyStart": "false"}
    lo, hi = HYSTART_MARGIN
    # In whole microseconds, Linux's unit (and no float noise from summing the delays).
    margin = _fmt(round(min(hi, max(lo, _path_rtt(net, f) / 8)) * 1e6) / 1e6)
    return {**HYSTART, "HyStartDelayMin": f"{margin}s", "HyStartDelayMax": f"{margin}s"}


def _buffers(net: Mapping[str, Any], f: Mapping[str, Any]) -> int:
    """Socket buffers, bytes: four times what the flow's paths can hold (their bandwidth-delay
    product and every limited queue on the data path), so that they never limit the window;
    the largest when no queue on the path is limited."""
    links = net["links"]
    data = [links[i] for i in f["path_data"]]
    rtt = _path_rtt(net, f)
    caps = [l["queue"]["capacity_pkts"] if l["queue"] else None for l in data]
    if all(c is None for c in caps):
        return BIG_BUFFER
    held = min(l["rate_bps"] for l in data) * rtt / 8.0 + sum(c * f["packet_size"] for c in caps if c is not None)
    return int(min(BIG_BUFFER, max(1 << 20, 4 * held)))


def _bbr(p: Mapping[str, float], field: str) -> Dict[str, str]:
    """TcpBbr's attributes for cclab's BBR parameters (cc/bbr/mod.rs). ns-3 has no policer
    detection (lt_bw), a fixed ACK-aggregation gain of 1 and pacing margin of 1 %, and a send
    quantum of one segment where Linux's TSO goal grows with the pacing rate (tso_segs 0); those
    run as ns-3 has them (docs/algorithms/bbr.md, "ns-3"), other values are refused."""
    if p["extra_acked_gain"] != 256 or p["pacing_margin_percent"] != 1:
        raise CrosscheckError(f"{field}.cc_params", dict(p), "extra_acked_gain 256 and pacing_margin_percent 1 (ns-3's)")
    if p["tso_segs"] not in (0, 1):
        raise CrosscheckError(f"{field}.cc_params.tso_segs", p["tso_segs"], "0 or 1 (ns-3's send quantum is one segment)")
    return {"BwWindowLength": str(int(p["bw_rtts"])), "RttWindowLength": f"{_fmt(p['min_rtt_win_sec'])}s",
            "ProbeRttDuration": f"{_fmt(p['probe_rtt_mode_ms'] / 1e3)}s"}


def _flow(net: Mapping[str, Any], f: Mapping[str, Any], field: str) -> List[str]:
    """The attribute tokens of a flow record (refuses what does not map)."""
    if f["cc"] not in CC:
        raise CrosscheckError(f"{field}.cc", f["cc"], ", ".join(CC) + " (the algorithms ns-3.44 has as cclab does)")
    if f["recovery"] not in ("newreno", "sack"):
        raise CrosscheckError(f"{field}.recovery", f["recovery"],
                              "newreno or sack (ns-3 stays in recovery until the recovery point, as NewReno)")
    if f["stop_s"] is not None:
        raise CrosscheckError(f"{field}.stop", f["stop_s"], "no stop time (not translated yet)")
    if f["overhead_s"]:
        raise CrosscheckError(f"{field}.overhead", f["overhead_s"], "0 (ns-3 has no send jitter)")
    if f["init_cwnd"] != int(f["init_cwnd"]):
        raise CrosscheckError(f"{field}.init_cwnd", f["init_cwnd"],
                              "a whole number of packets (ns-3's InitialCwnd is in segments)")
    seg = payload(f)
    if seg < 1:
        raise CrosscheckError(f"{field}.packet_size", f["packet_size"],
                              f"more than {HEADERS + (TIMESTAMP_OPTION if f['timestamps'] else 0)} bytes (ns-3's headers)")
    cc_type, cc_attrs = CC[f["cc"]]
    cc_attrs = dict(cc_attrs)
    if f["cc"] == "vegas":
        for name in ("alpha", "beta", "gamma"):
            v = f["cc_params"][name]
            if v != int(v):
                raise CrosscheckError(f"{field}.cc_params.{name}", v, "a whole number of packets (ns-3's TcpVegas)")
            cc_attrs[name.capitalize()] = str(int(v))
    if f["cc"] == "cubic":
        if f["cc_params"].get("hystart_pp", 0):
            raise CrosscheckError(f"{field}.cc_params.hystart_pp", 1, "0 (ns-3.44's TcpCubic has no HyStart++)")
        cc_attrs.update(_hystart(net, f))
    if f["cc"] == "dctcp":
        if f["cc_params"]["alpha_init"] != 1:
            raise CrosscheckError(f"{field}.cc_params.alpha_init", f["cc_params"]["alpha_init"],
                                  "1 (ns-3 takes DctcpAlphaOnInit only before the socket has its algorithm)")
        if f["cc_params"]["loss_reduction"] != 1:
            raise CrosscheckError(f"{field}.cc_params.loss_reduction", f["cc_params"]["loss_reduction"],
                                  "1 (ns-3.44's TcpDctcp answers a loss with the alpha reduction too)")
        cc_attrs["DctcpShiftG"] = _fmt(f["cc_params"]["g"])
    if f["cc_built"] == "bic-linux":
        cc_attrs = _bic_linux(f["cc_params"])
    if f["cc_built"] == "cubic-linux":
        cc_attrs.update(_cubic_linux(f["cc_params"]))
    if f["cc"] == "bbr":
        cc_attrs.update(_bbr(f["cc_params"], field))
    buf = _buffers(net, f)
    rcv = buf
    if f["rwnd"] is not None:
        # The advertised window is the receive buffer; one byte short of another segment so
        # that window scaling's rounding down never costs a whole one.
        rcv = f["rwnd"] * seg + seg - 1
    tcp = {
        "SegmentSize": seg, "InitialCwnd": int(f["init_cwnd"]),
        "Sack": f["recovery"] == "sack", "Timestamp": f["timestamps"], "WindowScaling": True,
        "ReTxThreshold": f["dupthresh"], "DelAckCount": 2 if f["delayed_ack"] else 1,
        "DelAckTimeout": f"{_fmt(f['delack_timeout_s'])}s", "MinRto": f"{_fmt(f['rto_min_s'])}s",
        "ConnTimeout": f"{_fmt(f['rto_initial_s'])}s", "DataRetries": 1_000_000, "ConnCount": 1_000_000,
        # Limited transmit (RFC 3042) is in the ns2 and linux profiles, not in cclab's own.
        "LimitedTransmit": f["stack"] != "cclab",
        "SndBufSize": buf, "RcvBufSize": rcv, "TcpNoDelay": True,
    }
    if f["ecn"]:
        # RFC 3168 on both ends (ns-3's ClassicEcn): ECT on data, CE echoed until CWR.
        tcp["UseEcn"] = "On"
    if f["init_ssthresh"] is not None:
        tcp["InitialSlowStartThreshold"] = min(UNLIMITED, int(f["init_ssthresh"] * seg))
    size = 0 if f["size_pkts"] is None else int(f["size_pkts"]) * seg
    toks = [f"src={f['src']}", f"dst={f['dst']}", f"cc={cc_type}", f"recovery={PRR_RECOVERY if f['prr'] else RECOVERY}",
            f"start={_fmt(f['start_s'])}", f"bytes={size}", f"payload={seg}"]
    toks += [f"tcp.{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in tcp.items()]
    toks += [f"cc.{k}={v}" for k, v in cc_attrs.items()]
    return toks


def script(net: Mapping[str, Any], duration: float, warmup: float, seed: int) -> str:
    """The description of the built network ``net`` for the program (refuses what does not map)."""
    if net["web"]:
        raise CrosscheckError("web", "(set)", "no web traffic (ns-3 has no cclab web model)")
    check_tree(net)
    _check_links(net)
    watched = set(monitored_links(net))
    mtu = max([1500] + [int(f["packet_size"]) for f in net["flows"]])
    out = ["ns3-crosscheck 1",
           f"run seed={seed} duration={_fmt(duration)} warmup={_fmt(warmup)} nodes={net['nodes']} mtu={mtu}"]
    groups = list(dict.fromkeys(f["group"] for f in net["flows"]))
    for i, l in enumerate(net["links"]):
        kind, limit, attrs = ns3_queues.queue(l, mtu, seed)
        if l["queue"] and "ecn_threshold" in l["queue"]["params"]:
            for f in net["flows"]:
                if i in f["path_data"] and not f["ecn"]:
                    raise CrosscheckError(f"flows[{groups.index(f['group'])}].ecn", "false",
                                          f"true: ns-3's step marker on link {l['name']} drops the packets it "
                                          "cannot mark, cclab's passes them")
        out.append(f"link id={i} from={l['from']} to={l['to']} rate={int(l['rate_bps'])} delay={_fmt(l['delay_s'])} "
                   f"loss={_fmt(l['loss'] or 0.0)} queue={kind} limit={limit} monitor={int(i in watched)}"
                   + "".join(f" qd.{a}" for a in attrs))
    for i, f in enumerate(net["flows"]):
        out.append(f"flow id={i} " + " ".join(_flow(net, f, f"flows[{groups.index(f['group'])}]")))
    out += [f"udp id={i} " + " ".join(_udp(u, f"udp[{i}]")) for i, u in enumerate(net["udp"])]
    return "\n".join(out) + "\n"


def _udp(u: Mapping[str, Any], field: str) -> List[str]:
    """The tokens of a UDP source: ns-3's UDP adds UDP_HEADERS bytes to the payload, so the payload
    is cclab's packet size less those, and the application's rate is the payload's share of
    cclab's rate on the wire (OnOffApplication spaces packets by payload bits / DataRate)."""
    size = int(u["packet_size"])
    pay = size - UDP_HEADERS
    if pay < 1:
        raise CrosscheckError(f"{field}.packet_size", size,
                              f"more than {UDP_HEADERS} bytes (ns-3's UDP, IP and PPP headers)")
    toks = [f"src={u['src']}", f"dst={u['dst']}", f"payload={pay}", f"rate={round(u['rate_bps'] * pay / size)}",
            f"start={_fmt(u['start_s'])}"]
    if u["stop_s"] is not None:
        toks.append(f"stop={_fmt(u['stop_s'])}")
    if u["on_s"] is not None:
        toks += [f"on={_fmt(u['on_s'])}", f"off={_fmt(u['off_s'])}"]
    return toks


def parse(text: str) -> Dict[str, Any]:
    """The counters the program printed: ``{"W"|"E": {"t", "flows": [{counter: v}], "queues": {link: (drops,
    bytes sent, packets waiting integrated over time)}}}``."""
    return counters.parse(text, FLOW_COUNTERS, "ns-3 output", "the program")


def delivered_bytes(start: Optional[Mapping[str, float]], end: Mapping[str, float],
                    f: Mapping[str, Any], warmup: float) -> float:
    """Bytes of cclab-sized packets the flow delivered in [warmup, end]: the payload bytes the
    receiving application read, in packets of ``payload(f)``, times cclab's packet size."""
    got = end["rx_bytes"] - (start["rx_bytes"] if start else 0.0)
    return got / payload(f) * f["packet_size"]


def run(text: str, timeout: float) -> Dict[str, Any]:
    """Runs the description ``text`` with the compiled program and returns the parsed counters."""
    exe = binary()
    p = peer_cache.run(NAME, [str(exe)], text, timeout)
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise CrosscheckError("ns-3 exit status", p.returncode, f"0 (ns-3 said: {last[:200]})")
    return parse(p.stdout)
