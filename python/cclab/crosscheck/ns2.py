"""The ns-2.35 side of ``cclab crosscheck``: a built cclab network (``_core.Sim.network()``)
written as an ns-2 Tcl script, run with ``ns``, its counters read back.

The script is written from the network as cclab built it, so every resolved value (buffers
in packets, start times drawn from ``start_spread``, a profile's initial window) is the one
cclab ran with. Where ns-2 counts differently the translation says so beside the line:

- A DropTail ``queue-limit`` of L holds L - 1 waiting packets (queue/drop-tail.cc ``enque``
  drops when length + 1 >= L); cclab's buffer B holds B, so the limit is B + 1, or B for a
  queue with ``count_in_service = 1``. RED compares the length before the arrival with the
  limit (queue/red.cc ``enque``), so its limit is B.
- ``packetSize_`` is the payload; ns-2 adds 40 header bytes on the wire (tcp.cc
  ``headersize``), so it is cclab's packet size less 40 -- except for Vegas, whose
  ``output()`` (tcp-vegas.cc) sends ``packetSize_`` bytes with no header added.
- The initial ssthresh is ``window_`` (tcp.cc ``reset``, which the start runs); cclab's
  ``init_ssthresh`` is written into ``ssthresh_`` in the start's own event, after it. Not
  ``max_ssthresh_``: that is RFC 3742's limited slow start, which ns-2 keeps applying above it
  in congestion avoidance until the first loss (tcp.cc ``opencwnd``, ``limited_slow_start``).
- ns-2 opens a connection with a 40-byte SYN as seq 0 (``syn_``, on by default): the goodput
  counted on the ns-2 side takes it as 40 bytes, not a packet; cclab's ``ns2`` profile sends
  one too (``handshake``). A flow without it (``handshake = false``, the ``cclab`` and ``linux``
  profiles' default) gets ``syn_ false``: seq 0 is data and the initial window leaves at once
  (tcp.cc ``set_initial_window()`` opens to ``windowInit_`` without the SYN).
- Knobs without a scenario field (the RTO tick, RTT sampling, ACK counting, ...) are left at
  ns-2's defaults: which of them cclab follows is the flow's ``stack``.
"""

from __future__ import annotations

import os
import shutil
from typing import Any, Dict, List, Mapping, Optional

from . import counters, peer_cache
from .errors import CrosscheckError
from .network import check_tree, monitored as monitored_links, packet_queue

NAME = "ns2"
#: The stack profiles a fidelity matrix compares with this peer by default.
STACKS = ("ns2", "cclab")
SUFFIX = ".tcl"
#: The cc_params the translation carries over, by algorithm (the rest are refused).
CC_PARAMS = {"vegas": ("alpha", "beta", "gamma"),
             # ns-2.35's CUBIC is Linux 2.6.22's under Agent/TCP/Linux: beta and C map to its
             # module parameters; HyStart it has not.
             "cubic": ("variant", "beta", "c", "fast_convergence", "hystart", "hystart_pp"),
             # ns-2 computes a(w) and b(w) from RFC 3649's formulas (table = 0); the RFC's table
             # (table = 1, Linux's) is those formulas rounded, so either is let through.
             "highspeed": ("table",)}
#: ns-2's window_ for a flow without a receiver window.
NO_RWND = 1_000_000
#: What the Tcl script reports per flow, once at the warmup and once at the end: the agent's
#: highest cumulative ACK, retransmitted packets and timeouts, and the packets that left the
#: last link towards the receiver (-1 where other traffic shares that link).
FLOW_COUNTERS = ("ack_", "nrexmitpack_", "nrexmit_", "arrived")
#: The counters of retransmitted packets and of timeouts among them.
RETRANSMITS, TIMEOUTS = "nrexmitpack_", "nrexmit_"


def available() -> Optional[str]:
    """The ``ns`` binary, or None when ns-2 is not installed (``apt-get install ns2``)."""
    return shutil.which("ns")


