"""Installs cclab into the current Python environment as `pip install .` does, but with the
Rust core optimized from a profile of its own runs (profile-guided optimization, PGO).

    python tools/pgo_build.py            # from the repository's root, in the environment to install into

Three steps, about six minutes on two cores:
1. an instrumented build (`RUSTFLAGS=-Cprofile-generate=DIR pip install .`);
2. training: that build runs B1-B5 of `cclab bench` and one run of every experiment of the
   papers (each under its paper's stack, shortened to `TRAIN_SECONDS`) in a process of its own,
   which writes its counts on exit; `llvm-profdata merge` turns them into a profile;
3. the optimized build (`RUSTFLAGS=-Cprofile-use=FILE pip install .`).

The results are the same bits as the plain build's: the optimizer lays code out and inlines by
the counts, it does not reorder floating-point arithmetic (checked: docs/benchmarks.md, "A build
optimized from a profile"). The run cache keys on the core's result version, not on the build,
so finished runs stay valid. It replaces an editable install (`pip install -e .`) with a
regular one, as `pip install .` would; `pip install -e .` goes back. `llvm-profdata` must be of
the LLVM that rustc is built on (`rustc -vV`): `rustup component add llvm-tools` provides it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
#: Simulated seconds of each paper run in the training (B1-B5 run their full length).
TRAIN_SECONDS = 10


def llvm_major(version_text: str) -> Optional[int]:
    """The LLVM major version named in `rustc -vV` or `llvm-profdata --version` output."""
    m = re.search(r"LLVM version:?\s*(\d+)", version_text, re.IGNORECASE)
    return int(m.group(1)) if m else None


def find_profdata(major: int, candidates: List[str]) -> Optional[str]:
    """The first of ``candidates`` (paths or names on PATH) that runs and is of LLVM ``major``:
    a profile written by one LLVM is refused by another's reader."""
    for c in candidates:
        exe = c if os.path.sep in c else shutil.which(c)
        if not exe or not os.access(exe, os.X_OK):
            continue
        try:
            out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        if llvm_major(out) == major:
            return exe
    return None


def _candidates(major: int, rustc_vv: str) -> List[str]:
    """rustup's llvm-tools of this toolchain, then the system's."""
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout.strip()
    host = re.search(r"host:\s*(\S+)", rustc_vv)
    rustup = [str(Path(sysroot) / "lib" / "rustlib" / host.group(1) / "bin" / "llvm-profdata")] if host else []
    return rustup + [f"llvm-profdata-{major}", "llvm-profdata"]


def _pip_install(rustflags: str, target: str) -> None:
    # A target directory of each kind's own, so that neither build throws the other's (or the plain
    # build's, in target/release) compiled crates away.
    env = dict(os.environ, RUSTFLAGS=rustflags, CARGO_TARGET_DIR=str(ROOT / "target" / target))
    # One unit of code generation with whole-program LTO: the slow build that lets the profile's
    # counts decide inlining across the whole core (measured better with the profile than thin
    # LTO with four units, Cargo.toml's release profile; docs/benchmarks.md). The environment's
    # own CARGO_PROFILE_RELEASE_* settings win.
    env.setdefault("CARGO_PROFILE_RELEASE_LTO", "fat")
    env.setdefault("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps", str(ROOT)],
                   env=env, check=True)


def training_runs(seconds: int = TRAIN_SECONDS) -> List[Tuple[Dict[str, Any], int]]:
    """(scenario, seed) of every training run: B1-B5 as `cclab bench` runs them, then the first
    run of every experiment's quick form under its paper's stack, shortened to ``seconds`` where
    that stays valid (a flow starting later keeps the quick form's own duration)."""
    import cclab
    import cclab.experiments as E
    from cclab.bench import CASES
    from cclab.experiments.runner import resolve_stack, with_stack

    out: List[Tuple[Dict[str, Any], int]] = [(dict(c.scenario), 1) for c in CASES.values()]
    for exp in E.experiments():
        r = exp.runs(True)[0]
        s = dict(with_stack(r.scenario, resolve_stack(exp, "paper")))
        short = dict(s, duration=f"{seconds}s")
        short.pop("warmup", None)
        try:
            cclab.check(short)
            s = short
        except cclab.ScenarioError:
            pass
        out.append((s, r.seed))
    return out


def train_here() -> Tuple[int, int]:
    """Runs every training run in this process (the instrumented build writes its counts when
    the process exits); returns how many ran, of how many."""
    import warnings

    import cclab

    warnings.simplefilter("ignore")  # the experiments' own advice, not the training's concern
    runs = training_runs()
    done = 0
    for scenario, seed in runs:
        try:
            cclab.run(scenario, seed=seed)
            done += 1
        except Exception:  # a run that fails only trains less; the count says so
            pass
    return done, len(runs)


def train(profile_dir: Path) -> Tuple[int, int]:
    """Runs the training with the instrumented build, in a process of its own."""
    env = dict(os.environ, LLVM_PROFILE_FILE=str(profile_dir / "cclab-%p-%m.profraw"))
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--train"], env=env, capture_output=True,
                         text=True, check=True, cwd=tempfile.gettempdir()).stdout.split()
    return int(out[0]), int(out[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", metavar="DIR", help="keep the raw and merged profiles in DIR (default: a temporary one)")
    ap.add_argument("--train", action="store_true", help="run the training runs here and print: ran total")
    args = ap.parse_args()
    if args.train:
        print(*train_here())
        return
    if shutil.which("rustc") is None:
        sys.exit("error: rustc: not found on PATH; accepted: a Rust toolchain (https://rustup.rs)")
    rustc_vv = subprocess.run(["rustc", "-vV"], capture_output=True, text=True).stdout
    major = llvm_major(rustc_vv)
    if major is None:
        sys.exit("error: rustc: `rustc -vV` names no LLVM version; accepted: a Rust toolchain on PATH")
    profdata = find_profdata(major, _candidates(major, rustc_vv))
    if profdata is None:
        sys.exit(f"error: llvm-profdata: none of LLVM {major} (rustc's) found; accepted: "
                 f"`rustup component add llvm-tools`, or llvm-profdata-{major} on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.keep).resolve() if args.keep else Path(tmp)
        raw = work / "raw"
        shutil.rmtree(raw, ignore_errors=True)
        raw.mkdir(parents=True)
        print("1/3 instrumented build", flush=True)
        _pip_install(f"-Cprofile-generate={raw}", "pgo-generate")
        try:
            print("2/3 training", flush=True)
            n, of = train(raw)
            if n == 0 or not any(raw.iterdir()):
                sys.exit(f"error: training: no profile written in {raw}; accepted: an instrumented build that runs")
            merged = work / "cclab.profdata"
            subprocess.run([profdata, "merge", "-o", str(merged), str(raw)], check=True)
            print(f"    {n} of {of} runs, profile {merged.stat().st_size // 1024} KiB", flush=True)
            print("3/3 optimized build", flush=True)
            _pip_install(f"-Cprofile-use={merged}", "pgo-use")
        except BaseException:
            # The environment holds the instrumented build, which is slower and writes counts on exit.
            print("error: stopped after the instrumented build: this environment holds it; "
                  "`pip install .` (or this tool again) replaces it", file=sys.stderr)
            raise
    print("installed: cclab built from a profile of its own runs")


if __name__ == "__main__":
    main()
