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
