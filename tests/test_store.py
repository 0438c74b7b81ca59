"""The run store: keyed by scenario, seed and result version; survives what does not change results."""

from __future__ import annotations

import pandas as pd
import pytest

import cclab
from cclab import _core
from cclab.store import RunStore, run_key


def test_a_stored_run_is_returned_whole_and_not_simulated_again(quick, tmp_path, monkeypatch):
    quick["duration"] = "3s"
    store = RunStore(tmp_path)
    assert store.get(quick, 1) is None
    first = store.run(quick, 1)
    import sys

    run_mod = sys.modules["cclab.run"]  # the module, which the package's ``run`` function shadows

    def boom(*a, **k):
        raise AssertionError("simulated although stored")

    monkeypatch.setattr(run_mod, "run", boom)
    again = store.run(quick, 1)
    for name, df in first.tables().items():
        pd.testing.assert_frame_equal(df, again.tables()[name], check_exact=True)
    assert again.summary()["bottleneck_utilization"] == first.summary()["bottleneck_utilization"]


def test_the_key_changes_with_scenario_seed_and_result_version(quick, monkeypatch):
    k = run_key(quick, 1)
    assert run_key(quick, 2) != k
    other = dict(quick, duration="11s")
    assert run_key(other, 1) != k
    assert run_key(dict(quick), 1) == k  # same content, same key
    monkeypatch.setattr(_core, "RESULT_VERSION", _core.RESULT_VERSION + 1, raising=False)
    assert run_key(quick, 1) != k


def test_a_damaged_entry_is_a_miss_and_is_replaced(quick, tmp_path):
    quick["duration"] = "2s"
    store = RunStore(tmp_path)
    p = store.path(quick, 1)
    p.mkdir(parents=True)
    (p / "summary.json").write_text("{not json")
    assert store.get(quick, 1) is None
    store.put(quick, 1, cclab.run(quick, seed=1), overwrite=True)
    assert store.get(quick, 1) is not None


def test_the_store_root_follows_the_environment(monkeypatch, tmp_path):
    from cclab.store import default_root

    monkeypatch.setenv("CCLAB_STORE", str(tmp_path / "s"))
    assert default_root() == tmp_path / "s"
    monkeypatch.delenv("CCLAB_STORE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert default_root() == tmp_path / "x" / "cclab" / "runs"


@pytest.mark.parametrize("field", ["RESULT_VERSION"])
def test_the_core_exposes_its_result_version(field):
    assert isinstance(getattr(_core, field), int) and getattr(_core, field) >= 1
