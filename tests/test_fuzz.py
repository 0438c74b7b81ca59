"""Fuzzing the scenario input: no accepted input kills the process.

Hypothesis mutates the fields of the scenario files in scenarios/ with extreme,
malformed and boundary values (NaN and infinities, huge counts and windows,
sub-picosecond and century-long times, rates below one packet per run, sizes
that overflow, 100 KB strings, control characters, wrong types) and the TOML
text itself (bytes flipped, cut, binary and UTF-16 files). Each input is
checked and, when valid, run for a second of wall time in a subprocess
limited to 2 GiB of address space (RLIMIT_AS), and must end in one of two
ways: a ScenarioError of one bounded line, or a run that went on without
dying. Never an abort (a Rust out-of-memory abort kills a notebook kernel),
a panic, a traceback or a hang.

The budget is fixed and derandomized so CI is deterministic;
CCLAB_FUZZ_EXAMPLES raises it for a longer search by hand.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import cclab  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHILD = Path(__file__).with_name("fuzz_child.py")
BASES = {p.name: cclab.load_scenario(p) for p in sorted((ROOT / "scenarios").glob("*.toml"))}
CAP = 2 * 1024**3
#: Wall time for check plus a 1 s run; beyond it the input hangs.
TIMEOUT_S = 30
#: The longest error line accepted.
MAX_LINE = 800
EXAMPLES = int(os.environ.get("CCLAB_FUZZ_EXAMPLES", "25"))

# Fields a scenario may set that the files leave out, so they are fuzzed too.
EXTRA_FLOW_FIELDS = ["init_cwnd", "init_ssthresh", "rwnd", "size", "packet_size", "ack_size", "access_buffer",
                     "access_rate", "rto_min", "rto_initial", "dupthresh", "overhead", "start_spread", "stop",
                     "cc_params", "delack_timeout", "stack", "recovery", "delayed_ack", "timestamps", "ecn", "ack_counting",
                     "loss_detection", "ca_rtt", "quickacks", "rcv_autotune", "timestamp_clock"]
EXTRA_TOP_FIELDS = ["sample_interval", "warmup", "duration", "seed"]
UDP = {"rate": "10Mbps"}

floats = st.sampled_from([float("nan"), float("inf"), -float("inf"), 0.0, -1.0, 0.5, 1.0, 1e9, 1e12, 1e308,
                          5e-324, 4e6, 4000001.0, 2.0**53])
ints = st.sampled_from([0, 1, -1, 2, 1000, 1_000_000, 1_000_001, 2**31, 2**32, 2**63, 2**64, 10**30])
units = st.sampled_from(["ps", "ns", "us", "ms", "s", "bps", "Kbps", "Gbps", "Tbps", "B", "KB", "GiB", "TB",
                         "pkts", "bdp", "", " ", "e", "sec", "µs"])
numbers = st.sampled_from(["0", "1", "0.5", "1e-30", "1e308", "1e30", "-1", "nan", "inf", "1e9", "3.7", "1e15",
                           "1e12", "2e-12"])
unit_strings = st.builds(lambda n, u: n + u, numbers, units)
odd_strings = st.sampled_from(["", "unlimited", "inf", "x" * 100_000, "1ms\n" * 50, "\x00", "\ud7ff",
                               "1ps", "0.5bps", "1e308pkts", "1e30B", "1000Pbps", "99999999999s"])
# The names a field with a fixed set of values accepts (a stack, a recovery, a queue), so that
# every profile, recovery and AQM is run with the other mutations, not only refused.
names = st.sampled_from(["linux", "ns2", "cclab", "sack", "newreno", "reno", "rack-tlp", "dupthresh", "per-ack",
                         "codel", "fq_codel", "pie", "dualpi2", "l4s"])
values = st.one_of(floats, ints, unit_strings, odd_strings, names, st.booleans(), st.none(),
                   # fresh containers: one shared {} could end up inside itself
                   st.builds(list), st.builds(dict),
                   st.dictionaries(st.sampled_from(["beta", "alpha", "x", "target", "interval", "flows", "quantum",
                                                    "tupdate", "memory_limit"]), floats, max_size=2))


def leaves(obj: Any, path: tuple = ()) -> List[tuple]:
    """Paths of every value in a nested dict/list, the containers included."""
    out = [path] if path else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += leaves(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += leaves(v, path + (i,))
    return out


def put(obj: Any, path: tuple, value: Any) -> None:
    """Sets ``path`` to ``value``; skipped when an earlier mutation replaced a container on the way."""
    for k in path[:-1]:
        try:
            obj = obj[k]
        except (KeyError, IndexError, TypeError):
            return
    last = path[-1]
    if isinstance(obj, list) and isinstance(last, int):
        if last < len(obj):
            obj[last] = value
        else:
            obj.append(value)
    elif isinstance(obj, dict):
        obj[last] = value


@st.composite
def scenarios(draw: Any) -> Dict[str, Any]:
    sc = copy.deepcopy(BASES[draw(st.sampled_from(sorted(BASES)))])
    if draw(st.booleans()):
        sc.setdefault("udp", []).append(dict(UDP))
    candidates = leaves(sc) + [(f,) for f in EXTRA_TOP_FIELDS]
    if sc.get("flows"):
        candidates += [("flows", 0, f) for f in EXTRA_FLOW_FIELDS]
    for _ in range(draw(st.integers(1, 3))):
        put(sc, draw(st.sampled_from(candidates)), draw(values))
    return sc


def verdict(path: Path) -> str:
    """Runs the child on one input; returns its one line, or fails the test with what went wrong."""
    env = dict(os.environ, RUST_BACKTRACE="0")
    try:
        p = subprocess.run([sys.executable, str(CHILD), str(path), str(CAP)], capture_output=True, text=True,
                           timeout=TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hang (> {TIMEOUT_S} s) on {path.read_bytes()[:300]!r}")
    what = f"exit {p.returncode} on {path.read_bytes()[:300]!r}: {p.stderr[-2000:]}"
    assert p.returncode == 0, what  # an abort is -6 (SIGABRT), a traceback exit 1
    assert p.stderr == "", what
    line = p.stdout
    assert line.endswith("\n") and line.count("\n") == 1, what
    assert len(line) <= MAX_LINE, f"{len(line)}-character error: {line[:200]}"
    assert line.startswith(("ok", "error ")), what
    return line


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(sc=scenarios())
def test_fuzzed_scenario_dicts_end_in_a_clean_error_or_a_run(tmp_path_factory: Any, sc: Dict[str, Any]) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "scenario.json"
    try:
        text = json.dumps(sc)
    except ValueError:  # NaN is not JSON: hand it over as TOML-free Python via repr
        text = json.dumps(sc, allow_nan=True)
    path.write_text(text)
    verdict(path)


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(sorted(BASES)), cut=st.integers(0, 4000), junk=st.binary(min_size=0, max_size=40),
       mode=st.sampled_from(["insert", "replace", "truncate", "utf16", "binary"]))
def test_fuzzed_toml_files_end_in_a_clean_error_or_a_run(tmp_path_factory: Any, name: str, cut: int, junk: bytes,
                                                         mode: str) -> None:
    text = (ROOT / "scenarios" / name).read_bytes()
    cut = cut % (len(text) + 1)
    data = {
        "insert": text[:cut] + junk + text[cut:],
        "replace": text[:cut] + junk + text[cut + len(junk):],
        "truncate": text[:cut],
        "utf16": text.decode().encode("utf-16"),
        "binary": bytes(range(256)) * 4 + junk,
    }[mode]
    path = tmp_path_factory.mktemp("fuzz") / "scenario.toml"
    path.write_bytes(data)
    verdict(path)


def test_a_scenario_dict_that_contains_itself_is_refused_in_one_line() -> None:
    # Python can hand over what no file can: a dict that contains itself.
    sc: Dict[str, Any] = copy.deepcopy(BASES["quickstart.toml"])
    sc["topology"]["bottleneck"]["self"] = sc
    with pytest.raises(cclab.ScenarioError) as info:
        cclab.check(sc)
    assert "Circular reference" in str(info.value) and "\n" not in str(info.value)
