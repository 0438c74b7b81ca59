"""TCP-GT as a BPF congestion control (docs/linux.md, "cclab_tcpgt"): its integer arithmetic against
the simulator's formulas, a run whose echo travels in a TCP option written by a sockops program on
the testbed's cgroup, and that the cgroup, the program and the registration never outlive a run.

The arithmetic tests need gcc only; the runs need root, the testbed's tools, BPF, cgroup v2 and
libbpf's headers, and SKIP with the reason otherwise (as tests/test_linux_engine.py does).
"""

from __future__ import annotations

import ctypes
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cclab
from conftest import default_sigint, quiet_linux_run, lateness
from cclab.linux import bpf, engine
from cclab.linux.host import NS_STEM, cgroup2_root, missing_requirements, registered_ccs
from cclab.linux.testbed import Testbed as Bed

# Another run may use the testbed at the same time (it waits for the lock): the checks name
# cclab_tcpgt rather than asserting that no cclab_* algorithm is registered.

ROOT = Path(__file__).resolve().parents[1]
BPF_DIR = ROOT / "python/cclab/linux/bpf"
ENV = {**os.environ, "PYTHONPATH": str(Path(cclab.__file__).resolve().parents[1])}
NO_SOCKOPS = missing_requirements(bpf=True) or (
    "cgroup v2 is not mounted" if cgroup2_root() is None else None) or (
    "libbpf's headers are not installed (libbpf-dev)" if not Path("/usr/include/bpf/libbpf.h").exists() else None)
needs_sockops = pytest.mark.skipif(NO_SOCKOPS is not None, reason=f"cclab_tcpgt unavailable: {NO_SOCKOPS}")

WS, FS = 1 << 20, 1 << 16  # the header's fixed points: window changes 1/2^20 packet, f and s 1/2^16
RTT_BASE = 0.050

# -- the arithmetic (gcc) -------------------------------------------------------------------------

WRAPPER = """
#include <linux/types.h>
#include "cclab_tcpgt.h"
__u64 muldiv(__u64 a, __u64 b, __u64 c) { return tcpgt_muldiv(a, b, c); }
int increasing(__u64 tr, __u64 rtt_min, __u64 rtt) { return tcpgt_increasing(tr, rtt_min, rtt); }
__u64 f(__u64 rtt) { return tcpgt_f(rtt); }
__u64 p(__u64 f, __u64 s, __u64 tr, __u64 n, __u64 cwnd) { return tcpgt_p(f, s, tr, n, cwnd); }
__u64 n_abs(__u64 rtt, __u64 tr, __u64 rtt_min, __u64 n, __u64 cwnd) { return tcpgt_n_abs(rtt, tr, rtt_min, n, cwnd); }
"""