def _agent(f: Mapping[str, Any], field: str) -> tuple[str, str, List[str], List[str]]:
    """The TCP agent class, the sink class, the agent's settings and its congestion-control
    module's parameters (Agent/TCP/Linux's; empty for the others) of a flow of group ``field``
    (``flows[i]``)."""
    cc, rec = f["cc"], f["recovery"]
    extra: List[str] = []
    module: List[str] = []
    if cc in ("reno", "newreno", "highspeed"):
        agent = {"reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno", "sack": "Agent/TCP/Sack1"}[rec]
        if cc == "highspeed":
            # ns-2's HighSpeed TCP (tcp.cc, windowOption_ 8) with RFC 3649's constants, as cclab's.
            extra += ["windowOption_ 8", "low_window_ 38", "high_window_ 83000", "high_p_ 0.0000001",
                      "high_decrease_ 0.1"]
    elif cc == "vegas":
        if rec != "reno":
            raise CrosscheckError(f"{field}.recovery", rec,
                                  "reno with cc = \"vegas\" (ns-2's Agent/TCP/Vegas recovers as Reno)")
        agent = "Agent/TCP/Vegas"
        # The thresholds cclab resolved for the flow's stack (ns-2's 1 / 3 / 1 under ns2, Linux's 2 / 4 / 1 else).
        p = f["cc_params"]
        extra += [f"v_alpha_ {p['alpha']!r}", f"v_beta_ {p['beta']!r}", f"v_gamma_ {p['gamma']!r}"]
    elif cc == "cubic":
        agent, module = "Agent/TCP/Linux", _cubic(f, field)
    else:
        raise CrosscheckError(f"{field}.cc", cc,
                              "reno, newreno, highspeed, vegas or cubic (the algorithms ns-2.35 has as cclab does)")
    if not f["handshake"]:
        extra.append("syn_ false")
    sink = "Agent/TCPSink/Sack1" if rec == "sack" else "Agent/TCPSink"
    if f["delayed_ack"]:
        sink += "/DelAck"
    return agent, sink, extra, module


def _cubic(f: Mapping[str, Any], field: str) -> List[str]:
    """The module parameters of ns-2.35's CUBIC (Agent/TCP/Linux, tcp/linux/src/tcp_cubic.c: Linux
    2.6.22's CUBIC 2.1, beta 819/1024, bic_scale 41, max_increment 16, no HyStart) for cclab's
    ``cubic`` as the flow resolved it, as ``set_ca_default_param`` arguments.
    Agent/TCP/Linux recovers with SACK (its own, after Linux 2.6.22's)."""
    if f["recovery"] != "sack":
        raise CrosscheckError(f"{field}.recovery", f["recovery"], "sack with cc = \"cubic\" (ns-2's Agent/TCP/Linux "
                              "recovers with SACK)")
    if f["cc_built"] != "cubic":
        raise CrosscheckError(f"{field}.cc", f["cc_built"], "cubic (ns-2.35's CUBIC is Linux 2.6.22's, not today's)")
    p = f["cc_params"]
    for name in ("hystart", "hystart_pp"):
        if p.get(name, 0):
            raise CrosscheckError(f"{field}.cc_params.{name}", p[name], "0 (ns-2.35's CUBIC has no HyStart)")
    # Linux's integer parameters: beta over 1024, and C = bic_scale * 10 / 1024 (cube_rtt_scale).
    return [f"beta {round(p['beta'] * 1024)}", f"bic_scale {round(p['c'] * 102.4)}",
            f"fast_convergence {int(p['fast_convergence'])}", f"tcp_friendliness {int(p['reno_friendly'])}"]


def _queue(link: Mapping[str, Any]) -> tuple[str, int, List[str]]:
    """ns-2's queue class, its limit and its settings for a cclab link."""
    q = link["queue"]
    if q is not None and q["kind"] in ("red", "ared") and q["params"]["bytes"]:
        return _red_bytes(link)
    q, cap, p = packet_queue(link)
    for k in ("ecn_threshold", "ecn_threshold_bytes"):
        if k in p:
            raise CrosscheckError(f"link {link['name']}: queue_params.{k}", p[k],
                                  "no step marking (not translated to ns-2 yet)")
    field = f"link {link['name']}: queue"
    if q["kind"] == "droptail":
        limit = 1_000_000_000 if cap is None else cap + 1 - int(p.get("count_in_service", 0))
        return "DropTail", limit, []
    if q["kind"] in ("red", "ared"):
        if p.get("device_queue", 0):
            # ns-2's link takes packets from RED one at a time; no device holds one aside.
            raise CrosscheckError(f"link {link['name']}: queue_params.device_queue", 1,
                                  "0 (ns-2's RED sees every waiting packet)")
        return "RED", 1_000_000_000 if cap is None else cap, ["bytes_ false", "queue_in_bytes_ false", *_red_sets(q)]
    raise CrosscheckError(field, q["kind"], "droptail, red or ared (ns-2.35 has no gARED, XCP router, CoDel, FQ-CoDel, PIE or DualPI2 as cclab's)")


