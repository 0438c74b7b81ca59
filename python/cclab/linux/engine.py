"""``run_linux``: a dumbbell scenario on real kernel TCP in the namespace testbed (docs/linux.md).

The scenario is resolved by the simulator's own parser (``_core.Sim(...).network()``: rates,
delays, buffers in packets, flow start times, sizes), so both engines read a file the same way;
what the testbed cannot honour is refused first, in one line naming the field (``Unsupported``).
The result has the simulator's tables and columns. What real TCP does not expose is missing:
``<NA>`` in integer columns, NaN in float columns (docs/linux.md lists them).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Dict, List, NoReturn, Optional, Tuple


from .. import _core
from ..result import Result
from ..scenario import Scenario, _to_json, as_scenario, resolve_seed
from . import bpf
from .errors import LinuxEngineError, Unsupported
from .schedule import Steps
from .testbed import RCV_ADDR, Testbed

#: The highest bottleneck rate the testbed carries honestly on a 2-core machine (docs/linux.md:
#: above it the delay line, not the bottleneck queue, limits and hides the queue).
MAX_RATE_BPS = 200e6
#: The lowest rate a `rate_schedule` step may set: HTB's rate table is coarse below it.
MIN_RATE_BPS = 64e3
#: At most this many flows (each is a thread of the sender and receiver processes).
MAX_FLOWS = 16
#: Real time: a run takes its duration.
MAX_DURATION_S = 300.0
MIN_SAMPLE_S = 0.01
#: The longest one-way delay (each direction, each flow) the delay line is asked for. Its frame
#: pool holds 16,384 frames per direction (c/delay_line.c, SLOTS): at the 200 Mbit/s ceiling a
#: flow in slow start arrives at up to twice the rate, 33,000 frames/s, so 0.5 s fills half the
#: pool; docs/linux.md measures the delays' accuracy up to this bound.
MAX_ONE_WAY_S = 0.5
#: Kernel congestion controls by the names a scenario may use (the simulator's on the left).
KERNEL_CC = {"reno": "reno", "newreno": "reno", "cubic": "cubic", "bbr": "bbr"}
PORT = 5201
#: Samples the sender takes when the scenario has no sample_interval (for goodput windows).
DEFAULT_SAMPLE_S = 0.1
#: Seconds between starting the endpoints and the scenario's time 0.
LEAD_S = 1.0


def _fail(field: str, message: str) -> NoReturn:
    raise Unsupported(field, message)


def _linux_cc(name: str, field: str) -> str:
    if name in KERNEL_CC:
        return KERNEL_CC[name]
    if name in bpf.REGISTRY:
        return name
    accepted = sorted(set(KERNEL_CC) | set(bpf.REGISTRY))
    _fail(field, f"'{name}' is neither a kernel built-in nor one of cclab's BPF congestion controls; "
                 f"the Linux engine accepts {', '.join(accepted)}")


def _resolve(sc: Scenario, seed: int) -> Tuple[Scenario, Dict[str, Any], float, float, List[str]]:
    """Validates what only the testbed cares about, then lets the simulator parse the rest.
    Returns the normalized scenario, its network, the BDP in packets, the duration and the
    kernel's name of each flow group's algorithm."""
    if "web" in sc:
        _fail("web", "the Linux engine runs bulk TCP flows only (no web traffic yet)")
    if sc.get("udp"):
        _fail("udp", "the Linux engine runs TCP flows only (no UDP sources yet)")
    if sc.get("trace"):
        _fail("trace", "packet traces are the simulator's; on Linux capture with tcpdump")
    topo = sc.get("topology") or {}
    if topo.get("kind", "dumbbell") != "dumbbell":
        _fail("topology.kind", f"'{topo.get('kind')}': the Linux engine builds dumbbells only")
    b = topo.get("bottleneck") or {}
    if "mahimahi" in b:
        _fail("topology.bottleneck.mahimahi", "the Linux testbed's bottleneck is an HTB class at a rate; it follows "
                                              "`rate_schedule` but replays no Mahimahi trace")
    if b.get("queue", "droptail") != "droptail":
        _fail("topology.bottleneck.queue", f"'{b.get('queue')}': this kernel has no AQM qdisc (no red, codel, "
                                           "fq_codel, pie); the Linux engine accepts droptail")
    if b.get("queue_params"):
        _fail("topology.bottleneck.queue_params", "droptail on Linux (pfifo/bfifo) takes no parameters")
    groups = sc.get("flows") or []
    if not groups:
        _fail("flows", "the Linux engine needs at least one TCP flow group")
    # The simulator parses the scenario with the simulator's name of each kernel algorithm.
    sim_sc = json.loads(json.dumps(sc))
    kernel_names = []
    for i, g in enumerate(groups):
        cc = str(g.get("cc", ""))
        kernel_names.append(_linux_cc(cc, f"flows[{i}].cc"))
        if g.get("cc_params"):
            _fail(f"flows[{i}].cc_params", "kernel congestion controls take no parameters from the scenario")
        if g.get("ecn"):
            _fail(f"flows[{i}].ecn", "the Linux bottleneck (pfifo) never marks; ECN is not emulated")
        if "src" in g or "dst" in g:
            _fail(f"flows[{i}].src", "graphs are not built by the Linux engine")
        sim_sc["flows"][i]["cc"] = bpf.REGISTRY[cc].sim_name if cc in bpf.REGISTRY else cc
        # The simulator's default group name (<cc><index>) from the name the scenario gave.
        sim_sc["flows"][i].setdefault("name", f"{cc}{i}")
    sim = _core.Sim(_to_json(sim_sc), seed)
    net = json.loads(sim.network())
    canonical = json.loads(sim.scenario_json())
    for g, name in zip(canonical.get("flows", []), [str(g.get("cc")) for g in groups]):
        g["cc"] = name
    return canonical, net, sim.bdp_pkts, sim.duration, kernel_names


def plan(sc: Scenario, seed: int) -> Dict[str, Any]:
    """What the testbed will build for a scenario, after refusing what it cannot honour."""
    canonical, net, bdp, duration, kernel_names = _resolve(sc, seed)
    links = net["links"]
    bn = next(l for l in links if l["role"] == "bottleneck")
    if bn["rate_bps"] > MAX_RATE_BPS:
        _fail("topology.bottleneck.rate", f"{bn['rate_bps'] / 1e6:g} Mbit/s is above the Linux testbed's honest "
                                          f"ceiling of {MAX_RATE_BPS / 1e6:g} Mbit/s (docs/linux.md)")
    steps = [(float(t), int(r)) for t, r in bn.get("rate_schedule") or []]
    for t, r in steps:
        if not MIN_RATE_BPS <= r <= MAX_RATE_BPS:
            _fail("topology.bottleneck.rate_schedule", f"{r / 1e6:g} Mbit/s at {t:g} s: the Linux testbed's "
                                                       f"bottleneck takes {MIN_RATE_BPS / 1e6:g} to "
                                                       f"{MAX_RATE_BPS / 1e6:g} Mbit/s")
    if duration > MAX_DURATION_S:
        _fail("duration", f"{duration:g} s: the Linux engine runs in real time, at most {MAX_DURATION_S:g} s")
    flows = net["flows"]
    if len(flows) > MAX_FLOWS:
        _fail("flows", f"{len(flows)} flows: the Linux engine carries at most {MAX_FLOWS} honestly on 2 cores")
    groups = {g: i for i, g in enumerate(dict.fromkeys(f["group"] for f in flows))}
    delay = {l_i: l["delay_s"] for l_i, l in enumerate(links)}
    delays = []  # each flow's (forward, reverse) one-way delay: the sums of its paths' link delays
    for f in flows:
        gi = groups[f["group"]]
        fwd = sum(delay[i] for i in f["path_data"])
        rev = sum(delay[i] for i in f["path_ack"])
        if max(fwd, rev) > MAX_ONE_WAY_S:
            _fail(_delay_field(sc, gi), f"{(fwd + rev) * 1e3:g} ms round trip ({fwd * 1e3:g} ms forward, "
                                        f"{rev * 1e3:g} ms back): the Linux delay line accepts one-way delays up "
                                        f"to {MAX_ONE_WAY_S * 1e3:g} ms (docs/linux.md)")
        delays.append((fwd, rev))
        for i in f["path_data"] + f["path_ack"]:
            l = links[i]
            if l["role"] == "access" and l["rate_bps"] < bn["rate_bps"]:
                _fail(f"flows[{gi}].access_rate", "an access link slower than the bottleneck is not emulated "
                                                  "(the testbed's access links are unlimited veths)")
            if l["role"] == "access" and l["queue"]["capacity_pkts"] is not None:
                _fail(f"flows[{gi}].access_buffer", "access links have no queue of their own on Linux")
    # The delay line's delays include the bottleneck's: a `delay_schedule` moves them all by its
    # step's change; the longest must stay within its bound.
    delay_steps = [(float(t), float(d)) for t, d in bn.get("delay_schedule") or []]
    longest = max([d for _, d in delay_steps] + [bn["delay_s"]]) - bn["delay_s"] + (bn.get("jitter_s") or 0.0)
    for gi, (fwd, rev) in zip((groups[f["group"]] for f in flows), delays):
        if max(fwd, rev) + longest > MAX_ONE_WAY_S:
            _fail("topology.bottleneck.delay_schedule" if delay_steps else "topology.bottleneck.jitter",
                  f"{(max(fwd, rev) + longest) * 1e3:g} ms one way at its longest (flows[{gi}]): the Linux delay "
                  f"line accepts one-way delays up to {MAX_ONE_WAY_S * 1e3:g} ms (docs/linux.md)")
    with_sockops = sorted({cc for cc in kernel_names if cc in bpf.REGISTRY and bpf.REGISTRY[cc].sockops})
    if len(with_sockops) > 1:  # one cgroup, one loader
        _fail("flows", f"{', '.join(with_sockops)}: one algorithm with a sockops program per run")
    sizes = {f["packet_size"] for f in flows}
    if len(sizes) > 1:
        _fail("flows[1].packet_size", "all flows share the testbed's MTU: give every group the same packet_size")
    mtu = sizes.pop()
    if not 576 <= mtu <= 1500:
        _fail("flows[0].packet_size", f"{mtu} B: the Linux testbed's MTU is 576 B to 1500 B")
    q = bn["queue"]
    rev_q = next(l for l in links if l["role"] == "reverse")["queue"]
    if rev_q["capacity_pkts"] is not None or rev_q["capacity_bytes"] is not None:
        _fail("topology.bottleneck.reverse_buffer", "the reverse (ACK) direction has no limited queue on Linux")
    # One class (today's single FIFO per direction) when every flow's delays are the same to the
    # relay's microsecond; else one class per flow, keyed by its receiver's port (PORT + index).
    micros = {(round(fwd * 1e6), round(rev * 1e6)) for fwd, rev in delays}
    classes = {PORT + i: d for i, d in enumerate(delays)} if len(micros) > 1 else {}
    return {"canonical": canonical, "net": net, "bdp": bdp, "duration": duration, "mtu": mtu,
            "rate_bps": bn["rate_bps"], "rate_steps": steps, "limit_pkts": q["capacity_pkts"], "limit_bytes": q["capacity_bytes"],
            "fwd_s": delays[0][0], "rev_s": delays[0][1], "delays": delays, "classes": classes,
            "kernel_cc": kernel_names, "groups": groups, "loss": float(bn.get("loss") or 0.0),
            "gilbert_elliott": _gilbert_elliott(canonical), "jitter_s": float(bn.get("jitter_s") or 0.0),
            "delay_steps": [(t, d - bn["delay_s"]) for t, d in delay_steps],
            "loss_steps": [(float(t), float(v)) for t, v in bn.get("loss_schedule") or []]}


def _gilbert_elliott(canonical: Scenario) -> Optional[Tuple[float, float, float, float]]:
    """The bottleneck's Gilbert-Elliott channel as (p, r, loss_good, loss_bad), the simulator's
    defaults filled in (docs/links.md), or None."""
    ge = ((canonical.get("topology") or {}).get("bottleneck") or {}).get("gilbert_elliott")
    if not ge:
        return None
    return (float(ge["p"]), float(ge["r"]), float(ge.get("loss_good", 0.0)), float(ge.get("loss_bad", 1.0)))


def _delay_field(sc: Scenario, gi: int) -> str:
    """The field that set a flow group's delay: its ``rtt`` or ``access_delay``, else the bottleneck's."""
    g = (sc.get("flows") or [{}])[gi]
    for key in ("rtt", "access_delay", "receiver_delay"):
        if key in g:
            return f"flows[{gi}].{key}"
    return "topology.bottleneck.delay"


def run_linux(scenario: Any, seed: Optional[int] = None) -> Result:
    """Runs a dumbbell scenario on Linux (root); returns a Result with the simulator's tables."""
    sc = as_scenario(scenario)
    s = resolve_seed(seed, sc)
    p = plan(sc, s)
    net, canonical = p["net"], p["canonical"]
    flows = net["flows"]
    dt_user = canonical.get("sample_interval")
    dt = _seconds(dt_user) if dt_user else DEFAULT_SAMPLE_S
    if dt < MIN_SAMPLE_S:
        _fail("sample_interval", f"{dt:g} s: the Linux engine samples at most every {MIN_SAMPLE_S:g} s")
    duration = p["duration"]
    cc_of_flow = [p["kernel_cc"][p["groups"][f["group"]]] for f in flows]
    load = os.getloadavg()[0]
    t_wall = time.perf_counter()
    # Frames no flow claims (none are expected: ARP is static, IPv6 off) take flow 0's delays.
    with Testbed(p["rate_bps"], p["limit_pkts"], p["limit_bytes"], p["fwd_s"], p["rev_s"], p["mtu"],
                 classes=p["classes"], loss=p["loss"],
                 gilbert_elliott=p["gilbert_elliott"], seed=s, jitter_s=p["jitter_s"]) as tb:
        state_maps = {}
        with_sockops = [cc for cc in sorted(set(cc_of_flow)) if cc in bpf.REGISTRY and bpf.REGISTRY[cc].sockops]
        for cc in sorted(set(cc_of_flow)):
            if cc in bpf.REGISTRY and not bpf.REGISTRY[cc].sockops:
                tb.struct_ops.append(bpf.register(cc))
                state_maps[cc] = bpf.state_map(cc)
        if with_sockops:  # the endpoints then run in the testbed's cgroup, where its sockops program is
            tb.load_with_sockops(bpf.build(with_sockops[0]))
            state_maps[with_sockops[0]] = bpf.state_map(with_sockops[0])
        cfg = {"addr": RCV_ADDR, "port": PORT, "duration_s": duration, "sample_interval_s": dt,
               "flows": [{"cc": cc, "start_s": f["start_s"], "stop_s": f["stop_s"],
                          "size_bytes": None if f["size_pkts"] is None else int(f["size_pkts"]) * _mss(p["mtu"], cc),
                          "state_map_id": state_maps.get(cc)}
                         for f, cc in zip(flows, cc_of_flow)]}
        with tempfile.TemporaryDirectory(prefix="cclab-linux-") as tmp:
            path = Path(tmp) / "config.json"
            script = str(Path(__file__).with_name("endpoint.py"))
            cfg["samples_path"] = str(Path(tmp) / "samples.jsonl")
            cfg["t0"] = time.monotonic() + LEAD_S
            path.write_text(json.dumps(cfg), encoding="utf-8")
            recv = tb.spawn(tb.rcv, sys.executable, script, "recv", str(path), in_cgroup=True)
            if (recv.stdout.readline() if recv.stdout else "").strip() != "ready":
                raise LinuxEngineError(f"the receiver did not start: {_stderr(recv)}")
            snd = tb.spawn(tb.snd, sys.executable, script, "send", str(path), in_cgroup=True)
            stepper = Steps(cfg["t0"], [(t, "rate", functools.partial(tb.set_rate, r)) for t, r in p["rate_steps"]]
                            + [(t, "loss", functools.partial(tb.set_loss, v)) for t, v in p["loss_steps"]]
                            + [(t, "delay", functools.partial(tb.change_delay, by)) for t, by in p["delay_steps"]])
            try:
                qrows = _sample_queue(tb, cfg["t0"], dt, duration)
            finally:
                steps_late = stepper.stop()
            _, err = snd.communicate(timeout=duration + LEAD_S + 30)
            if snd.returncode != 0:
                raise LinuxEngineError(f"the sender failed: {err.strip().splitlines()[-1] if err.strip() else snd.returncode}")
            rout, _ = recv.communicate(timeout=10)
            lost = tb.stop_delay_line()
            spells = [(d, t - cfg["t0"], w) for d, t, w in tb.late_spells]
            counters = tb.stop_loader() if with_sockops else []
            out = Path(cfg["samples_path"]).read_text(encoding="utf-8")
    wall = time.perf_counter() - t_wall
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    finals = {r["final"]: r for r in rows if "final" in r}
    errors = [r["error"] for r in finals.values() if r.get("error")]
    if errors:
        raise LinuxEngineError(errors[0])
    samples = [r for r in rows if "final" not in r]
    received = json.loads(rout.strip().splitlines()[-1]) if rout.strip() else {}
    from .result_build import build_result

    states = {i: bpf.REGISTRY[cc].states for i, cc in enumerate(cc_of_flow) if cc in bpf.REGISTRY}
    random_drops = lost.get("random_fwd", 0) if lost else 0
    res = build_result(p, s, wall, samples, finals, qrows, dt, bool(dt_user), received, load, states, random_drops)
    # Each schedule's steps applied, and the latest of them against its time (seconds).
    for kind in ("rate", "loss", "delay"):
        late = steps_late.get(kind, [])
        res._summary[f"linux_{kind}_steps"] = float(len(late))
        res._summary[f"linux_{kind}_step_late_max_s"] = max(late) if late else float("nan")
    # Runs of consecutive random drops (Gilbert-Elliott's bursts; single drops under `loss`).
    res._summary["linux_relay_loss_bursts"] = float(lost.get("random_fwd_bursts", 0)) if lost else float("nan")
    res._summary["linux_relay_lost"] = float(lost.get("fwd", 0) + lost.get("rev", 0)) if lost else float("nan")
    # With per-flow delays, frames that took the default one (0 expected: a check on the classifier).
    res._summary["linux_relay_default_frames"] = (float(lost.get("default_fwd", 0) + lost.get("default_rev", 0))
                                                  if lost and p["classes"] else float("nan"))
    # How late the relay found frames due (both directions): its own delay error, without the
    # write through the qdisc and veth. A late run shows here rather than only in the RTTs.
    n = lost.get("late_fwd_frames", 0) + lost.get("late_rev_frames", 0) if lost else 0
    res._summary["linux_relay_late_mean_s"] = (lost["late_fwd_mean_ns"] * lost["late_fwd_frames"] + lost[
        "late_rev_mean_ns"] * lost["late_rev_frames"]) / n / 1e9 if n else float("nan")
    res._summary["linux_relay_late_max_s"] = max(lost["late_fwd_max_ns"], lost["late_rev_max_ns"]) / 1e9 if n \
        else float("nan")
    res._summary["linux_relay_late_over_1ms"] = float(lost["late_fwd_over_1ms"] + lost["late_rev_over_1ms"]) if n \
        else float("nan")
    res._summary["linux_relay_frames"] = float(n) if n else float("nan")
    # 1 when idle cores polled for the whole run (the testbed's CPU latency request, testbed.py).
    res._summary["linux_cpu_latency_held"] = float(tb.cpu_latency_held)
    #: Not saved with the result: when the relay woke more than 2 ms late (direction, scenario
    #: time s, worst lateness s), for measurements that set loss bursts beside it.
    res.linux_relay_late_spells = spells
    if with_sockops:  # the BPF object's own counters (cclab_tcpgt: options written/parsed, epochs, decisions)
        for name, v in zip(bpf.REGISTRY[with_sockops[0]].counters, counters):
            res._summary[f"linux_bpf_{name}"] = float(v)
    _warn_relay(lost, tb.cpu_latency_held)
    _warn_if_limited(res)
    return res


