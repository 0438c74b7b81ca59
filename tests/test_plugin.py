"""A congestion control built in its own crate (examples/plugin-cc) and loaded at run time:
built here with cargo, loaded with cclab.load_plugin, run, and compared with the same
algorithm written in Python."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cclab

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
import python_cc  # noqa: E402  (examples/python_cc.py)


def _library_name(stem: str) -> str:
    if sys.platform == "darwin":
        return f"lib{stem}.dylib"
    if sys.platform == "win32":
        return f"{stem}.dll"
    return f"lib{stem}.so"


@pytest.fixture(scope="session")
def plugin_path() -> Path:
    """examples/plugin-cc built in release mode (a workspace member: cclab-sim's build is reused)."""
    cargo = shutil.which("cargo")
    if cargo is None:  # pragma: no cover - CI has cargo (it runs cargo test first)
        pytest.skip("cargo is not installed")
    subprocess.run([cargo, "build", "--release", "--quiet", "-p", "delay-reno"], cwd=ROOT, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = target / "release" / _library_name("delay_reno")
    assert path.is_file(), path
    return path


@pytest.fixture(scope="session")
def loaded(plugin_path: Path) -> list:
    return cclab.load_plugin(plugin_path)


def test_the_example_plugin_loads_once_and_lists_its_algorithm(loaded, plugin_path):
    assert loaded == ["delay-reno"]
    assert cclab.load_plugin(plugin_path) == ["delay-reno"]  # again: the same names, nothing new
    entry = {d["name"]: d for d in cclab._core.registry()}["delay-reno"]
    assert [p["name"] for p in entry["params"]] == ["a", "beta", "target"]
    assert entry["summary"].endswith(f"[plugin {plugin_path.name}]")


def test_the_plugin_checks_its_parameters_by_name(loaded, quick):
    quick["flows"][0].update(cc="delay-reno", cc_params={"target": 20.0})
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.check(quick)
    assert e.value.field == "flows[0].cc_params.target"
    assert "a number in [0.000000001, 10]" in str(e.value)


def test_the_plugin_and_its_python_prototype_give_the_same_results_and_keep_the_queue_short(loaded, quick):
    cclab.register_cc("py-delay-reno", python_cc.DelayReno, replace=True)
    runs = {}
    for name in ["delay-reno", "py-delay-reno", "newreno"]:
        quick["flows"][0]["cc"] = name
        runs[name] = cclab.run(quick)
    plugin, python, newreno = runs["delay-reno"], runs["py-delay-reno"], runs["newreno"]
    for table, x in plugin.tables().items():
        y = python.tables()[table]
        if "cc" in x.columns:
            x, y = x.drop(columns="cc"), y.drop(columns="cc")
        assert x.equals(y), table
    # The brake holds the standing queue near 5 ms (42 packets at 100 Mbit/s) where NewReno fills 1 BDP.
    assert plugin.summary()["bottleneck_mean_queue_pkts"] < 0.5 * newreno.summary()["bottleneck_mean_queue_pkts"]
    assert plugin.summary()["bottleneck_utilization"] > 0.9


def test_what_is_not_a_plugin_is_refused_in_one_line_naming_it(tmp_path):
    with pytest.raises(cclab.PluginError, match=r"^plugin .*nothing\.so: no such file$"):
        cclab.load_plugin(tmp_path / "nothing.so")
    text = tmp_path / "text.so"
    text.write_text("not a library")
    with pytest.raises(cclab.PluginError, match=r"^plugin text\.so: cannot be loaded \("):
        cclab.load_plugin(text)
    core = Path(cclab._core.__file__)
    with pytest.raises(cclab.PluginError, match=rf"^plugin {core.name}: no symbol cclab_plugin_entry: not a cclab plugin"):
        cclab.load_plugin(core)
