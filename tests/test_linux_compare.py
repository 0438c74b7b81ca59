"""``cclab compare`` (simulator beside the Linux engine) and the papers' algorithms in BPF
(docs/linux.md). The table test needs nothing; the runs need root and the testbed's tools and
SKIP with the reason otherwise, as tests/test_linux_engine.py does. Runs are short, at 20 Mbit/s,
with margins that scheduling noise on a loaded 2-core machine does not reach.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import cclab
from cclab.linux import bpf
from conftest import quiet_linux_run, lateness
from cclab.linux.host import missing_requirements, registered_ccs

ROOT = Path(__file__).resolve().parents[1]
NO_TESTBED = missing_requirements()
NO_BPF = missing_requirements(bpf=True)
needs_testbed = pytest.mark.skipif(NO_TESTBED is not None, reason=f"Linux testbed unavailable: {NO_TESTBED}")
needs_bpf = pytest.mark.skipif(NO_BPF is not None, reason=f"BPF congestion controls unavailable: {NO_BPF}")
# The child runs the cclab this test imported (an installed wheel in CI, a source tree elsewhere).
ENV = {**os.environ, "PYTHONPATH": str(Path(cclab.__file__).resolve().parents[1])}


def dumbbell(cc: str = "reno", duration: str = "6s", flows: int = 1) -> dict:
    return {
        "name": "linux-compare-test", "duration": duration, "warmup": "2s", "sample_interval": "100ms",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "20Mbps", "delay": "18ms", "buffer": "1bdp"}},
        "flows": [{"cc": cc, "rtt": "40ms", "count": flows}],
    }


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cclab", "compare", *args], capture_output=True, text=True,
                          timeout=timeout, env=ENV)


# -- refusals (no root needed) --------------------------------------------------------------------


@pytest.mark.parametrize("flags, line", [
    (["--engines", "sim,ns3"], "error: --engines: invalid value 'sim,ns3'; accepted: sim,linux"),
    (["--seeds", "0"], "error: --seeds: 0: accepted: 1 to 20 Linux repetitions"),
    (["--flow", "2"], "error: --flow: 2: accepted: 0 to 1 (the scenario has 2 flow(s))"),
])
def test_compare_refuses_a_bad_flag_in_one_line_naming_it(tmp_path: Path, flags: list, line: str) -> None:
    sc = tmp_path / "s.toml"
    sc.write_text(cclab.to_toml(dumbbell(flows=2)))
    p = cli(str(sc), *flags, "--out", str(tmp_path / "o"))
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [line]
    assert not (tmp_path / "o").exists()


def test_compare_refuses_what_the_linux_engine_refuses_before_simulating(tmp_path: Path) -> None:
    bad = dumbbell()
    bad["topology"]["bottleneck"]["queue"] = "red"
    sc = tmp_path / "red.toml"
    sc.write_text(cclab.to_toml(bad))
    p = cli(str(sc), "--out", str(tmp_path / "o"), timeout=60)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: topology.bottleneck.queue: 'red'")
    assert not (tmp_path / "o").exists()


# -- gHSTCP's tables (no root needed) -------------------------------------------------------------


def _header() -> str:
    return (ROOT / "python/cclab/linux/bpf/cclab_ghstcp_tables.h").read_text()


def test_the_ghstcp_header_is_what_its_generator_writes() -> None:
    sys.path.insert(0, str(ROOT / "python/cclab/linux/bpf"))
    try:
        import gen_ghstcp_tables
    finally:
        sys.path.pop(0)
    assert gen_ghstcp_tables.header() == _header()


def test_the_ghstcp_aimd_table_holds_the_simulators_a_and_b_in_linux_fixed_point() -> None:
    rows = [(int(w), int(md)) for w, md in re.findall(r"\{(\d+), (\d+)\},", _header())]
    rust = [(int(w), int(a), float(b)) for w, a, b in re.findall(
        r"row\((\d+), (\d+), ([0-9.]+)\)", (ROOT / "crates/cclab-sim/src/cc/highspeed.rs").read_text())]
    assert len(rows) == len(rust) == 72
    for i, ((w, md), (rw, ra, rb)) in enumerate(zip(rows, rust)):
        assert w == rw and ra == i + 1  # a(w) is the row index + 1, as in tcp_highspeed.c
        assert abs(md / 256 - rb) <= 0.5 / 256  # b(w) in 8 fractional bits
    # Hand-checked rows: b(38) = 0.5 -> 128; b(118) = 0.44 -> 112.64 -> 113; b(89053) = 0.10 -> 25.6 -> 26.
    assert rows[0] == (38, 128) and rows[1] == (118, 113) and rows[-1] == (89053, 26)
    # And RFC 3649's b(w) formula at each row's window, within the table's 2-digit rounding.
    for w, md in rows[1:]:
        b = (0.1 - 0.5) * (math.log(w) - math.log(38)) / (math.log(83000) - math.log(38)) + 0.5
        assert abs(md / 256 - b) < 0.015, w


def test_the_ghstcp_correlation_bound_is_fishers_z_of_3_09() -> None:
    body = _header().split("GHSTCP_R_MIN[GHSTCP_N_MAX + 1] = {")[1].split("};")[0]
    r_min = [int(v) for v in re.findall(r"\d+", body)]
    assert len(r_min) == 1025 and r_min[:4] == [0, 0, 0, 0]

    def z(r: float, n: int) -> float:  # paper 004, section 3.2
        return 0.5 * math.log((1 + r) / (1 - r)) * math.sqrt(n - 3) if r < 1 else math.inf

    for n in (4, 10, 67, 100, 333, 1024):
        # The bound is the smallest r in 1/1024 steps whose Z exceeds 3.09.
        assert z(r_min[n] / 1024, n) >= 3.09 > z((r_min[n] - 1) / 1024, n), n
    # By hand: tanh(3.09 / sqrt(97)) = 0.30388 -> 311.2 / 1024 -> 312.
    assert r_min[100] == 312


# -- runs (root) ----------------------------------------------------------------------------------


@needs_testbed
def test_compare_on_a_short_reno_scenario_writes_both_engines_rows_and_the_figure(tmp_path: Path) -> None:
    sc = tmp_path / "reno.toml"
    sc.write_text(cclab.to_toml(dumbbell("reno", "6s", flows=2)))
    p = cli(str(sc), "--seeds", "1", "--flow", "1", "--out", str(tmp_path / "o"))
    assert p.returncode == 0, p.stderr
    assert 'stack = "linux"' in p.stdout and "| flow 1 (reno0): goodput (Mbit/s) |" in p.stdout
    t = pd.read_csv(tmp_path / "o" / "compare.csv").set_index("metric")
    assert {"sim", "linux", "rel_diff"} <= set(t.columns)
    # Both engines fill the 20 Mbit/s bottleneck over [2 s, 6 s] (goodput counts wire bytes).
    for side in ("sim", "linux"):
        assert 16 < t.loc["total goodput (Mbit/s)", side] < 21, side
        assert t.loc["flow 1 (reno0): mean cwnd (pkts)", side] > 5
    assert t.loc["total goodput (Mbit/s)", "rel_diff"] == pytest.approx(
        (t.loc["total goodput (Mbit/s)", "sim"] - t.loc["total goodput (Mbit/s)", "linux"])
        / t.loc["total goodput (Mbit/s)", "linux"])
    assert (tmp_path / "o" / "cwnd.png").stat().st_size > 10_000
    assert not registered_ccs()


#: The algorithms whose link use a stalled delay line takes away (conftest.quiet_linux_run).
DELAY_BASED = {"cclab_tcpgt"}


@needs_bpf
# cclab_hrf, its variants and cclab_ktcp are run against the simulator in test_linux_hrf_ktcp.py.
@pytest.mark.parametrize("cc", [n for n in bpf.REGISTRY if n not in (
    "cclab_reno", "cclab_hrf", "cclab_w_cr_reno", "cclab_w_cr_cr", "cclab_ktcp")])
def test_each_papers_bpf_algorithm_loads_and_fills_the_bottleneck(cc: str) -> None:
    if cc in DELAY_BASED:
        res, runs = quiet_linux_run(dumbbell(cc, "8s"))
        if res is None:
            pytest.skip(f"the delay line was late in every run (frames over 1 ms late: {lateness(runs)})")
    else:
        res = cclab.run(dumbbell(cc, "8s"), engine="linux")
    d = res.flow_series.set_index("time_s")["delivered_bytes"]
    late = (d.loc[8.0] - d.loc[4.0]) * 8 / 4.0
    # Over the last half one flow with a 1-BDP buffer delivers the bottleneck's rate within 15 %.
    assert late == pytest.approx(20e6, rel=0.15)
    assert res.flows.loc[0, "cc"] == cc and res.summary()["linux_relay_lost"] == 0
    assert res.flow_series.cwnd.max() > 20  # the window grew: the algorithm ran
    assert not registered_ccs()


@needs_bpf
def test_cclab_ubr_shows_its_extra_windows_phase_in_cc_series() -> None:
    # Under-buffered (a fifth of a BDP): after the first cycle measures W_full, the extra window
    # fills the capacity Reno leaves unused (paper 003, eq. (4)).
    sc = dumbbell("cclab_ubr", "10s")
    sc["topology"]["bottleneck"]["buffer"] = "0.2bdp"
    res = cclab.run(sc, engine="linux")
    cs = res.cc_series
    assert len(cs) >= 0.9 * len(res.flow_series) and cs["state"].iloc[0] == "none"
    assert set(cs["state"]) <= {"none", "filling", "full"} and "filling" in set(cs["state"])
    assert not registered_ccs()
