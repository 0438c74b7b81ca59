"""Speed of an algorithm written in Python or loaded from a plugin, against the same algorithm
built in (docs/benchmarks.md, "Algorithms written outside cclab"). Prints a markdown table.

    python benches/python_cc.py [--repeat 3]

Runs each case `--repeat` times, alternating, and keeps the least wall time of each: the
built-in ``newreno`` and ``py-newreno`` (examples/python_cc.py), then the plugin ``delay-reno``
(examples/plugin-cc, built with cargo first) and ``py-delay-reno``, on scenarios/quickstart.toml
(4 flows, 30 s) and scenarios/single-reno.toml (benchmark B1, 120 s). Every pair must give
identical results; the script fails otherwise.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import cclab  # noqa: E402
import python_cc  # noqa: E402


def _plugin() -> Path:
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "delay-reno"], cwd=ROOT, check=True)
    suffix = {"darwin": "lib{}.dylib", "win32": "{}.dll"}.get(sys.platform, "lib{}.so")
    return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / suffix.format("delay_reno")


def _same(a: cclab.Result, b: cclab.Result) -> bool:
    for name, x in a.tables().items():
        y = b.tables()[name]
        if "cc" in x.columns:
            x, y = x.drop(columns="cc"), y.drop(columns="cc")
        if not x.equals(y):
            return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cclab.register_cc("py-newreno", python_cc.NewReno)
    cclab.register_cc("py-delay-reno", python_cc.DelayReno)
    cclab.load_plugin(_plugin())
    pairs = [("newreno", "py-newreno"), ("delay-reno", "py-delay-reno")]
    print(f"cclab {cclab.__version__}, Python {platform.python_version()}, {platform.machine()}, "
          f"load average {os.getloadavg()[0]:.1f}; least wall time of {args.repeat}")
    print()
    print("| scenario | algorithm | built as | delivered pkts | wall s | delivered pkts/s | wall / Rust's |")
    print("|---|---|---|---:|---:|---:|---:|")
    for scenario in ["quickstart.toml", "single-reno.toml"]:
        base = cclab.load_scenario(ROOT / "scenarios" / scenario)
        for rust, python in pairs:
            best: dict = {}
            results: dict = {}
            for _ in range(args.repeat):
                for name in (rust, python):
                    sc = {**base, "flows": [dict(g, cc=name) for g in base["flows"]]}
                    r = cclab.run(sc)
                    results[name] = r
                    best[name] = min(best.get(name, float("inf")), r.summary()["wall_time_s"])
            if not _same(results[rust], results[python]):
                raise SystemExit(f"{scenario}: {rust} and {python} differ")
            for name in (rust, python):
                s = results[name].summary()
                pkts = s["delivered_pkts"]
                kind = "Python" if name.startswith("py-") else ("built in" if name == "newreno" else "plugin")
                ratio = best[name] / best[rust]
                print(f"| {scenario} | {name} | {kind} | {pkts:,} | {best[name]:.2f} | {pkts / best[name]:,.0f} | "
                      f"{ratio:.2f} |")


if __name__ == "__main__":
    main()
