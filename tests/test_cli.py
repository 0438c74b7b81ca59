"""The cclab command: in process through typer's CliRunner, and once as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import cclab
from conftest import default_sigint
from cclab.cli import app

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), prog_name="cclab")


def one_error_line(res) -> str:
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert "Traceback" not in res.output
    return lines[0]


@pytest.fixture
def short_quickstart(tmp_path, quickstart_path) -> Path:
    p = tmp_path / "quick.toml"
    p.write_text(quickstart_path.read_text().replace('duration = "30s"', 'duration = "5s"'))
    return p


def test_run_writes_report_plot_and_tables(short_quickstart, tmp_path):
    out = tmp_path / "out"
    res = invoke("run", str(short_quickstart), "--out", str(out), "--plot")
    assert res.exit_code == 0, res.output
    for name in ("report.md", "plot.png", "summary.json", "scenario.toml", "flows.parquet",
                 "queues.parquet", "links.parquet", "flow_series.parquet", "queue_series.parquet"):
        assert (out / name).is_file(), name
    assert (out / "plot.png").stat().st_size > 20_000
    assert (out / "report.md").read_text().startswith("# cclab: quickstart")
    assert len(pd.read_parquet(out / "flows.parquet")) == 4
    # The summary printed: a row per flow and the headline numbers.
    for i in range(4):
        assert f"newreno.{i}" in res.stdout
    for label in ("bottleneck utilization", "Jain", "wall time", "events", "packets/s"):
        assert label in res.stdout, label
    assert res.stderr == ""


def test_run_with_seed_matches_the_python_api(short_quickstart, tmp_path):
    res = invoke("run", str(short_quickstart), "--out", str(tmp_path / "o"), "--seed", "9", "--quiet")
    assert res.exit_code == 0, res.output
    assert res.stdout == ""
    saved = cclab.load(tmp_path / "o")
    direct = cclab.run(short_quickstart, seed=9)
    assert saved.seed == 9
    pd.testing.assert_frame_equal(saved.flows, direct.flows, check_exact=True)


def test_run_default_folder_is_named_after_the_scenario(short_quickstart, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = invoke("run", str(short_quickstart), "-q")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "cclab-out" / "quickstart" / "report.md").is_file()


@pytest.mark.parametrize(
    "args, field",
    [
        (["run", "missing.toml"], "missing.toml"),
        (["run", "{quick}", "--seed", "-1"], "seed"),
        (["run", "{quick}", "--seed", "abc"], "--seed"),
        (["run", "{quick}", "--sed", "1"], "--sed"),
        (["run", "{bad}"], "flows[0].cc"),
        (["check", "{bad}"], "flows[0].cc"),
        (["run"], "scenario"),
        (["frobnicate"], "usage"),
    ],
    ids=["missing-file", "negative-seed", "seed-not-a-number", "unknown-flag", "bad-scenario",
         "check-bad-scenario", "no-scenario", "unknown-command"],
)
def test_user_errors_print_one_line_and_exit_2(args, field, short_quickstart, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(short_quickstart.read_text().replace('cc = "newreno"', 'cc = "renoo"'))
    args = [a.format(quick=short_quickstart, bad=bad) for a in args]
    res = invoke(*args)
    assert res.exit_code == 2, res.output
    line = one_error_line(res)
    assert line.startswith(f"error: {field}: "), line


def test_plot_without_time_series_is_a_user_error(short_quickstart, tmp_path):
    p = tmp_path / "noseries.toml"
    p.write_text(short_quickstart.read_text().replace('sample_interval = "100ms"', ""))
    res = invoke("run", str(p), "--plot", "--out", str(tmp_path / "o"))
    assert res.exit_code == 2
    assert "sample_interval" in one_error_line(res)


def test_check_accepts_every_shipped_scenario(quickstart_path):
    for p in sorted(quickstart_path.parent.glob("*.toml")):
        res = invoke("check", str(p))
        assert res.exit_code == 0, (p, res.output)
        assert res.stdout.startswith("ok: ")


def test_algorithms_lists_reno_and_newreno():
    res = invoke("algorithms")
    assert res.exit_code == 0
    words = res.stdout.split()
    assert "reno" in words and "newreno" in words
    assert "sack" in res.stdout


def test_the_installed_command_reports_a_bad_file_in_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('duration = "10s"\n[topology]\nbottleneck = { rate = "100Mbs", delay = "5ms" }\n'
                   '[[flows]]\ncc = "reno"\n')
    env = dict(os.environ, COLUMNS="80")
    out = subprocess.run([sys.executable, "-m", "cclab", "run", str(bad), "--out", str(tmp_path / "o")],
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr.count("\n") == 1
    assert out.stderr.startswith("error: topology.bottleneck.rate: invalid value '100Mbs'"), out.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_a_long_run_within_a_step(tmp_path, quickstart_path):
    import signal
    import time

    long = tmp_path / "long.toml"
    long.write_text(quickstart_path.read_text().replace('duration = "30s"', 'duration = "3000s"'))
    out = tmp_path / "o"
    proc = subprocess.Popen([sys.executable, "-m", "cclab", "run", str(long), "--out", str(out), "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    deadline = time.monotonic() + 30
    while not out.exists() and time.monotonic() < deadline:  # the folder is made just before the run
        time.sleep(0.02)
    time.sleep(0.3)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    print(f"\nstopped {time.monotonic() - t0:.3f} s after SIGINT")
    assert proc.returncode == 130
    assert stderr.strip().splitlines() == ["error: interrupted: stopped by the user"]
    assert not (out / "summary.json").exists()
