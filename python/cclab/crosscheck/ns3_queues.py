"""A cclab link's queue as ns-3.44 builds it (ns3.py): the device's DropTailQueue, or a queue
disc by its TypeId with cclab's resolved parameters as attributes (``qd.<Attr>=V`` in the
description; ns3_crosscheck.cc sets them by name, so a new queue needs only a function here).

A queue disc needs the backlog in it, so the device keeps one packet staged behind the one on
the wire (flow control, as ns-3's tcp-validation.cc does): the disc's MaxSize is cclab's
buffer less one, and the disc decides one packet earlier than cclab's queue, whose head is
that staged packet (one transmission time: 0.12 ms for 1500 bytes at 100 Mbit/s). Items in an
ns-3 queue disc are IP packets, 2 bytes (PPP) shorter than cclab's packets on the wire.

- **RED / ARED**: RedQueueDisc with cclab's resolved MinTh, MaxTh, QW, LInterm = 1/max_p,
  MeanPktSize, Gentle, Wait; ``ARED`` stays false because ns-3 then overwrites MinTh, MaxTh and
  QW with its own (red-queue-disc.cc ``InitializeParams``); ared is ``AdaptMaxP`` with cclab's
  alpha, beta, interval, top and bottom. With ECN, ``UseEcn`` and ``UseHardDrop`` (cclab marks
  only early drops).
- **CoDel**: CoDelQueueDisc with Target, Interval, UseEcn and CeThreshold; ``MinBytes`` is
  ``mtu`` - 1: cclab exempts a backlog of at most ``mtu`` bytes of its packets, ns-3 one below
  ``MinBytes`` bytes of its items, 2 bytes shorter each, so a single full packet is exempt in
  both and two are not. ns-3 computes the control law with Linux's Newton step always (cclab
  with ``newton = 1``; cclab's default is the exact square root), marks at CeThreshold only with
  UseEcn (cclab's ``ce_threshold`` without ``ecn`` is refused), and on a mark in the dropping
  state schedules the next drop from now where cclab and Linux go on from ``drop_next``.
- **FQ-CoDel**: FqCoDelQueueDisc with Target, Interval, UseEcn, CeThreshold, Flows, DropBatchSize
  and MaxSize = ``limit`` - 1; the hash is ns-3's (murmur3 of the 5-tuple, ``Perturbation`` the
  run's seed), so flows that share a bucket are not the same ones as in cclab. Refused: ``exact``
  (ns-3 always hashes), a ``quantum`` other than the run's MTU (ns-3.44 has no Quantum
  attribute; it takes the device's MTU), a ``memory_limit`` the packets could reach (ns-3 has
  none). Each flow's CoDel in ns-3 exempts its own backlog below 1500 bytes (CoDelQueueDisc
  ``MinBytes``, which FqCoDel does not set): cclab's ``mtu_per_flow = 1`` with ``mtu`` 1500 to
  2999 (one full packet exempt, two not); cclab's default, as Linux, reads the whole backlog
  (left as a difference). Left at ns-3's: the drop
  from the fattest flow leaves its CoDel count alone (Linux and cclab add the packets dropped);
  a new flow found empty always moves to the old list (Linux and cclab only when that is not
  empty).
- **Step marking** (``ecn_threshold`` K on droptail): a RedQueueDisc as ns-3's DCTCP example
  sets one up (``_step_marker``; ns3.py's module text says what differs).
- **PIE**: PieQueueDisc with QueueDelayReference, Tupdate, A, B, MaxBurstAllowance, UseEcn,
  MarkEcnThreshold, UseDerandomization, UseDequeueRateEstimator and UseCapDropAdjustment.
  Left at ns-3's: its burst allowance (armed on the first arrival, the drop probability held at
  0 while it lasts, then off until 1.5 s of low delay; cclab follows the RFC's pseudocode: from
  the start, the probability updated through it, back whenever congestion is gone), its
  dequeue-rate average (weight 1/2; cclab 1/4, the RFC's), its updates from t = 0 (cclab's from
  ``tupdate``), and its two-packet safeguard counted in packets (cclab: bytes against 2
  ``mean_pktsize``).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from .errors import CrosscheckError
from .network import packet_queue

#: A queue "without limit": the largest MaxSize ns-3's QueueSize takes in packets.
UNLIMITED = 2**32 - 1
#: Bytes of cclab's packets on the wire that are not in an ns-3 queue disc's item (PPP).
PPP = 2


def _fmt(v: float) -> str:
    return repr(float(v))


def _bool(v: float) -> str:
    return "true" if v else "false"


def _disc_limit(link: Mapping[str, Any], cap: Optional[int], what: str) -> int:
    """A queue disc's MaxSize in packets for a cclab buffer of ``cap`` (None: unlimited)."""
    if cap is None:
        return UNLIMITED
    if cap < 2:
        raise CrosscheckError(f"link {link['name']}: buffer", f"{cap}pkts",
                              f"at least 2 packets with {what} (one is staged in the device)")
    return cap - 1