@pytest.fixture(scope="module")
def gt(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    d = tmp_path_factory.mktemp("tcpgt")
    (d / "w.c").write_text(WRAPPER)
    subprocess.run(["gcc", "-O2", "-Wall", "-shared", "-fPIC", "-I", str(BPF_DIR), "-o", str(d / "w.so"),
                    str(d / "w.c")], check=True, capture_output=True)
    lib = ctypes.CDLL(str(d / "w.so"))
    u64 = ctypes.c_uint64
    for name, n in (("muldiv", 3), ("increasing", 3), ("f", 1), ("p", 5), ("n_abs", 5)):
        getattr(lib, name).argtypes = [u64] * n
        getattr(lib, name).restype = ctypes.c_int if name == "increasing" else u64
    return lib


def us(seconds: float) -> int:
    return round(seconds * 1e6)


def test_the_worked_decrease_removes_a_fifth_packet_per_packet(gt: ctypes.CDLL) -> None:
    # docs/algorithms/tcp-gt.md: 100 packets in TR = 100 ms, rtt_min = rtt = 80 ms -> decrease, n = -0.2.
    assert gt.increasing(us(0.100), us(0.080), us(0.080)) == 0
    assert gt.n_abs(us(0.080), us(0.100), us(0.080), 100, 100) == math.floor(0.2 * WS)


def test_the_worked_increase_adds_p_of_eq_15(gt: ctypes.CDLL) -> None:
    # phi = 0 (TR = rtt_min), G = 1e6 B/s with 1000-B packets (80 packets in 80 ms), cwnd 100,
    # f = 1.6, s = 3 after eq. (14): p = 2.56 * 9 * 1000 / (1e6 * 0.05 * 100) = 0.004608.
    f = gt.f(us(0.080))
    assert f == math.floor(1.6 * FS)
    assert gt.increasing(us(0.080), us(0.080), us(0.080)) == 1
    # Within one unit of 1/2^20 packet (the floors of f and of the divisions).
    assert gt.p(f, 3 * FS, us(0.080), 80, 100) / WS == pytest.approx(0.004608, abs=1 / WS)


def test_the_increase_test_of_eq_16_is_exact_at_its_threshold(gt: ctypes.CDLL) -> None:
    # rtt = rtt_base (f = 1), TR = 100 ms: increase while TR - rtt_min <= 0.05 TR = 5 ms.
    assert gt.increasing(100_000, 95_000, 50_000) == 1
    assert gt.increasing(100_000, 94_999, 50_000) == 0
    # A longer RTT tightens it in proportion (f = 2: 2.5 ms).
    assert gt.increasing(100_000, 97_500, 100_000) == 1
    assert gt.increasing(100_000, 97_499, 100_000) == 0


def test_the_integer_rules_follow_the_simulators_float_formulas(gt: ctypes.CDLL) -> None:
    rng = random.Random(7)
    for _ in range(2000):
        rtt, tr = rng.uniform(0.005, 0.5), rng.uniform(0.005, 0.5)
        rtt_min = rng.uniform(0.004, 0.5)
        n, cwnd, s = rng.randint(2, 5000), rng.randint(2, 5000), rng.uniform(1, 200)
        # The simulator's doubles (crates/cclab-sim/src/cc/tcp_gt/mod.rs), mtu 1000 B.
        g, t = n * 1000 / tr, n * 1000 / rtt_min
        f = rtt / RTT_BASE
        up = (g - t) >= -0.05 * t / f
        tr_us, min_us, rtt_us = us(tr), us(rtt_min), us(rtt)
        if abs((g - t) + 0.05 * t / f) > 1e-3 * t:  # not within rounding of the threshold
            assert bool(gt.increasing(tr_us, min_us, rtt_us)) == up
        if up:
            want = f * f * s * s * 1000 / (g * RTT_BASE * cwnd)
            got = gt.p(gt.f(rtt_us), round(s * FS), tr_us, n, cwnd) / WS
            assert got == pytest.approx(min(want, 2 ** 20), rel=1e-3, abs=2 / WS)
        elif tr_us > min_us:
            want = -f * (g - t) * RTT_BASE / (cwnd * 1000)
            got = gt.n_abs(rtt_us, tr_us, min_us, n, cwnd) / WS
            assert got == pytest.approx(min(want, 2 ** 20), rel=1e-3, abs=2 / WS)


def test_muldiv_is_exact_past_64_bit_products_and_saturates(gt: ctypes.CDLL) -> None:
    assert gt.muldiv(2 ** 40, 2 ** 30, 2 ** 20) == 2 ** 50
    assert gt.muldiv(3 * 2 ** 40 + 5, 2 ** 30, 3 * 2 ** 10) == (3 * 2 ** 40 + 5) * 2 ** 30 // (3 * 2 ** 10)
    assert gt.muldiv(2 ** 63, 2 ** 63, 1) == 2 ** 64 - 1
    assert gt.muldiv(5, 7, 0) == 2 ** 64 - 1


# -- the engine (no root) -------------------------------------------------------------------------


def dumbbell(duration: str = "8s", rate: str = "50Mbps", flows: int = 1) -> dict:
    return {
        "name": "linux-tcpgt-test", "duration": duration, "warmup": "4s", "sample_interval": "100ms",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": rate, "delay": "18ms", "buffer": "1bdp"}},
        "flows": [{"cc": "cclab_tcpgt", "rtt": "40ms", "count": flows}],
    }


def test_cclab_tcpgt_is_planned_as_the_simulators_tcp_gt_with_a_12_byte_option() -> None:
    p = engine.plan(dumbbell(), 1)
    assert p["kernel_cc"] == ["cclab_tcpgt"] and bpf.REGISTRY["cclab_tcpgt"].sim_name == "tcp-gt"
    assert bpf.REGISTRY["cclab_tcpgt"].sockops and engine._mss(1500, "cclab_tcpgt") == 1436
    assert len(bpf.REGISTRY["cclab_tcpgt"].counters) == 10


# -- runs (root) ----------------------------------------------------------------------------------


def our_cgroups() -> list[str]:
    root = cgroup2_root()
    return sorted(d.name for d in root.iterdir() if d.is_dir() and d.name.startswith(NS_STEM)) if root else []


@needs_sockops
def test_one_tcpgt_flow_fills_the_link_with_a_small_queue_and_its_echo_ends_an_epoch_per_rtt() -> None:
    quiet, runs = quiet_linux_run(dumbbell("8s"))
    for res in runs:  # the mechanism, on every run, stalled or not
        s = res.summary()
        assert s["linux_relay_lost"] == 0 and s["linux_bpf_no_storage"] == 0
        # The echo: the receiver parsed data segments' options and the sender its ACKs' options...
        assert s["linux_bpf_opt_data_parsed"] > 0 and s["linux_bpf_opt_ack_parsed"] > 0.9 * s["linux_bpf_opt_ack_written"]
        # ...and each epoch lasts one round trip: about 8 s / 40 ms = 200 epochs (the first second, less).
        assert 120 < s["linux_bpf_epochs"] < 220
        assert s["linux_bpf_increases"] > 0 and s["linux_bpf_decreases"] > 0
        # Its standing decision is shown (cclab_show): none before the first measured epoch, then both.
        cs = res.cc_series
        assert len(cs) >= 0.9 * len(res.flow_series) and cs["state"].iloc[0] == "measuring"
        assert {"increase", "decrease"} <= set(cs["state"]) <= {"measuring", "increase", "decrease"}
        # TCP-GT decreases on delay, not loss: the queue a few packets of the 167-packet buffer (1 BDP).
        assert s["bottleneck_mean_queue_pkts"] < 0.1 * 167 and s["bottleneck_drops"] == 0
    assert "cclab_tcpgt" not in registered_ccs() and not our_cgroups()
    if quiet is None:
        pytest.skip(f"the delay line was late in every run (frames over 1 ms late: {lateness(runs)}): "
                    "TCP-GT's link use is not measurable here")
    # On a run the host did not stall: goodput over [4 s, 8 s] near the 50 Mbit/s rate, and the
    # receiver parsed the options of over 10,000 data segments.
    assert quiet.flows.loc[0, "goodput_bps"] > 0.85 * 50e6 and quiet.summary()["linux_bpf_opt_data_parsed"] > 10_000
    # The simulator's tcp-gt (Linux profile) in the same 8 s: the window within 20 % (30-s runs
    # differ by 4-10 %, docs/linux.md; 4 s hold only three of its cycles) and the queue within 5 packets.
    sim_sc = dumbbell("8s")
    sim_sc["flows"][0].update(cc="tcp-gt", stack="linux")
    sim = cclab.run(sim_sc)
    def late(r: cclab.Result) -> float:
        return float(r.flow_series[r.flow_series.time_s >= 4].cwnd.mean())

    assert late(quiet) == pytest.approx(late(sim), rel=0.2)
    assert abs(quiet.summary()["bottleneck_mean_queue_pkts"] - sim.summary()["bottleneck_mean_queue_pkts"]) < 5


CHILD = """
import sys, time
from cclab.linux.host import PREFIX
from cclab.linux.testbed import Testbed
from cclab.linux import bpf
with Testbed(20e6, 50, None, 0.01, 0.01) as tb:
    cg = tb.load_with_sockops(bpf.build("cclab_tcpgt"))
    print(PREFIX, cg, tb._loader.pid, flush=True)
    if sys.argv[1] == "raise":
        time.sleep(0.5)
        raise RuntimeError("a failure inside the run")
    time.sleep(60)
"""


def _start_child(mode: str = "sleep") -> tuple[subprocess.Popen, str, Path, int]:
    child = subprocess.Popen([sys.executable, "-c", CHILD, mode], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, env=ENV, preexec_fn=default_sigint)
    words = child.stdout.readline().split()
    child.stdout.close()
    if not words:
        child.kill()
        child.wait()
    assert words, "the child did not build its testbed"
    return child, words[0], Path(words[1]), int(words[2])


def _attached(cg: Path) -> str:
    return subprocess.run(["bpftool", "cgroup", "show", str(cg)], capture_output=True, text=True).stdout


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


@needs_sockops
def test_a_new_start_removes_the_cgroup_and_registration_that_a_sigkilled_run_and_loader_left() -> None:
    child, prefix, cg, loader = _start_child()
    assert cg.name.startswith(prefix) and "cclab_tcpgt_soc" in _attached(cg)
    os.kill(loader, signal.SIGKILL)
    child.send_signal(signal.SIGKILL)
    child.wait()
    # Nothing could clean: the cgroup and the registration remain (the loader's cgroup link went with it)...
    assert cg.is_dir() and "cclab_tcpgt" in registered_ccs()
    # ...until the next start removes them.
    with Bed(20e6, 50, None, 0.01, 0.01) as tb:
        assert f"cgroup {cg}" in tb.removed_at_start
        assert any(r.startswith("struct_ops cclab_tcpgt") for r in tb.removed_at_start)
    assert not cg.exists() and "cclab_tcpgt" not in registered_ccs() and not our_cgroups()


@needs_sockops
def test_the_loader_undoes_its_attachments_when_its_run_is_sigkilled() -> None:
    child, _, cg, loader = _start_child()
    child.send_signal(signal.SIGKILL)
    child.wait()
    # The loader asked for SIGTERM at its parent's death: it detaches and unregisters by itself.
    deadline = time.monotonic() + 5
    while _alive(loader) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(loader) and "cclab_tcpgt" not in registered_ccs() and "cclab_tcpgt" not in _attached(cg)
    # The empty cgroup is what remains; a new start removes it.
    with Bed(20e6, 50, None, 0.01, 0.01) as tb:
        assert f"cgroup {cg}" in tb.removed_at_start
    assert not our_cgroups()


@needs_sockops
@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT (Ctrl-C)", "an exception"])
def test_a_stopped_or_failed_run_removes_the_cgroup_the_program_and_the_registration(how: str) -> None:
    child, _, cg, loader = _start_child("raise" if how == "an exception" else "sleep")
    if how != "an exception":
        child.send_signal(signal.SIGTERM if how == "SIGTERM" else signal.SIGINT)
    # The SIGINT child once ran on past 20 s, and past 60 s: the suite ran as a background job, whose
    # children start with SIGINT ignored (default_sigint now restores it). A child that does not
    # finish is killed, not left running.
    try:
        child.wait(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        raise
    assert not cg.exists() and not _alive(loader) and "cclab_tcpgt" not in registered_ccs()