def _red_sets(q: Mapping[str, Any]) -> List[str]:
    """The RED settings of ns-2 other than its units, from cclab's resolved parameters."""
    p = q["params"]
    sets = [
        f"thresh_ {p['min_th']!r}", f"maxthresh_ {p['max_th']!r}",
        f"linterm_ {1.0 / p['max_p']!r}" if p["max_p"] > 0 else "linterm_ 1e12",
        f"q_weight_ {p['q_weight']!r}", f"mean_pktsize_ {int(p['mean_pktsize'])}",
        f"gentle_ {'true' if p['gentle'] else 'false'}", f"wait_ {'true' if p['wait'] else 'false'}",
        f"setbit_ {'true' if p['ecn'] else 'false'}",
    ]
    if p["ecn"]:
        # cclab marks every early drop of an ECN-capable packet; ns-2 marks only while the
        # drop probability is below mark_p_ (0.1) and drops in the gentle region
        # (red.cc `drop_early`, `use_mark_p_` true by default).
        sets += ["use_mark_p_ false"]
    if q["kind"] == "ared":
        sets += ["adaptive_ 1", f"alpha_ {p['alpha']!r}", f"beta_ {p['beta']!r}",
                 f"interval_ {p['interval']!r}", f"top_ {p['top']!r}", f"bottom_ {p['bottom']!r}"]
    else:
        sets += ["adaptive_ 0"]
    return sets


# ns-2 multiplies its limit by mean_pktsize_ in a C int (red.cc `enque`): an unlimited cclab
# buffer becomes the largest limit that does not overflow.
_INT_MAX = 2**31 - 1


def _red_bytes(link: Mapping[str, Any]) -> tuple[str, int, List[str]]:
    """RED in byte mode (``bytes_`` and ``queue_in_bytes_`` true): only under ``ns2 = 1``, whose
    arithmetic is red.cc's (crates/cclab-sim/src/queue/red_ns2.rs, ``ByteMode``), with a buffer
    in bytes that is a whole number of ``mean_pktsize`` (ns-2's limit counts such packets)."""
    q, p, name = link["queue"], link["queue"]["params"], link["name"]
    if not p.get("ns2", 0):
        raise CrosscheckError(f"link {name}: queue_params.bytes", 1,
                              "0, or 1 with ns2 = 1 (cclab's own byte mode departs from red.cc's arithmetic)")
    if p["ecn"]:
        raise CrosscheckError(f"link {name}: queue_params.ecn", 1,
                              "0 in byte mode (ns-2 marks with use_mark_p_, which ns2 = 1 follows for drops only)")
    mean = p["mean_pktsize"]
    if mean != int(mean):
        raise CrosscheckError(f"link {name}: queue_params.mean_pktsize", mean,
                              "a whole number of bytes (ns-2's mean_pktsize_ is an integer)")
    mean = int(mean)
    if q["capacity_pkts"] is not None:
        raise CrosscheckError(f"link {name}: buffer", f"{q['capacity_pkts']}pkts",
                              f"a buffer in bytes, a multiple of mean_pktsize ({mean}), with byte-mode RED "
                              "(ns-2 counts its limit in mean_pktsize_ bytes)")
    cap = q["capacity_bytes"]
    if cap is not None and cap % mean:
        raise CrosscheckError(f"link {name}: buffer", f"{cap}B", f"a multiple of mean_pktsize ({mean} bytes)")
    limit = _INT_MAX // mean if cap is None else cap // mean
    return "RED", limit, ["bytes_ true", "queue_in_bytes_ true", *_red_sets(q)]