def _red(link: Mapping[str, Any], kind: str, p: Mapping[str, float]) -> List[str]:
    if p["bytes"]:
        raise CrosscheckError(f"link {link['name']}: queue", "red in byte mode", "red or ared in packet mode")
    attrs = [
        "ARED=false", "Ns1Compat=false", f"UseEcn={_bool(p['ecn'])}",
        f"MinTh={_fmt(p['min_th'])}", f"MaxTh={_fmt(p['max_th'])}", f"QW={_fmt(p['q_weight'])}",
        f"LInterm={_fmt(1.0 / p['max_p']) if p['max_p'] > 0 else '1e12'}",
        f"MeanPktSize={int(p['mean_pktsize'])}",
        f"Gentle={_bool(p['gentle'])}", f"Wait={_bool(p['wait'])}",
        f"LinkBandwidth={int(link['rate_bps'])}bps", f"LinkDelay={_fmt(link['delay_s'])}s",
    ]
    if kind == "ared":
        attrs += ["AdaptMaxP=true", f"Alpha={_fmt(p['alpha'])}", f"Beta={_fmt(p['beta'])}",
                  f"Interval={_fmt(p['interval'])}s", f"Top={_fmt(p['top'])}", f"Bottom={_fmt(p['bottom'])}"]
    else:
        attrs += ["AdaptMaxP=false"]
    if p["ecn"]:
        # cclab marks only early (probabilistic) drops and drops above the hard threshold.
        attrs += ["UseHardDrop=true"]
    return attrs


def _codel_common(link: Mapping[str, Any], p: Mapping[str, float]) -> List[str]:
    """The CoDel attributes CoDelQueueDisc and FqCoDelQueueDisc share."""
    attrs = [f"Target={_fmt(p['target'])}s", f"Interval={_fmt(p['interval'])}s", f"UseEcn={_bool(p['ecn'])}"]
    if p["ce_threshold"] > 0:
        if not p["ecn"]:
            raise CrosscheckError(f"link {link['name']}: queue_params.ce_threshold", p["ce_threshold"],
                                  "0, or ecn = 1 with it (ns-3's CoDel marks at CeThreshold only with UseEcn)")
        attrs.append(f"CeThreshold={_fmt(p['ce_threshold'])}s")
    return attrs


def _codel(link: Mapping[str, Any], p: Mapping[str, float], ctx: Mapping[str, Any]) -> List[str]:
    return _codel_common(link, p) + [f"MinBytes={max(0, int(p['mtu']) - PPP + 1)}"]


def _fq_codel(link: Mapping[str, Any], p: Mapping[str, float], ctx: Mapping[str, Any]) -> List[str]:
    field = f"link {link['name']}: queue_params"
    if p["exact"]:
        raise CrosscheckError(f"{field}.exact", 1, "0 (ns-3's FqCoDel always hashes flows into buckets)")
    if int(p["quantum"]) != ctx["mtu"]:
        raise CrosscheckError(f"{field}.quantum", p["quantum"],
                              f"{ctx['mtu']}, the run's MTU (ns-3.44's FqCoDel takes its quantum from the device)")
    if p["mtu_per_flow"] and not 1500 <= p["mtu"] < 3000:
        raise CrosscheckError(f"{field}.mtu", p["mtu"], "1500 to 2999 with mtu_per_flow (ns-3's flow queues are "
                              "CoDelQueueDiscs with MinBytes 1500: a backlog of one full packet is exempt, two are not)")
    if p["memory_limit"] < p["limit"] * ctx["mtu"]:
        raise CrosscheckError(f"{field}.memory_limit", p["memory_limit"],
                              f"at least limit x MTU = {int(p['limit'] * ctx['mtu'])} bytes (ns-3's FqCoDel has no "
                              "memory limit)")
    return _codel_common(link, p) + [f"Flows={int(p['flows'])}", f"DropBatchSize={int(p['drop_batch_size'])}",
                                     f"Perturbation={ctx['seed'] % 2**32}", "EnableSetAssociativeHash=false"]


