"""Scenarios: a TOML file, or the same structure as a plain Python dict.

The schema and every check live in the Rust core (``crates/cclab-sim/src/scenario.rs``,
described in ``docs/scenario.md``); this module only moves scenarios across the
boundary as JSON text, so a scenario written in TOML and the same one written
as a dict are validated by the same code and give the same errors.
"""

from __future__ import annotations

import copy
import errno
import json
import os
import re
from pathlib import Path
from typing import Any, Dict, Union

from . import _core
from ._core import ScenarioError

__all__ = [
    "Scenario",
    "ScenarioError",
    "SEED_MAX",
    "check",
    "load_scenario",
    "resolve_seed",
    "scenario_error",
    "to_toml",
]

#: A scenario in Python: a dict with the structure of the TOML file.
Scenario = Dict[str, Any]

#: Seeds are unsigned 64-bit integers.
SEED_MAX = 2**64 - 1
_SEED_ACCEPTED = f"a whole number from 0 to 2**64-1 ({SEED_MAX})"


def _rebuild_error(message: str, field: str, value: str, accepted: str) -> ScenarioError:
    e = ScenarioError(message)
    e.field, e.value, e.accepted = field, value, accepted
    return e


def _reduce_error(self: ScenarioError) -> tuple[Any, ...]:
    return (_rebuild_error, (str(self), self.field, self.value, self.accepted))


# The binding creates the exception type as `_core.ScenarioErrorPy` (see
# crates/cclab-py/src/lib.rs), which is neither its public name nor an
# importable module, so tracebacks misname it and pickling fails (and with it
# any process pool that sends one back). Name it where it lives and keep its
# fields through pickling. Harmless once the binding names it itself.
ScenarioError.__name__ = ScenarioError.__qualname__ = "ScenarioError"
ScenarioError.__module__ = "cclab._core"
ScenarioError.__reduce__ = _reduce_error  # type: ignore[method-assign,assignment]


def scenario_error(field: str, value: Any, accepted: str) -> ScenarioError:
    """A ScenarioError raised from Python, worded as the Rust core words its own."""
    e = ScenarioError(f"{field}: invalid value '{value}'; accepted: {accepted}")
    e.field = field
    e.value = str(value)
    e.accepted = accepted
    return e


def load_scenario(path: Union[str, os.PathLike[str]]) -> Scenario:
    """Reads a TOML scenario file into a dict.

    The TOML is parsed by the Rust core, so an unknown key or a wrong type is
    reported with its path in the file (``topology.bottleneck``). Values are
    checked only when the scenario is checked or run.

    Raises FileNotFoundError when there is no such file and ScenarioError when
    the file is not a scenario.
    """
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a scenario file", str(p))
    text = p.read_text(encoding="utf-8")
    try:
        result: Scenario = json.loads(_core.scenario_from_toml(text))
    except ScenarioError as e:
        if e.field == "(file)":  # TOML syntax: the core's message has no position
            where = _toml_position(text)
            inner = e.value[1:-1] if e.value.startswith("(") else e.value
            if where:
                msg = f"{e.field}: {inner} {where}; accepted: {e.accepted}"
                raise _rebuild_error(msg, e.field, f"({inner} {where})", e.accepted) from None
        raise
    return result


def _toml_position(text: str) -> str:
    """Where the TOML syntax error is, as "(at line L, column C)", from Python's own parser."""
    try:
        import tomllib  # Python >= 3.11
    except ImportError:  # pragma: no cover
        return ""
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as te:
        m = re.search(r"\((at line \d+, column \d+|at end of document)\)", str(te))
        return m.group(1) if m else ""
    return ""


def as_scenario(scenario: Union[Scenario, str, os.PathLike[str]]) -> Scenario:
    """A scenario given as a dict (copied, so the caller's stays untouched) or as a path to TOML."""
    if isinstance(scenario, (str, os.PathLike)):
        return load_scenario(scenario)
    if not isinstance(scenario, dict):
        raise TypeError(f"a scenario is a dict or a path to a TOML file, not {type(scenario).__name__}")
    return copy.deepcopy(scenario)


def resolve_seed(seed: Any, scenario: Scenario) -> int:
    """The seed of a run: ``seed`` if given, else the scenario's ``seed``, else 1.

    Raises ScenarioError (field ``seed``) unless it is a whole number in [0, 2**64-1].
    """
    if seed is None:
        seed = scenario.get("seed", 1)
    # bool is an int subclass; True is not a seed.
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise scenario_error("seed", seed, _SEED_ACCEPTED)
    return seed


def _to_json(scenario: Scenario) -> str:
    try:
        return json.dumps(scenario, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise scenario_error("(scenario)", f"({e})", "a dict of str, numbers, booleans, lists and dicts") from None


def check(scenario: Union[Scenario, str, os.PathLike[str]], seed: Any = None) -> Scenario:
    """Validates every field of a scenario (dict or TOML path) without running it.

    Returns the scenario normalized (defaults that are part of the schema filled
    in, absent optional fields left out). Raises ScenarioError naming the field,
    the value and what is accepted.
    """
    sc = as_scenario(scenario)
    s = resolve_seed(seed, sc)
    result: Scenario = json.loads(_core.check_scenario(_to_json(sc), s))
    return result


def to_toml(scenario: Scenario) -> str:
    """Renders a scenario dict as TOML (the form ``load_scenario`` reads)."""
    return _core.scenario_to_toml(_to_json(scenario))
