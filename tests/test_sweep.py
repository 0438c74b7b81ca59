"""Parameter sweeps: definitions and their validation, derived seeds, the local
process pool and Dask, resuming after SIGINT and SIGKILL, failed runs, statistics."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pandas.testing as pdt
import pytest
from typer.testing import CliRunner

import cclab
from conftest import default_sigint
from cclab.cli import app
from cclab.sweep import TIMING_COLUMNS, Sweep, SweepError, derive_seed, execute, run_id, t_quantile

ROOT = Path(__file__).resolve().parents[1]

# 10 Mbit/s, 20 ms round trip, 5 s simulated: a few milliseconds of simulation per run.
BASE = {
    "name": "tiny",
    "duration": "5s",
    "sample_interval": "500ms",
    "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "8ms", "buffer": "1bdp"}},
    "flows": [{"cc": "newreno", "count": 2, "rtt": "20ms", "start_spread": "1s"}],
}
BUFFERS = ["0.25bdp", "0.5bdp", "1bdp", "2bdp"]
CCS = ["newreno", "cubic", "htcp", "bic", "scalable"]
# 4 x 5 points x 2 replications = 40 runs.
DEFINITION = {
    "name": "tiny",
    "base": BASE,
    "seed": 11,
    "replications": 2,
    "grid": {"topology.bottleneck.buffer": BUFFERS, "flows[0].cc": CCS},
}
SWEEP_TOML = """\
name = "tiny"
seed = 11
replications = 2
[grid]
"topology.bottleneck.buffer" = {buffers}
"flows[0].cc" = {ccs}
[base]
name = "tiny"
duration = "5s"
sample_interval = "500ms"
[base.topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "8ms", buffer = "1bdp" }}
[[base.flows]]
cc = "newreno"
count = 2
rtt = "20ms"
start_spread = "1s"
""".format(buffers=json.dumps(BUFFERS), ccs=json.dumps(CCS))


def comparable(df: pd.DataFrame) -> pd.DataFrame:
    """A sweep table without the wall-clock columns, sorted by run id."""
    return df.drop(columns=list(TIMING_COLUMNS)).sort_values("run_id").reset_index(drop=True)


def done_runs(out: Path) -> list:
    runs = out / "runs"
    return sorted(p.name for p in runs.iterdir() if not p.name.startswith(".")) if runs.is_dir() else []


def cli_env() -> dict:
    """The environment for `python -m cclab` to import the cclab these tests import."""
    env = dict(os.environ)
    pkg_parent = str(Path(cclab.__file__).resolve().parents[1])
    env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


@pytest.fixture(scope="module")
def sweep_file(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("def") / "tiny.toml"
    p.write_text(SWEEP_TOML, encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> pd.DataFrame:
    """The 40-run sweep, uninterrupted, on two local processes."""
    out = tmp_path_factory.mktemp("ref") / "out"
    return cclab.sweep(DEFINITION, out, jobs=2)


# -- the definition -----------------------------------------------------------------------------


def test_toml_and_dict_definitions_are_the_same_sweep(sweep_file):
    a, b = Sweep.load(sweep_file), Sweep.from_dict(DEFINITION)
    assert [r.run_id for r in a.runs()] == [r.run_id for r in b.runs()]
    assert len(a.runs()) == 40 and a.params == ["topology.bottleneck.buffer", "flows[0].cc"]
    # The grid is a cartesian product, the first path varying slowest.
    assert a.points[:2] == [{"topology.bottleneck.buffer": "0.25bdp", "flows[0].cc": "newreno"},
                            {"topology.bottleneck.buffer": "0.25bdp", "flows[0].cc": "cubic"}]
    sc = a.scenario(7)
    assert sc["topology"]["bottleneck"]["buffer"] == "0.5bdp" and sc["flows"][0]["cc"] == "htcp"
    assert BASE["flows"][0]["cc"] == "newreno"  # the base is not modified


def test_run_ids_and_seeds_are_the_documented_hashes():
    params = {"topology.bottleneck.buffer": "0.5bdp", "flows[0].cc": "cubic"}

    def canonical(o):
        return json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    key = canonical({"params": params, "replication": 1})
    assert run_id(params, 1) == hashlib.sha256(key.encode()).hexdigest()[:16]
    seed_key = canonical({"params": params, "replication": 1, "seed": 11})
    assert derive_seed(11, params, 1) == int.from_bytes(hashlib.sha256(seed_key.encode()).digest()[:8], "big") >> 1
    # The order the paths are written in does not matter; the values, the replication and the master seed do.
    assert run_id(dict(reversed(list(params.items()))), 1) == run_id(params, 1)
    assert len({derive_seed(11, params, 0), derive_seed(11, params, 1), derive_seed(12, params, 1)}) == 3


def test_adding_points_and_replications_changes_no_other_run():
    small = Sweep.from_dict(DEFINITION)
    bigger = Sweep.from_dict({**DEFINITION, "replications": 3,
                              "grid": {"topology.bottleneck.buffer": ["0.1bdp"] + BUFFERS, "flows[0].cc": CCS}})
    old = {r.run_id: (r.params, r.replication, r.seed) for r in small.runs()}
    new = {r.run_id: (r.params, r.replication, r.seed) for r in bigger.runs()}
    assert len(new) == 75 and set(old) < set(new)
    assert all(new[k] == v for k, v in old.items())


def test_points_crossed_with_a_grid_and_nested_queue_params():
    sw = Sweep.from_dict({
        "base": BASE,
        "points": [{"topology.bottleneck.queue": "red"}, {"topology.bottleneck.queue": "gared"}],
        "grid": {"topology.bottleneck.queue_params.min_th": [3, 5]},
    })
    assert len(sw.points) == 4
    assert sw.scenario(3)["topology"]["bottleneck"] == {
        "rate": "10Mbps", "delay": "8ms", "buffer": "1bdp", "queue": "gared", "queue_params": {"min_th": 5}}


# -- validation before anything runs ----------------------------------------------------------------


def grid_of_100_with_a_bad_37th() -> dict:
    values = [f"{k}pkts" for k in range(1, 101)]
    values[36] = "-1bdp"
    return {"topology.bottleneck.buffer": values}


BAD = {
    "unknown path": ({"grid": {"topology.bottleneck.bufer": ["1bdp", "2bdp"]}},
                     "topology.bottleneck.bufer", "unknown parameter path", None),
    "index past the base's list": ({"grid": {"flows[1].count": [1, 2]}},
                                   "flows[1].count", "unknown parameter path", None),
    "empty grid": ({"grid": {}}, "grid", "empty", None),
    "empty list of values": ({"grid": {"flows[0].cc": []}}, "flows[0].cc", "empty", None),
    "bad value in point 37 of 100": ({"grid": grid_of_100_with_a_bad_37th()},
                                     "topology.bottleneck.buffer", "point 37 of 100", 37),
    "unknown algorithm in one point": ({"points": [{"flows[0].cc": "cubic"}, {"flows[0].cc": "cubbic"}]},
                                       "flows[0].cc", "point 2 of 2", 2),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_definitions_are_reported_before_anything_runs(case, tmp_path):
    change, field, words, point = BAD[case]
    out = tmp_path / "out"
    with pytest.raises(SweepError) as ei:
        cclab.sweep({"base": BASE, "replications": 2, **change}, out, jobs=1)
    e = ei.value
    assert e.field == field and words in str(e) and isinstance(e, cclab.ScenarioError)
    assert e.point == point
    if case == "bad value in point 37 of 100":
        assert e.value == "-1bdp" and '"-1bdp"' in str(e) and e.params == {field: "-1bdp"}
    assert not out.exists()


def test_cli_reports_a_bad_point_in_one_line_and_creates_nothing(tmp_path):
    bad = SWEEP_TOML.replace('"2bdp"', '"-2bdp"')
    f = tmp_path / "bad.toml"
    f.write_text(bad, encoding="utf-8")
    res = CliRunner().invoke(app, ["sweep", str(f), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    msg = " ".join(res.output.split())  # rich may wrap the line at the terminal's width
    assert "error: topology.bottleneck.buffer: point 16 of 20" in msg and "-2bdp" in msg
    assert not (tmp_path / "out").exists()


def test_a_folder_of_another_sweep_is_refused(tmp_path):
    out = tmp_path / "out"
    small = {**DEFINITION, "grid": {"topology.bottleneck.buffer": ["1bdp"]}, "replications": 1}
    cclab.sweep(small, out, jobs=1)
    changed = copy.deepcopy(small)
    changed["base"]["duration"] = "6s"
    with pytest.raises(SweepError, match="holds another sweep .its base scenario differs"):
        cclab.sweep(changed, out, jobs=1)
    assert len(done_runs(out)) == 1


# -- results -------------------------------------------------------------------------------------


def test_table_has_a_row_per_run_with_parameters_seed_and_summary(reference):
    df = reference
    assert len(df) == 40 and df["run_id"].is_unique and (df["status"] == "ok").all()
    # Each parameter, then (for one written with a unit) its resolved value, then the run's keys.
    assert list(df.columns[:7]) == ["topology.bottleneck.buffer", "topology.bottleneck.buffer:value", "flows[0].cc",
                                    "replication", "seed", "run_id", "status"]
    assert {"bottleneck_utilization", "total_goodput_bps", "jain_index"} <= set(df.columns)
    assert df.groupby(["topology.bottleneck.buffer", "flows[0].cc"]).size().eq(2).all()
    sw = Sweep.from_dict(DEFINITION)
    assert df["seed"].tolist() == [r.seed for r in sw.runs()]


def test_same_seed_same_results_and_replications_differ(reference, tmp_path):
    sw = Sweep.from_dict(DEFINITION)
    # A run again with its seed, outside the sweep: the same numbers.
    row = reference.iloc[13]
    point = sw.points.index({"topology.bottleneck.buffer": row["topology.bottleneck.buffer"],
                             "flows[0].cc": row["flows[0].cc"]})
    again = cclab.run(sw.scenario(point), seed=int(row["seed"])).summary()
    for k in ("total_goodput_bps", "data_sent", "bottleneck_drops", "events", "jain_index"):
        assert again[k] == row[k], k
    # The saved run folder is the whole Result.
    saved = cclab.load(_ref_dir(reference) / row["run_id"])
    assert saved.seed == row["seed"] and saved.summary()["events"] == row["events"]
    # Two replications of a point (different seeds, random start times) differ.
    for _, g in reference.groupby(["topology.bottleneck.buffer", "flows[0].cc"]):
        assert g["seed"].nunique() == 2
        assert g["events"].nunique() == 2


def _ref_dir(df: pd.DataFrame) -> Path:
    return Path(df.attrs["directory"]) / "runs"


def test_local_processes_and_dask_give_identical_tables(reference, tmp_path, monkeypatch):
    from dask.distributed import LocalCluster

    monkeypatch.setenv("CCLAB_STORE", str(tmp_path / "store"))  # an empty store: every run is simulated on Dask
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        on_dask = cclab.sweep(DEFINITION, tmp_path / "dask", dask=cluster.scheduler_address)
    assert len(on_dask) == 40 and (on_dask["status"] == "ok").all()
    pdt.assert_frame_equal(comparable(on_dask), comparable(reference))
    # The run folders are the same too: a time series compared.
    rid = reference["run_id"].iloc[5]
    a = cclab.load(tmp_path / "dask" / "runs" / rid).flow_series
    b = cclab.load(_ref_dir(reference) / rid).flow_series
    pdt.assert_frame_equal(a, b)


# -- interrupted and resumed -------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["SIGINT", "SIGKILL"])
def test_a_killed_sweep_resumes_without_redoing_or_losing_runs(how, sweep_file, reference, tmp_path, monkeypatch):
    out = tmp_path / "out"
    monkeypatch.setenv("CCLAB_STORE", str(tmp_path / "store"))  # empty: the runs are simulated, not read back
    cmd = [sys.executable, "-m", "cclab", "sweep", str(sweep_file), "--out", str(out), "--jobs", "2"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(),
                            start_new_session=True, preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 60
        while len(done_runs(out)) < 3:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no run finished within 60 s"
            time.sleep(0.002)
        if how == "SIGINT":
            os.kill(proc.pid, signal.SIGINT)  # the command only; its workers are stopped by it
        else:
            os.killpg(proc.pid, signal.SIGKILL)  # the command and its worker processes
        _, err = proc.communicate(timeout=60)
    finally:  # should it hang, nothing of it outlives the test (to warn in a later one)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
    if how == "SIGINT":
        assert proc.returncode == 130 and "interrupted" in err, err
    else:
        assert proc.returncode == -signal.SIGKILL
    time.sleep(0.2)
    finished = done_runs(out)
    assert 3 <= len(finished) < 40, "the sweep was not stopped midway"
    stamps = {r: (out / "runs" / r / "run.json").stat() for r in finished}

    again = subprocess.run(cmd + ["-q"], capture_output=True, text=True, env=cli_env(),
                           timeout=120)
    assert again.returncode == 0, again.stderr
    for r, st in stamps.items():  # the runs finished before the kill were not run again
        now = (out / "runs" / r / "run.json").stat()
        assert (now.st_ino, now.st_mtime_ns) == (st.st_ino, st.st_mtime_ns), r
    names = [p.name for p in (out / "runs").iterdir()]
    assert sorted(names) == sorted(r.run_id for r in Sweep.from_dict(DEFINITION).runs())  # each once, no leftovers
    df = cclab.load_sweep(out)
    assert df["run_id"].is_unique and len(df) == 40
    pdt.assert_frame_equal(comparable(df), comparable(reference))


# -- failed runs ------------------------------------------------------------------------------------


def run_failing_on_bic(scenario, seed):
    """A run function for the workers: fails at run time for cc = bic (which passes validation)."""
    if scenario["flows"][0]["cc"] == "bic":
        raise RuntimeError("simulated failure for bic")
    return cclab.run(scenario, seed=seed)


def test_a_failing_run_is_recorded_and_the_others_complete(tmp_path):
    definition = {**DEFINITION, "grid": {"topology.bottleneck.buffer": ["1bdp"], "flows[0].cc": CCS}}
    out = tmp_path / "out"
    report = execute(definition, out, jobs=2, run=run_failing_on_bic)
    assert report.ok == 8 and len(report.failed) == 2
    assert {f["params"]["flows[0].cc"] for f in report.failed} == {"bic"}
    df = cclab.load_sweep(out)
    failed = df[df["status"] == "failed"]
    assert len(df) == 10 and list(failed["flows[0].cc"]) == ["bic", "bic"]
    assert failed["error"].str.contains("RuntimeError: simulated failure for bic").all()
    assert failed["total_goodput_bps"].isna().all() and df.loc[df.status == "ok", "total_goodput_bps"].gt(0).all()
    tb = (out / "runs" / failed["run_id"].iloc[0] / "error.txt").read_text()
    assert "Traceback" in tb and "run_failing_on_bic" in tb
    # Statistics leave failed runs out.
    st = cclab.sweep_stats(df, "total_goodput_bps")
    assert st.set_index("flows[0].cc").loc["bic", "n"] == 0 and st["n"].sum() == 8
    # Run again with a working run function: only the failed runs run.
    ok_before = {r: (out / "runs" / r / "run.json").stat().st_mtime_ns for r in df.loc[df.status == "ok", "run_id"]}
    again = execute(definition, out, jobs=1)
    assert (again.skipped, again.ok, again.failed) == (8, 2, [])
    assert all((out / "runs" / r / "run.json").stat().st_mtime_ns == t for r, t in ok_before.items())
    assert (cclab.load_sweep(out)["status"] == "ok").all()


def test_cli_lists_failures_and_exits_1(sweep_file, tmp_path, monkeypatch):
    def failing(scenario, seed):
        if scenario["topology"]["bottleneck"]["buffer"] == "2bdp":
            raise ValueError("no room for this one")
        return real(scenario, seed=seed)

    real = sys.modules["cclab.run"].run
    monkeypatch.setattr(sys.modules["cclab.run"], "run", failing)  # in this process: --jobs 1
    monkeypatch.setenv("CCLAB_STORE", str(tmp_path / "store"))  # an empty store: every run is simulated
    res = CliRunner().invoke(app, ["sweep", str(sweep_file), "--out", str(tmp_path / "o"), "--jobs", "1"],
                             terminal_width=200)
    assert res.exit_code == 1, res.output
    assert re.search(r"failed\s*│\s*10\b", res.output) and re.search(r"finished now\s*│\s*30\b", res.output)
    df = cclab.load_sweep(tmp_path / "o")
    failed = df.loc[df["status"] == "failed", "run_id"]
    assert len(failed) == 10 and all(r in res.output for r in failed)  # every failure is listed
    assert "ValueError: no room for" in res.output


# -- statistics --------------------------------------------------------------------------------------


def test_t_quantiles_match_the_table():
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 10: 2.228, 30: 2.042, 120: 1.980}
    for df, t in table.items():
        assert abs(t_quantile(0.95, df) - t) < 5e-4, df
    assert abs(t_quantile(0.99, 5) - 4.032) < 5e-4 and abs(t_quantile(0.90, 2) - 2.920) < 5e-4


def test_sweep_stats_mean_std_n_and_ci():
    df = pd.DataFrame({
        "p": ["a"] * 4 + ["b"] * 2 + ["c"],
        "replication": [0, 1, 2, 3, 0, 1, 0],
        "seed": range(7),
        "run_id": list("0123456"),
        "status": ["ok"] * 7,
        "x": [1.0, 2.0, 3.0, 4.0, 10.0, 10.0, 5.0],
    })
    st = cclab.sweep_stats(df, "x").set_index("p")
    assert list(st.columns) == ["metric", "n", "mean", "std", "ci95"]
    assert st.loc["a", "n"] == 4 and st.loc["a", "mean"] == 2.5
    assert st.loc["a", "std"] == pytest.approx(1.2909944, rel=1e-6)
    assert st.loc["a", "ci95"] == pytest.approx(3.182446 * 1.2909944 / 2, rel=1e-5)
    assert st.loc["b", "ci95"] == 0.0 and pd.isna(st.loc["c", "ci95"]) and pd.isna(st.loc["c", "std"])
    assert "ci99" in cclab.sweep_stats(df, "x", confidence=0.99).columns


# -- the example and the docs -------------------------------------------------------------------------


def test_example_sweep_runs_and_utilization_grows_with_the_buffer(tmp_path):
    df = cclab.sweep(ROOT / "scenarios" / "sweeps" / "sweep-buffer.toml", tmp_path / "o", jobs=1)
    assert len(df) == 10 and (df["status"] == "ok").all()
    assert (df.groupby("topology.bottleneck.buffer", sort=False)["seed"].nunique() == 2).all()
    means = cclab.sweep_stats(df, "bottleneck_utilization")["mean"].tolist()
    assert means == sorted(means) and means[0] < 0.9 < 0.99 < means[-1]


def test_the_sweep_files_in_docs_are_valid():
    text = (ROOT / "docs" / "sweeps.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", text, flags=re.S)
    import tomllib

    sweeps = [tomllib.loads(b) for b in blocks if "grid" in b or "points" in b]
    assert len(sweeps) >= 2
    for d in sweeps:
        assert Sweep.from_dict(d, root=ROOT / "scenarios" / "sweeps").runs()
