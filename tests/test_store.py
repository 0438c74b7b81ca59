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


def test_a_run_under_a_stack_profile_is_keyed_on_that_profiles_version_too(quick, monkeypatch):
    import hashlib
    import json

    from cclab.store import result_versions

    # A scenario naming no profile keeps the key runs had before profiles had versions.
    blob = json.dumps([dict(quick), 1, int(_core.RESULT_VERSION)], sort_keys=True, default=str)
    assert run_key(quick, 1) == hashlib.sha256(blob.encode()).hexdigest()
    ns2 = dict(quick, flows=[dict(g, stack="ns2") for g in quick["flows"]])
    web = dict(quick, web={"stack": "linux"})
    versions = _core.stack_versions()
    assert versions["cclab"] == 0 and versions["ns2"] >= 1 and versions["linux"] >= 1
    assert result_versions(ns2) == [_core.RESULT_VERSION, {"ns2": versions["ns2"]}]
    assert result_versions(web) == [_core.RESULT_VERSION, {"linux": versions["linux"]}]
    assert result_versions(dict(quick, flows=[dict(g, stack="cclab") for g in quick["flows"]])) == [
        _core.RESULT_VERSION]
    k_ns2, k_web, k = run_key(ns2, 1), run_key(web, 1), run_key(quick, 1)
    # Bumping ns2's version moves the ns2 run's key only.
    monkeypatch.setattr(_core, "stack_versions", lambda: dict(versions, ns2=versions["ns2"] + 1))
    assert run_key(ns2, 1) != k_ns2 and run_key(web, 1) == k_web and run_key(quick, 1) == k


def test_a_run_with_ns2s_delayed_send_is_keyed_on_the_overhead_version_too(quick, monkeypatch):
    from cclab.store import result_versions

    ns2 = dict(quick, flows=[dict(g, stack="ns2") for g in quick["flows"]])
    with_overhead = dict(quick, flows=[dict(g, stack="ns2", overhead="12us") for g in quick["flows"]])
    cclab_overhead = dict(quick, flows=[dict(g, overhead="12us") for g in quick["flows"]])
    versions, overhead = _core.stack_versions(), _core.stack_overhead_versions()
    assert overhead["ns2"] >= 1 and "linux" not in overhead and "cclab" not in overhead
    assert result_versions(with_overhead) == [
        _core.RESULT_VERSION, {"ns2": versions["ns2"], "ns2 overhead": overhead["ns2"]}]
    assert result_versions(ns2) == [_core.RESULT_VERSION, {"ns2": versions["ns2"]}]
    assert result_versions(cclab_overhead) == [_core.RESULT_VERSION]
    keys = run_key(with_overhead, 1), run_key(ns2, 1), run_key(cclab_overhead, 1)
    # Bumping the ns2 overhead's version moves the key of the ns2 run with an overhead only.
    monkeypatch.setattr(_core, "stack_overhead_versions", lambda: dict(overhead, ns2=overhead["ns2"] + 1))
    assert run_key(with_overhead, 1) != keys[0]
    assert (run_key(ns2, 1), run_key(cclab_overhead, 1)) == keys[1:]


def test_a_run_with_ns2s_red_is_keyed_on_that_queue_variants_version_too(quick, monkeypatch):
    from cclab.store import result_versions

    red = {"queue": "red", "queue_params": {"min_th": 5}}
    ns2_red = {"queue": "ared", "queue_params": {"ns2": 1}}
    plain = dict(quick, topology=dict(quick["topology"], bottleneck=dict(quick["topology"]["bottleneck"], **red)))
    ns2 = dict(quick, topology=dict(quick["topology"], bottleneck=dict(quick["topology"]["bottleneck"], **ns2_red)))
    queues = _core.queue_versions()
    assert queues["red ns2"] >= 1
    assert result_versions(ns2) == [_core.RESULT_VERSION, {"queue red ns2": queues["red ns2"]}]
    assert result_versions(plain) == [_core.RESULT_VERSION]
    keys = run_key(ns2, 1), run_key(plain, 1), run_key(quick, 1)
    # Bumping the variant's version moves the key of the run with such a queue only.
    monkeypatch.setattr(_core, "queue_versions", lambda: dict(queues, **{"red ns2": queues["red ns2"] + 1}))
    assert run_key(ns2, 1) != keys[0]
    assert (run_key(plain, 1), run_key(quick, 1)) == keys[1:]


def test_a_run_with_a_flow_that_sets_its_own_window_is_keyed_on_the_cong_control_version(quick, monkeypatch):
    from cclab.store import result_versions

    def with_cc(cc, **params):
        groups = [dict(g, cc=cc, **({"cc_params": params} if params else {})) for g in quick["flows"]]
        return dict(quick, flows=groups)

    bbr, bbr3, wrapped = with_cc("bbr"), with_cc("bbr3", beta=76.0), with_cc("bbr+ktcp")
    web = dict(quick, web={"cc": "bbr"})
    cubic, bad = with_cc("cubic"), with_cc("bbr", no_such_param=1.0)
    v = _core.CONG_CONTROL_VERSION
    assert v >= 1
    for sc in (bbr, bbr3, wrapped, web):
        assert result_versions(sc) == [_core.RESULT_VERSION, {"cong_control": v}], sc["flows"][0]
    # Under a stack profile the two versions sit side by side.
    ns2 = dict(bbr, flows=[dict(g, stack="ns2") for g in bbr["flows"]])
    assert result_versions(ns2) == [_core.RESULT_VERSION, {"cong_control": v, "ns2": _core.stack_versions()["ns2"]}]
    # An algorithm that grows the window per ACK, and one that does not build, are not keyed on it.
    assert result_versions(cubic) == result_versions(quick) == result_versions(bad) == [_core.RESULT_VERSION]
    keys = run_key(bbr, 1), run_key(cubic, 1), run_key(quick, 1)
    monkeypatch.setattr(_core, "CONG_CONTROL_VERSION", v + 1)
    assert run_key(bbr, 1) != keys[0]
    assert (run_key(cubic, 1), run_key(quick, 1)) == keys[1:]


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
