"""Congestion controls written in Python (cclab.register_cc): the hooks of the Rust trait,
called from the core; same results as the built-in they copy; errors that stop the run in one
line; sweeps on processes."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

import cclab
from cclab import cc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
import python_cc  # noqa: E402  (examples/python_cc.py)

cclab.register_cc("py-newreno", python_cc.NewReno, replace=True)

#: Summary keys that measure the machine, not the run.
WALL = {"wall_time_s", "cpu_time_s", "delivered_pkts_per_s"}


def assert_same_results(a: cclab.Result, b: cclab.Result, names_differ: bool = True) -> None:
    """Every table equal, bit for bit (the algorithm's name aside), and every summary value."""
    for name, x in a.tables().items():
        y = b.tables()[name]
        if "cc" in x.columns:
            assert (y["cc"] != x["cc"]).all() == names_differ  # the runs did use the two algorithms
            x, y = x.drop(columns="cc"), y.drop(columns="cc")
        assert list(x.columns) == list(y.columns), name
        assert len(x) == len(y), name
        for col in x.columns:
            xs, ys = x[col].to_numpy(), y[col].to_numpy()
            if xs.dtype.kind == "f":
                assert xs.view("u8").tolist() == ys.view("u8").tolist(), f"{name}.{col}"
            else:
                assert xs.tolist() == ys.tolist(), f"{name}.{col}"
    sa, sb = a.summary(), b.summary()
    assert {k: v for k, v in sa.items() if k not in WALL} == {k: v for k, v in sb.items() if k not in WALL}


@pytest.mark.parametrize("scenario", ["quickstart.toml", "single-reno.toml"])
def test_newreno_written_in_python_gives_the_built_in_results_bit_for_bit(scenario):
    # README's quick start runs single-reno.toml (benchmark B1), its Python section quickstart.toml.
    sc = cclab.load_scenario(ROOT / "scenarios" / scenario)
    built_in = cclab.run(sc)
    for g in sc["flows"]:
        assert g["cc"] == "newreno"
        g["cc"] = "py-newreno"
    python = cclab.run(sc)
    assert len(built_in.flow_series) > 1000 and built_in.summary()["data_dropped"] > 0
    assert_same_results(built_in, python)


def test_parameters_reach_the_constructor_by_name_and_bad_ones_are_refused_by_field(quick):
    quick["flows"][0].update(cc="py-newreno", cc_params={"beta": 0.7})
    with_beta = cclab.run(quick)
    quick["flows"][0]["cc"] = "newreno"
    assert_same_results(cclab.run(quick), with_beta)
    quick["flows"][0].update(cc="py-newreno", cc_params={"gamma": 1.0})
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.check(quick)
    assert e.value.field == "flows[0].cc_params.gamma"
    assert "known parameters: a, beta" in str(e.value)
    quick["flows"][0]["cc_params"] = {"beta": 1.5}
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.check(quick)
    assert e.value.field == "flows[0].cc"
    assert "NewReno(a=1, beta=1.5) raised ValueError: a = 1.0, beta = 1.5" in str(e.value)
    listed = {d["name"]: d for d in cclab._core.registry()}["py-newreno"]
    assert [p["name"] for p in listed["params"]] == ["a", "beta"]
    assert listed["summary"].startswith("NewReno's window policy (RFC 5681), written in Python [Python: python_cc.NewReno]")


class Failing(cclab.CongestionControl):
    def __init__(self, after: float = 2.0):
        self.after = after

    def ssthresh(self, v):
        return cc.halve(v)

    def cong_avoid(self, v, acked):
        if v.now > self.after:
            return 1 / 0
        return cc.slow_start_then_increase(v, acked, 1.0)


class NotANumber(Failing):
    def cong_avoid(self, v, acked):
        return math.nan if v.now > self.after else v.cwnd + acked


def test_an_exception_in_a_hook_stops_the_run_in_one_line_naming_algorithm_hook_and_exception(quick):
    cclab.register_cc("py-failing", Failing, replace=True)
    quick["flows"][0]["cc"] = "py-failing"
    sim = cclab._core.Sim(cclab.scenario._to_json(quick), 1)
    with pytest.raises(cclab.AlgorithmError) as e:
        sim.run_until(10.0)
    msg = str(e.value)
    assert msg.startswith("cc 'py-failing': Failing.cong_avoid raised ZeroDivisionError: division by zero at 2.0")
    assert "\n" not in msg
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    # Stopped at the end of its step, not at the end of the run; what it did is kept.
    assert 2.0 < sim.now < 3.0
    assert sim.results()["summary"]["data_received"] > 0
    with pytest.raises(cclab.AlgorithmError):
        sim.run_until(10.0)
    # The process goes on: another run works.
    quick["flows"][0]["cc"] = "py-newreno"
    assert cclab.run(quick).summary()["data_received"] > 0


def test_a_value_the_sender_cannot_take_stops_the_run_naming_it(quick):
    cclab.register_cc("py-nan", NotANumber, replace=True)
    quick["flows"][0]["cc"] = "py-nan"
    with pytest.raises(cclab.AlgorithmError, match=r"^cc 'py-nan': NotANumber.cong_avoid returned NaN: expected a "
                                                   r"number of packets in \(0, 4000000\] at 2\.0"):
        cclab.run(quick)


class Counting(cclab.CongestionControl):
    """Reno that counts the hooks it is called with."""

    def __init__(self):
        self.calls = {}

    def _count(self, hook):
        self.calls[hook] = self.calls.get(hook, 0) + 1

    def ssthresh(self, v):
        self._count("ssthresh")
        return cc.halve(v)

    def cong_avoid(self, v, acked):
        self._count("cong_avoid")
        return cc.slow_start_then_increase(v, acked, 1.0)

    def pkts_acked(self, v, sample):
        self._count("pkts_acked")
        assert sample.acked >= 1 and (sample.rtt is None or sample.rtt > 0.04)

    def set_state(self, v, state):
        assert state in ("open", "disorder", "recovery", "loss")
        self._count("state " + state)

    def cwnd_event(self, v, event):
        self._count("event " + event)

    def set_rng(self, rng):
        self.draw = rng.random()

    def observe(self):
        self._count("observe")
        return cclab.CcObservation(f"calls {sum(self.calls.values()) > 0}", bw_bps=self.draw)


def test_optional_hooks_are_called_only_when_defined_with_the_samples_and_a_seeded_rng(quick):
    cclab.register_cc("py-counting", Counting, replace=True)
    assert cc._hooks(Counting) == ["pkts_acked", "set_state", "cwnd_event", "set_rng", "observe"]
    assert cc._hooks(python_cc.NewReno) == []
    quick["flows"] = [dict(quick["flows"][0], cc="py-counting", count=1)]
    a, b = cclab.run(quick), cclab.run(quick)
    assert_same_results(a, b, names_differ=False)  # the rng comes from the run's seed
    series = a.cc_series
    assert len(series) == len(a.flow_series) and set(series["state"]) <= {"calls True", "calls False"}
    assert 0 < series["bw_bps"].iloc[0] < 1
    quick["seed"] = 2
    assert cclab.run(quick).cc_series["bw_bps"].iloc[0] != series["bw_bps"].iloc[0]


class Paced(cclab.CongestionControl):
    """A fixed window of 100 packets (30 Mbit/s at 40 ms) paced at 12 Mbit/s, set through cong_control."""

    def ssthresh(self, v):
        return v.cwnd

    def cong_avoid(self, v, acked):
        raise AssertionError("cong_control answers every ACK")

    def init(self, v):
        return cclab.CongControl(100.0, pacing_rate=12e6)

    def cong_control(self, v, rs):
        assert rs.delivered >= 0 and (rs.delivery_rate is None or rs.delivery_rate > 0)
        return cclab.CongControl(100.0, pacing_rate=12e6)


def test_cong_control_sets_the_window_and_pacing_rate(quick):
    cclab.register_cc("py-paced", Paced, replace=True)
    quick["flows"] = [dict(quick["flows"][0], cc="py-paced", count=1)]
    s = cclab.run(quick).flows.iloc[0]
    # Paced at 12 Mbit/s of wire bytes: the goodput stays under it, and close to it.
    assert 10e6 < s["goodput_bps"] < 12e6


def test_registration_refuses_what_cannot_run():
    class NoAvoid(cclab.CongestionControl):
        def ssthresh(self, v):
            return 2.0

    with pytest.raises(TypeError, match="NoAvoid does not define cong_avoid"):
        cclab.register_cc("py-x", NoAvoid)

    class NoDefault(python_cc.NewReno):
        def __init__(self, a):
            super().__init__(a)

    with pytest.raises(TypeError, match="parameter 'a' has no default"):
        cclab.register_cc("py-x", NoDefault)
    with pytest.raises(ValueError, match=r"^cc 'newreno' is already registered \(a built-in"):
        cclab.register_cc("newreno", python_cc.NewReno)
    with pytest.raises(ValueError, match=r"replace=True"):
        cclab.register_cc("py-newreno", python_cc.NewReno)
    with pytest.raises(ValueError, match="lowercase letters"):
        cclab.register_cc("Py Reno", python_cc.NewReno)


def test_a_run_of_a_python_algorithm_is_stored_under_its_source():
    from cclab.store import result_versions

    sc = {"flows": [{"cc": "py-newreno+ktcp"}, {"cc": "w+cr+reno"}]}
    v = result_versions(sc)
    assert list(v[-1]["external"]) == ["py-newreno"] and v[-1]["external"]["py-newreno"].startswith("py:")
    assert result_versions({"flows": [{"cc": "newreno"}]}) == [cclab._core.RESULT_VERSION]


def test_a_sweep_on_processes_registers_the_classes_in_its_workers(tmp_path, quick):
    quick["duration"] = "3s"
    quick["flows"][0]["cc"] = "py-newreno"
    sweep = {"name": "py", "base": quick, "grid": {"topology.bottleneck.buffer": ["0.5bdp", "1bdp"]}}
    df = cclab.sweep(sweep, tmp_path / "sw", jobs=2)
    assert list(df["status"]) == ["ok", "ok"]

    class Local(python_cc.NewReno):
        pass

    cclab.register_cc("py-local", Local, replace=True)
    sweep["base"]["flows"][0]["cc"] = "py-local"
    with pytest.raises(ValueError, match=r"cc 'py-local' \(.*Local\) cannot run in worker processes: it is defined "
                                         r"inside a function; define it in a module file, or run with one job"):
        cclab.sweep(sweep, tmp_path / "sw2", jobs=2)
    assert list(cclab.sweep(sweep, tmp_path / "sw3", jobs=1)["status"]) == ["ok", "ok"]
