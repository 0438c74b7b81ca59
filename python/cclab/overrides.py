"""Command-line changes to a scenario: ``--set PATH=VALUE`` (one setting, by the paths sweeps
use, docs/sweeps.md) and ``--seeds`` (several seeds: ``1..5``, ``1,4,9`` or a count ``5``)."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any, List, Optional, Sequence

from .scenario import Scenario, ScenarioError

__all__ = ["apply_sets", "parse_seeds", "parse_value", "trace_table"]

#: The most seeds one ``--seeds`` may name (each is a whole run).
MAX_SEEDS = 10_000
_SEED_MAX = 2**64 - 1


def _error(field: str, message: str) -> ScenarioError:
    e = ScenarioError(f"{field}: {message}")
    e.field = field
    return e


def parse_value(text: str) -> Any:
    """A value as TOML reads it (``0.3`` a float, ``true`` a bool, ``"x"`` or ``[1, 2]`` as
    written, ``{ a = 1 }`` a table); anything TOML does not read is the text itself
    (``20Mbps``, ``0.5bdp``, ``cubic``)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_sets(sc: Scenario, sets: Sequence[str]) -> Scenario:
    """The scenario with each ``PATH=VALUE`` of ``sets`` set (a copy). A path names an existing
    setting or one the scenario's format accepts where a table exists (the sweep paths:
    ``topology.bottleneck.buffer``, ``flows[0].cc``, ``duration``); an error names the ``--set``
    and what is wrong. The result is validated by the run as any scenario."""
    from .sweep.spec import SweepError, _resolve, _set

    out = copy.deepcopy(sc)
    for item in sets:
        path, eq, text = item.partition("=")
        path = path.strip()
        if not eq or not path:
            raise _error("--set", f"invalid value {item!r}; accepted: PATH=VALUE, e.g. "
                                  "topology.bottleneck.buffer=0.5bdp or flows[0].cc=cubic")
        try:
            tokens = _resolve(out, path)
        except SweepError as e:
            raise _error("--set", f"{item}: {str(e).split(': ', 1)[-1]}") from None
        _set(out, tokens, parse_value(text.strip()))
    return out


def parse_seeds(text: str) -> List[int]:
    """``A..B`` (A to B, both included), ``A,B,C`` or ``N`` (seeds 1 to N)."""
    accepted = "A..B (e.g. 1..5), a list A,B,C, or a count N (seeds 1..N); seeds 0 to 2**64-1"
    t = text.strip()
    try:
        if ".." in t:
            a, b = (int(x) for x in t.split("..", 1))
            seeds = list(range(a, b + 1)) if 0 <= a <= b and b - a < MAX_SEEDS else []
        elif "," in t:
            seeds = [int(x) for x in t.split(",")]
        else:
            n = int(t)
            seeds = list(range(1, n + 1)) if 1 <= n <= MAX_SEEDS else []
    except ValueError:
        seeds = []
    if not seeds or len(seeds) > MAX_SEEDS or any(not 0 <= s <= _SEED_MAX for s in seeds) \
            or len(set(seeds)) != len(seeds):
        raise _error("--seeds", f"invalid value {text!r}; accepted: {accepted}, at most {MAX_SEEDS} distinct seeds")
    return seeds


def trace_table(table: dict, flows: Optional[str], pcap: Optional[Path]) -> dict:
    """The scenario's ``[trace]`` with ``--trace FLOWS`` and ``--pcap FILE`` applied."""
    t = dict(table)
    if flows is not None and flows.strip() != "all":
        items = [x.strip() for x in flows.split(",") if x.strip()]
        if not items:
            raise _error("--trace", f"invalid value {flows!r}; accepted: 'all' or flow indices or names separated by "
                                    "commas")
        t["flows"] = [int(x) if x.isdigit() else x for x in items]
    if pcap is not None:
        t["pcap"] = str(pcap)
    return t