def seeding(seed: int) -> List[str]:
    """Tcl that makes run ``seed`` (1, 2, ...) an independent replication. ns-2.35's
    ``$defaultRNG seed k`` sets all six words of its MRG32k3a state to k (tools/rng.cc
    ``RNG::set_seed``), so seeds 1, 2, 3 start from states that are multiples of one another
    and each one's draws are k times seed 1's, mod 1 (tests/test_crosscheck.py shows it with
    ns-2's first draws). The ns-2 manual's way to replications is one seed and a new
    substream (2^76 draws apart) per replication: the package's default seed, 12345, then
    ``next-substream`` k - 1 times."""
    return ["ns-random 12345", "$defaultRNG seed 12345",
            f"for {{set r 1}} {{$r < {int(seed)}}} {{incr r}} {{ $defaultRNG next-substream }}"]


def udp_sources(udp: List[Mapping[str, Any]]) -> List[str]:
    """Tcl for cclab's UDP sources: `Agent/UDP` to `Agent/Null` driven by
    `Application/Traffic/CBR`, or by `Application/Traffic/Exponential` for an on/off source
    (cclab's on/off source is ns-2's: exponential on and off periods, the rate while on). The
    agent's `packetSize_` is the application's, so that udp.cc `sendmsg` sends each
    application packet as one packet of that size on the wire (ns-2's UDP adds no header);
    CBR's `random_` stays 0, constant spacing as cclab's."""
    out: List[str] = []
    for i, u in enumerate(udp):
        app = "Exponential" if u["on_s"] is not None else "CBR"
        sets = [f"packetSize_ {u['packet_size']}", f"rate_ {u['rate_bps']!r}"]
        if app == "Exponential":
            sets += [f"burst_time_ {u['on_s']!r}", f"idle_time_ {u['off_s']!r}"]
        out += [f"set udp({i}) [new Agent/UDP]", f"$udp({i}) set packetSize_ {u['packet_size']}",
                f"$ns attach-agent $n({u['src']}) $udp({i})", f"set unul({i}) [new Agent/Null]",
                f"$ns attach-agent $n({u['dst']}) $unul({i})", f"$ns connect $udp({i}) $unul({i})",
                f"set cbr({i}) [new Application/Traffic/{app}]", *[f"$cbr({i}) set {s}" for s in sets],
                f"$cbr({i}) attach-agent $udp({i})", f"$ns at {u['start_s']!r} \"$cbr({i}) start\""]
        if u["stop_s"] is not None:
            out.append(f"$ns at {u['stop_s']!r} \"$cbr({i}) stop\"")
    return out


