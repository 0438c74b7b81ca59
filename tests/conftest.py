"""Shared fixtures: small scenarios that run in well under a second each."""

from __future__ import annotations

import copy
import os
import tempfile
from pathlib import Path

import pytest

import cclab

# The tests keep their runs in a store of their own (cclab.store), never in the user's.
os.environ["CCLAB_STORE"] = tempfile.mkdtemp(prefix="cclab-test-store-")

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"


@pytest.fixture(scope="session")
def quickstart_path() -> Path:
    return SCENARIOS / "quickstart.toml"


@pytest.fixture(scope="session")
def _quick() -> dict:
    sc = cclab.load_scenario(SCENARIOS / "quickstart.toml")
    sc["duration"] = "10s"
    return sc


@pytest.fixture
def quick(_quick: dict) -> dict:
    """quickstart.toml cut to 10 s: 4 NewReno/SACK flows, 100 Mbit/s, 40 ms, 1 BDP, a fresh copy per test."""
    return copy.deepcopy(_quick)


@pytest.fixture(scope="session")
def quick_result(_quick: dict) -> cclab.Result:
    """One run of the 10 s quickstart, shared by the read-only tests."""
    return cclab.run(copy.deepcopy(_quick), seed=7)


def default_sigint() -> None:
    """For a child meant to be stopped by Ctrl-C (``Popen(..., preexec_fn=default_sigint)``): a
    shell's background job starts with SIGINT ignored, a child inherits that, and Python then
    installs no KeyboardInterrupt handler; restore the default."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def quiet_linux_run(sc: dict, tries: int = 4, late_share: float = 0.0025) -> tuple:
    """Runs ``sc`` on the Linux engine until the delay line kept time: at most ``late_share`` of
    its frames found due over 1 ms late. Returns (that run or None, every run made). For tests
    of a delay-based algorithm: TCP-GT decreases once an epoch is 2.5 ms longer than the base
    RTT, so a host that stalls the relay fakes a queue and the flow gives up link for it.
    docs/linux.md ("Idle cores") has 18 runs of the
    one-flow test scenario: the 13 at or under this share kept 43.7-47.7 of 50 Mbit/s, the 5
    over it 38.3-43.9. The test then asserts the algorithm's link use on the quiet run, and
    skips, with the lateness measured, when the host gave none."""
    import warnings

    runs = []
    for _ in range(tries):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the lateness warning: measured here instead
            res = cclab.run(sc, engine="linux")
        runs.append(res)
        s = res.summary()
        if s["linux_relay_late_over_1ms"] <= late_share * s["linux_relay_frames"]:
            return res, runs
    return None, runs


def lateness(runs: list) -> str:
    """Each run's share of frames the delay line found over 1 ms late, for a skip's reason."""
    return ", ".join(f"{100 * r.summary()['linux_relay_late_over_1ms'] / r.summary()['linux_relay_frames']:.2f} %"
                     for r in runs)
