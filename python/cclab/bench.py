"""Speed benchmarks B1–B4 of ``shared/DESIGN.md``, and B5 (B2 with BBR, paced): delivered data packets per
wall-clock second and peak memory, each case in its own process so that its
memory is its own; optionally ns-3's program (``bench_ns3.cc``, compiled against the ns3 wheel) side by
side on the same case, with the ratio.

Timing belongs here, never in tests: machines are shared and noisy, so compare
figures taken in one run.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from . import _core

# 1500-byte packets, access links 10x the bottleneck with 1 ms each, per-packet ACKs, SACK.
_ACCESS = {"access_delay": "1ms", "receiver_delay": "1ms"}


def _case(name, rate, delay, buffer, duration, flows, queue="droptail"):
    return {
        "name": name,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": rate, "delay": delay, "buffer": buffer, "queue": queue},
        },
        "flows": flows,
    }


@dataclass(frozen=True)
class BenchCase:
    key: str
    title: str
    scenario: dict[str, Any]
    #: Arguments of ns-3's dumbbell_bench for the same case; None where ns-3 cannot run it.
    ns3_args: Optional[list[str]]
    needs: tuple[str, ...] = field(default=())


# RTT = 2 x (1 ms + d_B + 1 ms), so d_B = RTT/2 - 2 ms, as the ns-3 program builds it.
CASES: dict[str, BenchCase] = {
    "B1": BenchCase(
        "B1",
        "single-reno: 1 NewReno, 100 Mbps, 80 ms, BDP/4 DropTail, 120 s",
        _case("B1 single-reno", "100Mbps", "38ms", "0.25bdp", "120s",
              [{"cc": "newreno", "recovery": "sack", **_ACCESS}]),
        ["--scenario=single-reno"],
    ),
    "B2": BenchCase(
        "B2",
        "dumbbell-50: 50 CUBIC starting in [0,1] s, 500 Mbps, 80 ms, 1 BDP, 60 s",
        _case("B2 dumbbell-50", "500Mbps", "38ms", "1bdp", "60s",
              [{"cc": "cubic", "recovery": "sack", "count": 50, "start_spread": "1s", **_ACCESS}]),
        ["--scenario=dumbbell-50"],
        needs=("cubic",),
    ),
    "B3": BenchCase(
        "B3",
        "highspeed-10g: 100 HighSpeed, 10 Gbps, 100 ms, BDP/10, 20 s",
        _case("B3 highspeed-10g", "10Gbps", "48ms", "0.1bdp", "20s",
              [{"cc": "highspeed", "recovery": "sack", "count": 100, **_ACCESS}]),
        None,
        needs=("highspeed",),
    ),
    "B4": BenchCase(
        "B4",
        "red-10: 10 NewReno, 1 Gbps, 50 ms, Adaptive RED, 60 s",
        _case("B4 red-10", "1Gbps", "23ms", "1bdp", "60s",
              [{"cc": "newreno", "recovery": "sack", "count": 10, **_ACCESS}], queue="ared"),
        ["--scenario=red-10"],
        needs=("ared",),
    ),
    # B2 with BBR: every data segment paced (one pacing timer per flow), for the cost of
    # pacing and rate samples against B2's ACK-clocked CUBIC.
    "B5": BenchCase(
        "B5",
        "bbr-50: 50 BBR (paced) starting in [0,1] s, 500 Mbps, 80 ms, 1 BDP, 60 s",
        _case("B5 bbr-50", "500Mbps", "38ms", "1bdp", "60s",
              [{"cc": "bbr", "recovery": "sack", "count": 50, "start_spread": "1s", **_ACCESS}]),
        None,
        needs=("bbr",),
    ),
}


def available(case: BenchCase) -> tuple[bool, str]:
    """Whether this build has what the case needs (algorithms and queues)."""
    known = {name for name, _ in _core.algorithms()}
    try:
        _core.check_scenario(json.dumps(case.scenario), 1)
    except _core.ScenarioError as e:
        missing = [n for n in case.needs if n not in known] or list(case.needs)
        return False, f"needs {', '.join(missing)} ({e.field}: {e.value})"
    return True, ""


def _peak_rss_mib() -> float:
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


# Run in a fresh interpreter that loads only the compiled core (no numpy, pandas or
# matplotlib), so the process's peak memory is the simulation's plus a bare Python.
_CHILD = """
import importlib.machinery, importlib.util, json, resource, sys, time
def hwm():
    # VmHWM is this process's own peak; ru_maxrss would include the parent's from before exec.
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
path, scenario = sys.argv[1], sys.argv[2]
loader = importlib.machinery.ExtensionFileLoader("cclab._core", path)
spec = importlib.util.spec_from_file_location("cclab._core", path, loader=loader)
core = importlib.util.module_from_spec(spec)
loader.exec_module(core)
base = hwm()
sim = core.Sim(scenario, 1)
t0 = time.perf_counter()
sim.run_until(sim.duration)
wall = time.perf_counter() - t0
peak = hwm()  # before results() builds its arrays (and imports numpy)
res = sim.results()
delivered = int(sum(res["flows"]["delivered_pkts"]))
print(json.dumps({
    "wall_s": wall, "delivered_pkts": delivered, "pkts_per_s": delivered / wall, "events": sim.events,
    "peak_rss_mib": peak, "sim_rss_mib": max(peak - base, 0.0),
    "utilization": res["summary"].get("bottleneck_utilization", float("nan")),
}))
"""


def run_isolated(key: str, quick: bool = False) -> dict[str, Any]:
    """Runs one case in a fresh process; returns wall time, delivered packets, packets per
    second, the process's peak memory and the part the simulation added to a bare Python."""
    sc = dict(CASES[key].scenario)
    if quick:
        sc["duration"] = QUICK_DURATION
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, _core.__file__, json.dumps(sc)], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(f"benchmark {key} failed: {out.stderr.strip()[-500:]}")
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["case"] = key
    return r