def script(net: Mapping[str, Any], duration: float, warmup: float, seed: int) -> str:
    """The Tcl script of the built network ``net`` (refuses what does not map)."""
    if net["web"]:
        raise CrosscheckError("web", "(set)", "no web traffic (ns-2 has no cclab web model)")
    check_tree(net)
    out = ["set ns [new Simulator]", *seeding(seed), "set nul [open /dev/null w]"]
    out.append(f"for {{set i 0}} {{$i < {net['nodes']}}} {{incr i}} {{ set n($i) [$ns node] }}")
    watched = monitored_links(net)
    monitored = [net["links"][i] for i in watched]
    for i, l in enumerate(net["links"]):
        kind, limit, sets = _queue(l)
        a, b = l["from"], l["to"]
        out.append(f"$ns simplex-link $n({a}) $n({b}) {l['rate_bps']} {l['delay_s']!r} {kind}")
        out.append(f"$ns queue-limit $n({a}) $n({b}) {limit}")
        if sets:
            out.append(f"set q [[$ns link $n({a}) $n({b})] queue]")
            out += [f"$q set {s}" for s in sets]
        if l["loss"]:
            # ns-2 drops after the queue (SimpleLink's error model), cclab before it: the same
            # rate of losses, counted in neither queue's drops.
            out += ["set em [new ErrorModel]", "$em unit pkt", f"$em set rate_ {l['loss']!r}",
                    "$em ranvar [new RandomVariable/Uniform]", "$em drop-target [new Agent/Null]",
                    f"$ns lossmodel $em $n({a}) $n({b})"]
        if i in watched:
            out.append(f"set qm({i}) [$ns monitor-queue $n({a}) $n({b}) $nul]")
    groups = list(dict.fromkeys(f["group"] for f in net["flows"]))
    # Goodput is counted where cclab counts it, at the receiver: by a monitor on the flow's last
    # link when no other flow's data uses it (the sender's ACK count lags by up to a window).
    last_users: Dict[int, int] = {}
    for f in net["flows"]:
        last_users[f["path_data"][-1]] = last_users.get(f["path_data"][-1], 0) + 1
    cubic_module: Optional[List[str]] = None
    for i, f in enumerate(net["flows"]):
        field = f"flows[{groups.index(f['group'])}]"
        agent, sink, extra, module = _agent(f, field)
        if f["init_cwnd"] != int(f["init_cwnd"]):
            raise CrosscheckError(f"{field}.init_cwnd", f["init_cwnd"],
                                  "a whole number of packets (ns-2's windowInit_ is an integer)")
        if f.get("sacked_retx_in_pipe"):
            raise CrosscheckError(f"{field}.sacked_retx_in_pipe", "true",
                                  "false (ns-3.44's count of SACKed retransmissions, not ns-2's)")
        if f.get("resend_below_high_sack"):
            raise CrosscheckError(f"{field}.resend_below_high_sack", "true",
                                  "false (ns-3.44's NextSeg rule (1.b) after a timeout, not ns-2's)")
        # TcpAgent::output adds the 40 header bytes to packetSize_ on the wire; Vegas's own
        # output() (tcp-vegas.cc) does not, so its packetSize_ is the wire size. A window of
        # 10^6 packets stands for "no receiver window" (Vegas allocates two arrays of window_).
        header = 0 if agent == "Agent/TCP/Vegas" else 40
        sets = [
            f"packetSize_ {f['packet_size'] - header}",
            f"window_ {f['rwnd'] if f['rwnd'] is not None else NO_RWND}",
            f"windowInit_ {int(f['init_cwnd'])}",
            f"timestamps_ {'true' if f['timestamps'] else 'false'}",
            f"numdupacks_ {f['dupthresh']}",
            f"minrto_ {f['rto_min_s']!r}", f"rtxcur_init_ {f['rto_initial_s']!r}", f"maxrto_ {f['rto_max_s']!r}",
            f"overhead_ {f['overhead_s']!r}",
        ] + extra
        if f["ecn"]:
            # RFC 3168 (tcp.cc `ecn()`: one reduction per window, no retransmission); the
            # sinks echo CE until CWR (tcp-sink.cc).
            sets.append("ecn_ true")
        out.append(f"set tcp({i}) [new {agent}]")
        out += [f"$tcp({i}) set {s}" for s in sets]
        if module:
            # Module parameters are global to the algorithm in TCP-Linux: every CUBIC flow must agree.
            cubic_module = cubic_module or module
            if cubic_module != module:
                raise CrosscheckError(f"{field}.cc_params", "(differs between CUBIC flows)",
                                      "the same CUBIC parameters in every group (ns-2's are global to the module)")
            out += [f"$tcp({i}) set_ca_default_param cubic {m}" for m in module]
            out.append(f"$tcp({i}) select_ca cubic")
        out.append(f"$ns attach-agent $n({f['src']}) $tcp({i})")
        out.append(f"set sink({i}) [new {sink}]")
        if f["delayed_ack"]:
            out.append(f"$sink({i}) set interval_ {f['delack_timeout_s']!r}")
        out.append(f"$ns attach-agent $n({f['dst']}) $sink({i})")
        last = net["links"][f["path_data"][-1]]
        if last_users[f["path_data"][-1]] == 1 and last not in monitored:
            out.append(f"set fm({i}) [$ns monitor-queue $n({last['from']}) $n({last['to']}) $nul]")
        out.append(f"$ns connect $tcp({i}) $sink({i})")
        out.append(f"set ftp({i}) [new Application/FTP]; $ftp({i}) attach-agent $tcp({i})")
        # `produce n` sets curseq_ = n and the agent sends seqnos 0..n (tcp.cc send_much):
        # n + 1 packets.
        begin = f"$ftp({i}) produce {f['size_pkts'] - 1}" if f["size_pkts"] is not None else f"$ftp({i}) start"
        if f["init_ssthresh"] is not None:
            begin += f"; $tcp({i}) set ssthresh_ {int(f['init_ssthresh'])}"
        out.append(f"$ns at {f['start_s']!r} \"{begin}\"")
        if f["stop_s"] is not None:
            out.append(f"$ns at {f['stop_s']!r} \"$ftp({i}) stop\"")
    out += udp_sources(net["udp"])
    n_flows = len(net["flows"])
    qs = " ".join(map(str, watched))
    # bdepartures_ is a 32-bit int in ns-2 (queue-monitor.h) and wraps after 2^31 bytes (17 s at
    # 1 Gbit/s): it is read every 100 ms and its increments, taken modulo 2^32, are summed.
    out.append(
        f"foreach i {{{qs}}} {{ set bsum($i) 0.0; set blast($i) 0 }}\n"
        "proc tick {} { global ns qm bsum blast\n"
        f"  foreach i {{{qs}}} {{ set b [$qm($i) set bdepartures_]; set d [expr {{$b - $blast($i)}}]\n"
        "    if {$d < 0} { set d [expr {$d + 4294967296.0}] }\n"
        "    set bsum($i) [expr {$bsum($i) + $d}]; set blast($i) $b }\n"
        "  $ns at [expr {[$ns now] + 0.1}] \"tick\" }\n"
        "$ns at 0.0 \"tick\"")
    out.append(
        "proc report {tag} { global ns tcp qm fm bsum; tick; set s \"$tag [$ns now]\"\n"
        f"  for {{set i 0}} {{$i < {n_flows}}} {{incr i}} {{ append s \" F\" "
        + "".join(f" \" [$tcp($i) set {c}]\"" for c in FLOW_COUNTERS[:3])
        + " \" [expr {[info exists fm($i)] ? [$fm($i) set pdepartures_] : -1}]\" }\n"
        f"  foreach i {{{qs}}} {{ append s \" Q $i [$qm($i) set pdrops_] $bsum($i) "
        "[[$qm($i) get-pkts-integrator] set sum_]\" }\n"
        "  puts $s; flush stdout }")
    if warmup > 0:
        out.append(f"$ns at {warmup!r} \"report W\"")
    out.append(f"$ns at {duration!r} \"report E; exit 0\"")
    out.append("$ns run")
    return "\n".join(out) + "\n"


