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
import math
import os
import re
from pathlib import Path
from typing import Any, Dict, Optional, Tuple, Union

from . import _core
from ._core import MemoryBudgetError, ScenarioError

__all__ = [
    "Scenario",
    "ScenarioError",
    "MemoryBudgetError",
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


def _rebuild_error(message: str, field: str, value: str, accepted: str, memory: bool = False) -> ScenarioError:
    e = (MemoryBudgetError if memory else ScenarioError)(message)
    e.field, e.value, e.accepted = field, value, accepted
    return e


def _reduce_error(self: ScenarioError) -> tuple[Any, ...]:
    return (_rebuild_error, (str(self), self.field, self.value, self.accepted, isinstance(self, MemoryBudgetError)))


# The binding creates the exception type as `_core.ScenarioErrorPy` (see
# crates/cclab-py/src/lib.rs), which is neither its public name nor an
# importable module, so tracebacks misname it and pickling fails (and with it
# any process pool that sends one back). Name it where it lives and keep its
# fields through pickling. Harmless once the binding names it itself.
ScenarioError.__name__ = ScenarioError.__qualname__ = "ScenarioError"
ScenarioError.__module__ = "cclab._core"
ScenarioError.__reduce__ = _reduce_error  # type: ignore[method-assign,assignment]
MemoryBudgetError.__module__ = "cclab._core"


#: The longest value shown in an error (as the Rust core's errors), in characters.
_MAX_VALUE_CHARS = 200

#: The largest scenario file read, bytes: /dev/zero or a stray disk image is refused, not read forever.
MAX_SCENARIO_BYTES = 16 * 1024 * 1024


def _one_line(text: str, limit: int = _MAX_VALUE_CHARS) -> str:
    """``text`` on one line (control characters and runs of white space as one space), cut with an ellipsis."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def scenario_error(field: str, value: Any, accepted: str) -> ScenarioError:
    """A ScenarioError raised from Python, worded as the Rust core words its own: one bounded line."""
    field, accepted = _one_line(field, 120), _one_line(accepted, 300)
    text = _one_line(str(value))
    if text.startswith("(") and text.endswith(")"):
        e = ScenarioError(f"{field}: {text[1:-1]}; accepted: {accepted}")
    else:
        e = ScenarioError(f"{field}: invalid value '{text}'; accepted: {accepted}")
    e.field = field
    e.value = text
    e.accepted = accepted
    return e


def _read_scenario_text(p: Path) -> str:
    """The text of a scenario file: UTF-8, at most MAX_SCENARIO_BYTES, no NUL bytes.

    A binary or UTF-16 file, /dev/zero or a huge file is a ScenarioError of one line (exit 2
    from the command line), never a traceback or a read without end.
    """
    with open(p, "rb") as f:
        data = f.read(MAX_SCENARIO_BYTES + 1)
    accepted = f"a TOML scenario file: UTF-8 text of at most {MAX_SCENARIO_BYTES // (1024 * 1024)} MiB"
    if len(data) > MAX_SCENARIO_BYTES:
        raise scenario_error(str(p), "(larger than 16 MiB, not a scenario file)", accepted)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise scenario_error(str(p), "(UTF-16 text, not UTF-8)", accepted)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise scenario_error(str(p), f"(not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start})", accepted) from None
    nul = text.find("\x00")
    if nul >= 0:
        raise scenario_error(str(p), f"(not text: a NUL byte at offset {nul})", accepted)
    return text[1:] if text.startswith("\ufeff") else text  # a UTF-8 byte-order mark


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
    text = _read_scenario_text(p)
    try:
        result: Scenario = json.loads(_core.scenario_from_toml(text))
    except ScenarioError as e:
        if e.field == "(file)":  # TOML syntax: the core's message has no position
            where = _toml_position(text)
            inner = e.value[1:-1] if e.value.startswith("(") else e.value
            if where:
                raise scenario_error(e.field, f"({inner} {where})", e.accepted) from None
        raise
    _resolve_files(result, p.parent)
    return result


# The link fields that name files (docs/links.md); a schedule may also be a list of steps.
_FILE_FIELDS = ("mahimahi", "rate_schedule", "delay_schedule", "loss_schedule")


def _resolve_files(sc: Scenario, directory: Path) -> None:
    """Makes the relative paths of trace and schedule files relative to the scenario file's directory."""
    topology = sc.get("topology") or {}
    links = [topology.get("bottleneck")] + list(topology.get("links") or [])
    for link in links:
        if not isinstance(link, dict):
            continue
        for key in _FILE_FIELDS:
            v = link.get(key)
            if isinstance(v, str) and not os.path.isabs(v):
                link[key] = str(directory / v)


def _toml_position(text: str) -> str:
    """Where the TOML syntax error is, as "(at line L, column C)", from Python's own parser."""
    import tomllib

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


def _non_finite(value: Any, path: str = "") -> Optional[Tuple[str, float]]:
    """The path (``flows[0].init_cwnd``) and value of the first NaN or infinity in a scenario dict."""
    if isinstance(value, float) and not math.isfinite(value):
        return path, value
    if isinstance(value, dict):
        for k, v in value.items():
            found = _non_finite(v, f"{path}.{k}" if path else str(k))
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = _non_finite(v, f"{path}[{i}]")
            if found:
                return found
    return None


def _to_json(scenario: Scenario) -> str:
    try:
        return json.dumps(scenario, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as e:
        # JSON has no NaN or infinity: name the field rather than the encoder's complaint.
        try:
            found = _non_finite(scenario) if isinstance(e, ValueError) else None
        except RecursionError:  # a dict that contains itself
            found = None
        if found:
            raise scenario_error(found[0], found[1], "a finite number (not nan or inf)") from None
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