#: The share of frames the relay may find more than 1 ms late before a run is flagged: with the
#: CPU latency request held, 0.1-0.8 % on this machine kind; without it, up to 25 % (docs/linux.md).
LATE_FLAG = 0.01


def _warn_relay(lost: Dict[str, int], held: bool) -> None:
    """Warns when the delay line lost frames, or found more than LATE_FLAG of them over 1 ms
    late (``lost``: Testbed.stop_delay_line's counts; ``held``: the CPU latency request)."""
    from ..advice import CclabWarning

    if lost and lost["fwd"] + lost["rev"] > 0:
        warnings.warn(f"topology.bottleneck.rate: the delay line lost {lost['fwd']} data and {lost['rev']} ACK frames "
                      "(the machine could not keep up): losses outside the bottleneck queue, so this run is not an "
                      "honest emulation; lower the rate or the load (docs/linux.md)", CclabWarning, stacklevel=3)
    n = lost.get("late_fwd_frames", 0) + lost.get("late_rev_frames", 0) if lost else 0
    over = lost.get("late_fwd_over_1ms", 0) + lost.get("late_rev_over_1ms", 0) if lost else 0
    if n and over > LATE_FLAG * n:
        warnings.warn(f"topology.bottleneck.delay: the delay line found {over} of {n} frames due more than 1 ms late "
                      f"(over {100 * LATE_FLAG:.0f} % is flagged; CPU latency request held: {'yes' if held else 'no'}): "
                      "the machine did not keep real time, so delays were longer and burstier than asked and the "
                      "bottleneck may have idled (docs/linux.md)", CclabWarning, stacklevel=3)