def _pie(link: Mapping[str, Any], p: Mapping[str, float], ctx: Mapping[str, Any]) -> List[str]:
    return [f"QueueDelayReference={_fmt(p['target'])}s", f"Tupdate={_fmt(p['tupdate'])}s",
            f"A={_fmt(p['alpha'])}", f"B={_fmt(p['beta'])}", f"MaxBurstAllowance={_fmt(p['max_burst'])}s",
            f"UseEcn={_bool(p['ecn'])}", f"MarkEcnThreshold={_fmt(p['mark_ecnth'])}",
            f"UseDerandomization={_bool(p['derandomize'])}",
            f"UseDequeueRateEstimator={_bool(p['dq_rate_estimator'])}",
            f"UseCapDropAdjustment={_bool(p['cap_drop_adjustment'])}", f"MeanPktSize={int(p['mean_pktsize'])}"]


def _step_marker(link: Mapping[str, Any], cap: Optional[int], in_service: int, k: float) -> Tuple[str, int, List[str]]:
    """DropTail with ECN step marking at ``k`` as ns-3's RED step marker (dctcp-example.cc):
    MinTh = MaxTh, QW 1, UseEcn, no hard drop, not gentle, so an arrival is marked when the disc
    holds at least MinTh; the disc holds one packet less than cclab's queue while the link is
    busy (one is staged in the device), so MinTh = MaxTh = K - 1."""
    field = f"link {link['name']}: queue_params.ecn_threshold"
    if k < 3:
        raise CrosscheckError(field, k, "at least 3 packets (ns-3's RED marks only with 2 or more in the disc)")
    if cap is not None and cap - in_service < 2:
        raise CrosscheckError(f"link {link['name']}: buffer", f"{cap}pkts",
                              f"at least {2 + in_service} packets (one is staged in the device)")
    th = _fmt(k - 1)
    attrs = ["ARED=false", "Ns1Compat=false", "UseEcn=true", "UseHardDrop=false", "Gentle=false", "Wait=false",
             f"MinTh={th}", f"MaxTh={th}", "QW=1.0", "LInterm=1.0", "AdaptMaxP=false",
             f"LinkBandwidth={int(link['rate_bps'])}bps", f"LinkDelay={_fmt(link['delay_s'])}s"]
    return "ns3::RedQueueDisc", UNLIMITED if cap is None else cap - in_service - 1, attrs


#: cclab queue kind: (ns-3 TypeId, attribute function) for the queue discs.
DISCS: Dict[str, Tuple[str, Callable[[Mapping[str, Any], Mapping[str, float], Mapping[str, Any]], List[str]]]] = {
    "red": ("ns3::RedQueueDisc", lambda link, p, ctx: _red(link, "red", p)),
    "ared": ("ns3::RedQueueDisc", lambda link, p, ctx: _red(link, "ared", p)),
    "codel": ("ns3::CoDelQueueDisc", _codel),
    "fq_codel": ("ns3::FqCoDelQueueDisc", _fq_codel),
    "pie": ("ns3::PieQueueDisc", _pie),
}


def queue(link: Mapping[str, Any], mtu: int, seed: int) -> Tuple[str, int, List[str]]:
    """The link's queue for the program: ``droptail`` or a queue disc's TypeId, its MaxSize in
    packets, and the disc's attributes (``Attr=V``). ``mtu``: the run's; ``seed``: the run's."""
    q, cap, p = packet_queue(link)
    if "ecn_threshold_bytes" in p:
        raise CrosscheckError(f"link {link['name']}: queue_params.ecn_threshold_bytes", p["ecn_threshold_bytes"],
                              "a threshold in packets (ecn_threshold; ns-3's RED step marker runs in packets here)")
    if "ecn_threshold" in p and q["kind"] != "droptail":
        raise CrosscheckError(f"link {link['name']}: queue_params.ecn_threshold", p["ecn_threshold"],
                              "step marking on droptail only (ns-3's step marker is a RED queue of its own)")
    if q["kind"] == "droptail":
        in_service = int(p.get("count_in_service", 0))
        if "ecn_threshold" in p:
            return _step_marker(link, cap, in_service, p["ecn_threshold"])
        if cap is None:
            return "droptail", UNLIMITED, []
        if cap - in_service < 1:
            raise CrosscheckError(f"link {link['name']}: buffer", f"{cap}pkts",
                                  f"at least {1 + in_service} packets (ns-3's queue holds at least one)")
        return "droptail", cap - in_service, []
    if q["kind"] not in DISCS:
        raise CrosscheckError(f"link {link['name']}: queue", q["kind"],
                              f"droptail, {', '.join(DISCS)} (ns-3 has no gARED or XCP router as cclab's)")
    type_id, attrs = DISCS[q["kind"]]
    # FQ-CoDel's packet limit is its own (the buffer in packets, or Linux's 10240).
    held = int(p["limit"]) if q["kind"] == "fq_codel" else cap
    return type_id, _disc_limit(link, held, q["kind"]), attrs(link, p, {"mtu": mtu, "seed": seed})
