"""The shared runner (cclab.runner) under `cclab sweep` and `cclab reproduce`: workers die with
their parent, a worker that dies fails its own run only, a rerun resumes from the run store,
an unreachable Dask scheduler fails before anything is written; scipy's t quantile."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import cclab
from cclab.cli import app
from conftest import default_sigint
from cclab.runner import Job, run_jobs
from cclab.store import RunStore
from cclab.sweep import SweepError, execute, t_quantile

BASE = {
    "name": "tiny",
    "duration": "3s",
    "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "8ms", "buffer": "1bdp"}},
    "flows": [{"cc": "newreno", "count": 2, "rtt": "20ms"}],
}
CCS = ["newreno", "cubic", "htcp", "bic", "scalable"]
DEFINITION = {"name": "tiny", "base": BASE, "seed": 3, "replications": 2, "grid": {"flows[0].cc": CCS}}


def cli_env(store: Path) -> dict:
    env = dict(os.environ, CCLAB_STORE=str(store))
    pkg_parent = str(Path(cclab.__file__).resolve().parents[1])
    env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def children(pid: int) -> list:
    """The live (not zombie) child processes of ``pid``, from /proc."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, ...
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(d.name))
    return out


def alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_sweep_workers_die_when_only_the_parent_is_killed(tmp_path):
    # 8 runs of about a second each on two workers: long enough to kill the parent midway.
    slow = dict(BASE, duration="20s", topology={"kind": "dumbbell", "bottleneck": {
        "rate": "1Gbps", "delay": "8ms", "buffer": "1bdp"}})
    f = tmp_path / "slow.toml"
    (tmp_path / "base.toml").write_text(cclab.to_toml(slow), encoding="utf-8")
    f.write_text('name = "slow"\nbase = "base.toml"\nreplications = 2\n[grid]\n"flows[0].cc" = '
                 + json.dumps(CCS[:4]) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    err = tmp_path / "stderr.txt"
    with open(err, "w") as e:
        proc = subprocess.Popen([sys.executable, "-m", "cclab", "sweep", str(f), "--out", str(out), "--jobs", "2",
                                 "-q"], stdout=subprocess.DEVNULL, stderr=e, env=cli_env(tmp_path / "store"),
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        workers: list = []
        while len(workers) < 2:  # the two spawned workers (and the resource tracker) are its children
            assert proc.poll() is None, err.read_text()
            assert time.monotonic() < deadline, "no workers within 120 s"
            workers = [p for p in children(proc.pid)
                       if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()]
            time.sleep(0.05)
        kids = children(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)  # the parent only, not its process group
        proc.wait(timeout=30)
        deadline = time.monotonic() + 5
        while any(alive(p) for p in kids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [p for p in kids if alive(p)], "children outlived their parent by 5 s"
        assert len([p for p in (out / "runs").iterdir() if not p.name.startswith(".")]) < 8
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever is left, should the test fail
        except ProcessLookupError:
            pass


# A script that runs many jobs whose results are large (30 MB: many writes to the result pipe
# each), so that Ctrl-C often kills a worker midway through sending one.
BIG_WORK = """\
import os, signal, struct
from multiprocessing import connection


def big(job):
    return b"x" * 30_000_000


def big_for_three(job):
    return b"x" * 30_000_000 if job.scenario["i"] == 3 else b"ok"


def die_midway_through_big_messages():
    \"\"\"A worker's init: a message of over 1 MB is sent half, then the worker dies (SIGKILL), as
    one the OOM killer takes while it sends its result.\"\"\"
    def half_then_die(self, buf):
        buf = bytes(buf)
        if len(buf) > 1_000_000:
            self._send(struct.pack("!i", len(buf)) + buf[: len(buf) // 2])
            os.kill(os.getpid(), signal.SIGKILL)
        send(self, buf)

    send = connection.Connection._send_bytes
    connection.Connection._send_bytes = half_then_die
"""
BIG_SCRIPT = """\
import sys
from cclab.runner import Job, run_jobs
import bigwork

if __name__ == "__main__":
    try:
        run_jobs([Job(scenario={"i": i}, seed=i) for i in range(1000)], workers=2, work=bigwork.big,
                 on_done=lambda d: print("done", flush=True))
    except KeyboardInterrupt:
        sys.exit(130)
"""


def with_script(tmp_path: Path, script: str) -> dict:
    """Writes bigwork.py and script.py to tmp_path; the environment that imports both."""
    (tmp_path / "bigwork.py").write_text(BIG_WORK, encoding="utf-8")
    (tmp_path / "script.py").write_text(script, encoding="utf-8")
    env = cli_env(tmp_path / "store")
    env["PYTHONPATH"] = str(tmp_path) + os.pathsep + env["PYTHONPATH"]
    return env


def kill_group(proc: subprocess.Popen) -> None:
    """Whatever is left of a child started in its own session, should the test fail."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()


def test_ctrl_c_while_a_worker_sends_a_large_result_exits_at_once(tmp_path):
    # A worker killed halfway through a result used to leave the pool's manager thread waiting for
    # the rest, and the interpreter's exit waiting for that thread: 9 hangs in 10 before the fix.
    env = with_script(tmp_path, BIG_SCRIPT)
    for attempt in range(3):
        proc = subprocess.Popen([sys.executable, str(tmp_path / "script.py")], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
                                preexec_fn=default_sigint)
        try:
            for _ in range(2 + attempt):  # results coming in
                assert proc.stdout.readline() == "done\n", proc.communicate()
            os.kill(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=30)
            assert proc.returncode == 130, err
            assert "Exception ignored" not in err, err
        finally:
            kill_group(proc)


DYING_SCRIPT = """\
import sys
from cclab.runner import Job, run_jobs
import bigwork

if __name__ == "__main__":
    done = run_jobs([Job(scenario={"i": i}, seed=i) for i in range(8)], workers=2, work=bigwork.big_for_three,
                    init=bigwork.die_midway_through_big_messages)
    for d in sorted(done, key=lambda d: d.job.seed):
        print(d.job.seed, d.ok, d.error or "")
"""


def test_a_worker_that_dies_midway_through_its_result_fails_that_run_and_the_others_finish(tmp_path):
    # Before, the pool waited for the rest of the message for ever, the worker's death unreported.
    env = with_script(tmp_path, DYING_SCRIPT)
    proc = subprocess.Popen([sys.executable, str(tmp_path / "script.py")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        kill_group(proc)
    assert proc.returncode == 0, err
    rows = [line.split(" ", 2) for line in out.splitlines()]
    assert [r[0] for r in rows] == [str(i) for i in range(8)], out
    assert [r[1] for r in rows] == ["False" if i == 3 else "True" for i in range(8)], out
    assert "the worker process died while running it (killed by SIGKILL" in rows[3][2], out


def run_killing_its_worker_on_bic(scenario, seed):
    """A run function for the workers: its process dies (SIGKILL, as the OOM killer does) for bic."""
    if scenario["flows"][0]["cc"] == "bic":
        os.kill(os.getpid(), signal.SIGKILL)
    return cclab.run(scenario, seed=seed)


def test_a_worker_that_dies_fails_its_own_run_and_the_others_finish(tmp_path):
    out = tmp_path / "out"
    report = execute(DEFINITION, out, jobs=2, run=run_killing_its_worker_on_bic)
    assert report.ok == 8 and len(report.failed) == 2
    assert {f["params"]["flows[0].cc"] for f in report.failed} == {"bic"}
    for f in report.failed:
        assert "the worker process died while running it (killed by SIGKILL" in f["error"], f["error"]
    df = cclab.load_sweep(out)
    assert (df.loc[df["status"] == "ok", "flows[0].cc"] != "bic").all() and (df["status"] == "ok").sum() == 8


def test_run_jobs_reports_each_job_once_longest_first_in_one_process(tmp_path, monkeypatch):
    monkeypatch.setenv("CCLAB_STORE", str(tmp_path / "store"))
    short, long_ = dict(BASE, duration="1s"), dict(BASE, duration="4s")
    jobs = [Job(short, 1, keep=n_flows, tag="short"), Job(long_, 1, tag="long"),
            Job(short, 2, tag="bad", run=run_raising)]
    done = run_jobs(jobs, workers=1)
    assert [d.job.tag for d in done] == ["long", "short", "bad"]  # equal costs keep their order
    assert isinstance(done[0].value, cclab.Result) and done[1].value == 2  # keep's value: 2 flows
    assert not done[2].ok and done[2].error == "ValueError: no such run" and "run_raising" in done[2].traceback
    # The stored runs are the core's: the custom run function's is not stored.
    store = RunStore()
    assert store.get(long_, 1) is not None and store.get(short, 1) is not None and store.get(short, 2) is None


def n_flows(res):
    return len(res.flows)


def run_raising(scenario, seed):
    raise ValueError("no such run")


def test_a_rerun_takes_runs_from_the_store_without_simulating(tmp_path, monkeypatch):
    monkeypatch.setenv("CCLAB_STORE", str(tmp_path / "store"))
    out = tmp_path / "out"
    execute(DEFINITION, out, jobs=2)
    lost = sorted(p for p in (out / "runs").iterdir())[:3]  # as if killed before these were written
    before = {p.name: cclab.load(p).flows for p in lost}
    for p in lost:
        shutil.rmtree(p)

    def boom(*a, **k):
        raise AssertionError("simulated although stored")

    monkeypatch.setattr(sys.modules["cclab.run"], "run", boom)
    again = execute(DEFINITION, out, jobs=1)
    assert (again.skipped, again.ok, again.failed) == (7, 3, [])
    for name, flows in before.items():
        pd.testing.assert_frame_equal(cclab.load(out / "runs" / name).flows, flows, check_exact=True)


def test_an_unreachable_dask_scheduler_fails_fast_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    t0 = time.monotonic()
    with pytest.raises(SweepError) as ei:
        execute(DEFINITION, out, dask="tcp://127.0.0.1:1")
    assert time.monotonic() - t0 < 15  # distributed alone would retry for its 20 s timeout
    assert ei.value.field == "--dask" and "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in str(ei.value)
    assert not out.exists()


def test_cli_out_naming_a_file_is_exit_2_in_one_line(tmp_path):
    f = tmp_path / "a-file"
    f.write_text("x")
    sweep_file = tmp_path / "s.toml"
    (tmp_path / "base.toml").write_text(cclab.to_toml(BASE), encoding="utf-8")
    sweep_file.write_text('base = "base.toml"\n[grid]\n"flows[0].cc" = ["cubic"]\n', encoding="utf-8")
    for args in (["sweep", str(sweep_file), "--out", str(f)], ["reproduce", "003", "--quick", "--out", str(f / "x")]):
        res = CliRunner().invoke(app, args, terminal_width=400)
        assert res.exit_code == 2, res.output
        assert res.output.strip().startswith("error: --out:") and len(res.output.strip().splitlines()) == 1
    assert f.read_text() == "x"


# Student's t two-sided quantiles of the hand-written inversion scipy replaced (A&S 26.7.3-4 by
# bisection to 1e-12), kept here as they printed.
OLD_T = {
    0.90: {1: 6.3137515146754595, 2: 2.9199855803535684, 5: 2.0150483733332294, 30: 1.6972608865939947},
    0.95: {1: 12.706204736172367, 2: 4.302652729749752, 3: 3.1824463052844294, 9: 2.2621571627978483,
           120: 1.9799304050820865, 1000: 1.9623390808255863},
    0.99: {1: 63.65674116284936, 5: 4.032142983554877, 10: 3.1692726726168985, 120: 2.6174211451061637},
}


@pytest.mark.parametrize("confidence", sorted(OLD_T))
def test_scipy_t_quantile_equals_the_old_values(confidence):
    for dof, old in OLD_T[confidence].items():
        assert t_quantile(confidence, dof) == pytest.approx(old, rel=1e-10), dof
    with pytest.raises(ValueError, match="df: invalid value 0"):
        t_quantile(confidence, 0)


#: The whole memory budget the runner is made to see in the tests below (bytes).
WHOLE = 8 << 30


def run_needing_memory(scenario, seed):
    """A run function for the workers: a run stops for memory (MemoryBudgetError) when its
    budget (CCLAB_MEMORY_LIMIT, set by the runner) is below what its scenario's name says it needs
    (a fraction of WHOLE). Each run marks itself in progress in a folder shared by the workers;
    every attempt of a run that needs more than a share appends its budget and the most runs it
    saw in progress beside it to a log there."""
    shared = Path(os.environ["CCLAB_TEST_SHARED"])
    me = shared / f"{os.getpid()}-{time.monotonic_ns()}"
    me.touch()
    try:
        need = float(scenario["name"]) * WHOLE
        limit = int(os.environ["CCLAB_MEMORY_LIMIT"].rstrip("B"))
        beside = 0
        for _ in range(20 if need > WHOLE / 2 else 10):
            time.sleep(0.05)
            beside = max(beside, sum(1 for p in shared.iterdir() if p.suffix != ".log") - 1)
        if need > WHOLE / 2:
            with open(shared / "attempts.log", "a") as f:
                f.write(f"{limit} {beside}\n")
        if limit < need:
            raise cclab.MemoryBudgetError("run: (the simulation's memory passed ...); accepted: ...")
        return cclab.run(dict(scenario, name="run"), seed=seed)
    finally:
        me.unlink()


@pytest.mark.parametrize("need", [0.6, 0.9, 1.1])
def test_a_run_stopped_for_memory_at_its_share_goes_on_beside_others_then_alone(tmp_path, monkeypatch, need):
    shared = tmp_path / "shared"
    shared.mkdir()
    monkeypatch.setenv("CCLAB_TEST_SHARED", str(shared))
    monkeypatch.setenv("CCLAB_STORE", str(tmp_path / "store"))
    monkeypatch.setattr("cclab.runner.memory_shares", lambda n: (WHOLE // n, WHOLE))
    ccs = ["newreno", "cubic", "htcp", "bic", "highspeed", "scalable", "vegas", "fast", "westwood", "cr"]
    jobs = [Job(dict(BASE, duration="1s", name=str(need if cc == "cubic" else 0.1),
                     flows=[dict(BASE["flows"][0], cc=cc)]), 1, tag=cc, run=run_needing_memory)
            for cc in ccs]
    done = run_jobs(jobs, workers=2)
    assert sorted(d.job.tag for d in done) == sorted(ccs)  # each once
    assert all(d.ok for d in done if d.job.tag != "cubic")
    cubic = next(d for d in done if d.job.tag == "cubic")
    attempts = [tuple(map(int, line.split())) for line in (shared / "attempts.log").read_text().splitlines()]
    # First at its share; then at most of the budget, while the other worker goes on with a run
    # given the rest (a quarter of a share); then, if that is not enough, alone with all of it.
    big = WHOLE - WHOLE // 8
    if need == 0.6:
        assert [a[0] for a in attempts] == [WHOLE // 2, big] and attempts[1][1] >= 1, attempts
        assert cubic.ok, cubic.error
    else:
        assert [a[0] for a in attempts] == [WHOLE // 2, big, WHOLE] and attempts[2][1] == 0, attempts
        assert cubic.ok == (need < 1), cubic.error
        if need > 1:
            assert cubic.error.startswith("MemoryBudgetError: run:"), cubic.error


def test_workers_share_the_memory_budget_unless_the_user_set_it(monkeypatch):
    from cclab.runner import memory_shares

    monkeypatch.delenv("CCLAB_MEMORY_LIMIT", raising=False)
    each, whole = memory_shares(4)
    assert 0 < each <= whole // 4 and whole > 0
    monkeypatch.setenv("CCLAB_MEMORY_LIMIT", "8GiB")
    assert memory_shares(4) is None


def test_without_a_terminal_the_bar_prints_every_tenth_of_the_cost_or_every_ten_minutes(monkeypatch, capsys):
    from cclab import progress

    clock = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    bar = progress.Bar("runs", 100, cost=100.0)
    assert bar._plain  # pytest's stderr is not a terminal
    lines = []

    def step(cost, after_s):
        clock[0] += after_s
        bar.advance(cost)
        lines.extend(capsys.readouterr().err.splitlines())

    step(1.0, 60.0)  # 1 % after a minute: nothing yet
    assert lines == []
    step(1.0, progress.PLAIN_EVERY_S)  # ten minutes since the start: a line, with the time left
    assert lines == ["runs: 2/100 runs done, 0 failed, 660 s elapsed, about 32340 s left"]
    step(8.0, 1.0)  # 10 % of the cost: a line at once
    assert len(lines) == 2 and lines[1].startswith("runs: 3/100 runs done")
    step(1.0, 1.0)  # neither: none
    assert len(lines) == 2