def _warn_if_limited(res: Any) -> None:
    """Warns when a flow spent more than LIMITED_FLAG of the measured window limited by something
    else than its congestion window (a starved sender process, a small buffer or window)."""
    from ..advice import CclabWarning
    from .result_build import LIMITED_FLAG

    s = res._summary
    worst = {k: s.get(f"linux_{k}_limited_max", float("nan")) for k in ("app", "sndbuf", "rwnd")}
    over = {k: v for k, v in worst.items() if v == v and v > LIMITED_FLAG}
    if over:
        what = ", ".join(f"{100 * v:.1f} % {k}-limited" for k, v in over.items())
        warnings.warn(f"flows: a flow was not limited by its congestion window for part of the run ({what}, at "
                      f"most; over {100 * LIMITED_FLAG:.0f} % is flagged): the sender process was starved or a "
                      "buffer limited it, so this run does not show the algorithm alone (docs/linux.md)",
                      CclabWarning, stacklevel=3)


def _mss(mtu: int, cc: str = "") -> int:
    # IPv4 20 + TCP 20 + timestamps 12 (Linux uses timestamps by default) + a BPF algorithm's option.
    return mtu - 52 - (bpf.REGISTRY[cc].option_bytes if cc in bpf.REGISTRY else 0)


def _stderr(p: Any) -> str:
    if p.poll() is None:
        p.kill()
    _, err = p.communicate(timeout=5)
    return (err or "").strip().splitlines()[-1] if (err or "").strip() else f"exit {p.returncode}"


def _seconds(v: Any) -> float:
    if isinstance(v, (int, float)):
        return float(v)
    q = _core.quantity(str(v))
    if q is None or q[0] != "s":
        _fail("sample_interval", f"'{v}' is not a time")
    return float(q[1])  # type: ignore[index]


def _sample_queue(tb: Testbed, t0: float, dt: float, duration: float) -> List[Dict[str, Any]]:
    """The bottleneck qdisc's counters at the sample times (tc -s -j), while the flows run."""
    rows = []
    k = 0
    while k * dt <= duration + 1e-9:
        t = k * dt
        while (d := t0 + t - time.monotonic()) > 0:
            time.sleep(min(d, 0.05))
        q = tb.qdisc_stats()
        rows.append({"t": round(t, 9), "qlen": q.get("qlen", 0), "backlog": q.get("backlog", 0),
                     "packets": q.get("packets", 0), "bytes": q.get("bytes", 0), "drops": q.get("drops", 0)})
        k += 1
    return rows