def parse(text: str) -> Dict[str, Any]:
    """The counters the script printed: ``{"W"|"E": {"t", "flows": [{counter: v}], "queues": {link: (pdrops,
    bdepartures, pkts-integral)}}}``."""
    return counters.parse(text, FLOW_COUNTERS, "ns output", "the script")


def delivered_bytes(start: Optional[Mapping[str, float]], end: Mapping[str, float],
                    f: Mapping[str, Any], warmup: float) -> float:
    """Bytes the flow delivered in [warmup, end], counted in cclab's packet size."""
    if end["arrived"] >= 0:  # counted at the receiver, as cclab counts
        got_pkts = end["arrived"] - (start["arrived"] if start else 0.0)
    else:  # the sender's cumulative ACK (starts at -1)
        got_pkts = end["ack_"] - (start["ack_"] if start else -1.0)
    # With syn_ (the flow's handshake) ns-2's seq 0 is a 40-byte SYN: not a full packet of data.
    syn = 1.0 if f["handshake"] and f["start_s"] >= warmup else 0.0
    return got_pkts * f["packet_size"] - syn * (f["packet_size"] - 40)


def run(tcl: str, timeout: float) -> Dict[str, Any]:
    """Runs ``tcl`` with ns-2 and returns the parsed counters."""
    ns = available()
    if ns is None:
        raise CrosscheckError("--with", "ns2", "an installed ns-2 (apt-get install ns2)")
    p = peer_cache.run("ns2", [os.path.realpath(ns), "/dev/stdin"], tcl, timeout)
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise CrosscheckError("ns exit status", p.returncode, f"0 (ns said: {last[:200]})")
    return parse(p.stdout)
