"""``python -m cclab.experiments A B --labels paper,cclab --out F``: which verdicts differ between two
written reproductions (their report.md files), for a reproduction whose runs are not stored here."""

import argparse
from pathlib import Path

from .stacks import write_report_changes

ap = argparse.ArgumentParser(prog="python -m cclab.experiments",
                             description="Which verdicts differ between two written reproductions.")
ap.add_argument("a", type=Path, help="a reproduction's folder (one ID/report.md per experiment)")
ap.add_argument("b", type=Path, help="the reproduction to compare with")
ap.add_argument("--labels", default="a,b", help="the two stacks' names, comma-separated (default: a,b)")
ap.add_argument("--out", type=Path, required=True, help="the markdown file to write")
ns = ap.parse_args()
la, _, lb = ns.labels.partition(",")
if not lb:
    ap.error(f"--labels: {ns.labels!r}; accepted: two names separated by a comma")
for arg, d in (("a", ns.a), ("b", ns.b)):
    if not d.is_dir():
        ap.error(f"{arg}: {str(d)!r} is not a folder; accepted: a reproduction's output folder")
print(write_report_changes(ns.a, ns.b, ns.out, la, lb))
