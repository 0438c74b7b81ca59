"""tools/pgo_build.py: the pieces that decide whether its build can work (the profile tool's
LLVM, the training runs). The build itself takes minutes and is measured, not tested
(docs/benchmarks.md)."""

from __future__ import annotations

import importlib.util
import stat
from pathlib import Path

import cclab
from cclab import experiments
from cclab.bench import CASES

_spec = importlib.util.spec_from_file_location("pgo_build", Path(__file__).parent.parent / "tools" / "pgo_build.py")
pgo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pgo)


def test_llvm_major_reads_rustc_and_profdata_versions():
    assert pgo.llvm_major("rustc 1.95.0\nhost: x86_64\nrelease: 1.95.0\nLLVM version: 22.1.2\n") == 22
    assert pgo.llvm_major("LLVM (http://llvm.org/):\n  LLVM version 22.1.2-rust-1.95.0-stable\n") == 22
    assert pgo.llvm_major("Ubuntu LLVM version 14.0.0\n  Optimized build.\n") == 14
    assert pgo.llvm_major("rustc 1.95.0\n") is None


def _fake(tmp: Path, name: str, version: str) -> str:
    p = tmp / name
    p.write_text(f"#!/bin/sh\necho 'LLVM version {version}'\n")
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return str(p)


def test_find_profdata_takes_only_the_llvm_rustc_is_built_on(tmp_path):
    old, new = _fake(tmp_path, "profdata14", "14.0.0"), _fake(tmp_path, "profdata22", "22.1.2")
    plain = tmp_path / "not-executable"
    plain.write_text("#!/bin/sh\necho 'LLVM version 22.1.2'\n")
    assert pgo.find_profdata(22, [str(plain), old, new]) == new
    assert pgo.find_profdata(14, [new, old]) == old
    assert pgo.find_profdata(19, [old, new, str(tmp_path / "missing")]) is None


def test_training_covers_every_benchmark_and_experiment_with_valid_scenarios():
    runs = pgo.training_runs(pgo.TRAIN_SECONDS)
    assert len(runs) == len(CASES) + len(experiments.experiments())
    for scenario, _ in runs:
        cclab.check(scenario)  # raises ScenarioError naming the field
    durations = [s["duration"] for s, _ in runs[len(CASES):]]
    assert durations.count(f"{pgo.TRAIN_SECONDS}s") > len(durations) // 2
