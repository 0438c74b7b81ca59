"""Two or more builds of the simulator side by side: each round runs every build once on each
scenario, in turn, so that the machine's drift falls on all of them alike; prints the median
user CPU time and delivered packets per wall-clock second of each, its ratio to the first build,
and whether every build's results are the same bits as the first's.

    cargo build --release --example dump_results      # once per build; copy the binary aside
    python benches/ab_builds.py --rounds 3 before=/tmp/dump_before after=target/release/examples/dump_results \\
        -- B1 B2 B3 B4 scenarios/single-reno.toml

A build is a `dump_results` binary or a Python interpreter (its name starts with "python") with
cclab installed: then the run goes through the extension module, is timed alone, and its result
tables are compared (as a SHA-256 of their CSV). A scenario is a case of cclab.bench (B1...B5) or
a scenario file. Nothing here is a test:
the figures are the machine's of the moment (docs/benchmarks.md).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def _scenario_file(name: str, tmp: Path) -> Path:
    if Path(name).is_file():
        return Path(name)
    from cclab.bench import CASES

    if name not in CASES:
        sys.exit(f"error: scenario: {name!r} is neither a file nor a case; accepted: a file or one of {sorted(CASES)}")
    p = tmp / f"{name}.json"
    p.write_text(json.dumps(CASES[name].scenario))
    return p


#: Run by a Python interpreter given as a build (an installed cclab: `pip install .`, or
#: tools/pgo_build.py): times the run alone, without the interpreter's start and imports.
_PY_RUN = """
import hashlib, json, resource, sys, time, cclab
sc = json.load(open(sys.argv[1])) if sys.argv[1].endswith(".json") else sys.argv[1]
u0, t0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime, time.perf_counter()
r = cclab.run(sc)
u1, t1 = resource.getrusage(resource.RUSAGE_SELF).ru_utime, time.perf_counter()
h = hashlib.sha256()
for t in (r.flows, r.queues, r.links, r.timeseries()):
    h.update(t.to_csv().encode())
print(h.hexdigest())
print("user_s", u1 - u0, "delivered_pkts_per_s", int(r.flows["delivered_pkts"].sum()) / (t1 - t0), file=sys.stderr)
"""


def _once(binary: str, scenario: Path) -> tuple[float, float, bytes]:
    """User seconds, delivered packets per wall second, and the results' dump of one run."""
    python = Path(binary).name.startswith("python")
    cmd = [binary, "-c", _PY_RUN, str(scenario)] if python else [binary, str(scenario)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    p = subprocess.run(cmd, capture_output=True, check=False)
    user = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    if p.returncode != 0:
        sys.exit(f"error: {binary} {scenario}: {p.stderr.decode(errors='replace').strip()}")
    # dump_results prints its timing on stderr: "wall_s ... delivered_pkts_per_s N".
    words = p.stderr.decode().split()
    rate = float(words[words.index("delivered_pkts_per_s") + 1])
    if python:
        user = float(words[words.index("user_s") + 1])
    return user, rate, p.stdout


def main() -> None:
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("error: arguments: no '--'; accepted: [--rounds N] LABEL=PATH LABEL=PATH ... -- SCENARIO ...")
    cut = argv.index("--")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("builds", nargs="+", help="LABEL=PATH of a dump_results binary")
    args = ap.parse_args(argv[:cut])
    rest = argv[cut + 1:]
    if args.rounds < 1:
        sys.exit(f"error: --rounds: {args.rounds}; accepted: 1 or more")
    builds = [b.split("=", 1) for b in args.builds]
    bad = [b for b in builds if len(b) != 2 or not os.access(b[1], os.X_OK)]
    if bad or len(builds) < 2 or not rest:
        sys.exit(f"error: builds: {args.builds}; accepted: two or more LABEL=PATH to an executable, then -- and scenarios")
    with tempfile.TemporaryDirectory() as t:
        for name in rest:
            sc = _scenario_file(name, Path(t))
            got: dict[str, list[tuple[float, float, bytes]]] = {label: [] for label, _ in builds}
            for _ in range(args.rounds):
                for label, binary in builds:
                    got[label].append(_once(binary, sc))
            first = builds[0][0]
            ref_user = statistics.median(u for u, _, _ in got[first])
            for label, _ in builds:
                user = statistics.median(u for u, _, _ in got[label])
                rate = statistics.median(r for _, r, _ in got[label])
                same = all(d == got[first][0][2] for _, _, d in got[label])
                print(f"{name:>12} {label:>10}  user {user:7.3f} s  x{ref_user / user:5.2f}  "
                      f"{rate / 1e6:5.2f} M pkt/s  {'same results' if same else 'RESULTS DIFFER'}")


if __name__ == "__main__":
    main()