#: Simulated time of every case with --quick (a smoke run, not a measurement).
QUICK_DURATION = "2s"


#: The ns-3 program that runs the same cases (a dumbbell of ns-3.44's own TCP and queues).
NS3_SOURCE = Path(__file__).with_name("bench_ns3.cc")


def find_ns3() -> Path | None:
    """The ns-3 benchmark binary: $CCLAB_NS3_BENCH, else ``bench_ns3.cc`` (beside this module)
    compiled against the installed ns3 wheel with g++ (cached under ~/.cache/cclab/ns3, as the
    cross-check's program); None when neither is there."""
    env = os.environ.get("CCLAB_NS3_BENCH")
    if env:
        p = Path(env)
        return p if p.is_file() and os.access(p, os.X_OK) else None
    from .crosscheck import ns3
    from .crosscheck.errors import CrosscheckError

    if ns3.available() is None:
        return None
    try:
        return ns3.binary(NS3_SOURCE, "ns3-bench", "--ns3")
    except CrosscheckError:
        return None


def _vm_hwm_mib(pid: int) -> Optional[float]:
    """The peak resident memory of process `pid` so far (Linux), MiB."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def run_ns3(binary: Path, case: BenchCase, timeout_s: float, quick: bool = False) -> dict[str, Any]:
    """Runs ns-3's program on the same case (``quick``: the same 2 s simulated as cclab's
    --quick). Its peak memory is read from /proc while it runs (VmHWM only grows), since
    rusage would include this process's own peak."""
    argv = [str(binary), *(case.ns3_args or []), "--progress=0"]
    if quick:
        argv.append(f"--simTime={float(QUICK_DURATION.rstrip('s')):g}")
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0.0
    t0 = time.monotonic()
    while proc.poll() is None:
        peak = max(peak, _vm_hwm_mib(proc.pid) or 0.0)
        if time.monotonic() - t0 > timeout_s:
            proc.kill()
            proc.wait()
            raise RuntimeError(f"ns-3 {case.key} did not finish in {timeout_s:.0f} s")
        time.sleep(0.05)
    stdout, stderr = proc.communicate()
    line = next((ln for ln in stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"ns-3 printed no RESULT line (exit {proc.returncode}): {stderr.strip()[-300:]}")
    r = json.loads(line[len("RESULT "):])
    return {
        "wall_s": r["wall_run_s"],
        "delivered_pkts": r["delivered_pkts"],
        "pkts_per_s": r["delivered_pkts"] / r["wall_run_s"],
        "peak_rss_mib": peak,
        "utilization": r.get("util_wire"),
    }


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "cclab": _core.__version__,
        "build": _core.BUILD,
    }



