"""A sweep's definition: parameter paths into the scenario, the grid or list of points,
replications, and the run ids and seeds derived from them (see the package's doc)."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import itertools
import json
import os
import re
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union


from .. import _core
from ..scenario import SEED_MAX, Scenario, ScenarioError, check, load_scenario




#: Columns of ``load_sweep`` that measure the machine, not the network: they differ between
#: two executions of the same run. Leave them out when comparing sweeps.
TIMING_COLUMNS = ("wall_time_s", "cpu_time_s", "delivered_pkts_per_s")

_FORMAT = 1
_KEYS = ("name", "base", "seed", "replications", "grid", "points")
_TMP_PREFIX = ".tmp-"
_RUN_JSON = "run.json"
_ERROR_TXT = "error.txt"
_SWEEP_JSON = "sweep.json"
_PATH_ACCEPTED = "a dotted path into the scenario with list indices, e.g. topology.bottleneck.buffer, flows[0].cc"

RunFn = Callable[..., Any]
Path_ = Union[str, "os.PathLike[str]"]


# -- errors -----------------------------------------------------------------------------------


def _rebuild_sweep_error(message: str, attrs: Dict[str, Any]) -> "SweepError":
    e = SweepError(message)
    for k, v in attrs.items():
        setattr(e, k, v)
    return e


class SweepError(ScenarioError):
    """An invalid sweep definition, raised before anything runs.

    A ``ScenarioError`` (so a ``ValueError``) with ``field`` (the parameter path,
    or the sweep key: ``grid``, ``replications``...), ``value``, ``accepted``, and,
    for an error in one point, ``point`` (its number, from 1, as in the message),
    ``points`` (how many there are) and ``params`` (the point's settings).
    """

    point: Optional[int] = None
    points: Optional[int] = None
    params: Optional[Dict[str, Any]] = None

    def __reduce__(self) -> Tuple[Any, ...]:
        names = ("field", "value", "accepted", "point", "points", "params")
        return (_rebuild_sweep_error, (str(self), {k: getattr(self, k, None) for k in names}))


def _error(field: str, message: str, value: Any, accepted: str, **extra: Any) -> SweepError:
    if message.startswith("invalid value") and "accepted:" not in message:
        message += f"; accepted: {accepted}"
    e = SweepError(f"{field}: {message}")
    e.field, e.value, e.accepted = field, str(value), accepted
    for k, v in extra.items():
        setattr(e, k, v)
    return e


# -- parameter paths ----------------------------------------------------------------------------

_SEGMENT = re.compile(r"([A-Za-z0-9_-]+)((?:\[[0-9]+\])*)")
Token = Union[str, int]


def parse_path(path: str) -> Tuple[Token, ...]:
    """``"flows[0].cc"`` -> ``("flows", 0, "cc")``. Raises SweepError on a malformed path."""
    if not isinstance(path, str) or not path:
        raise _error(str(path) or "(path)", f"invalid parameter path {path!r}", path, _PATH_ACCEPTED)
    tokens: List[Token] = []
    for seg in path.split("."):
        m = _SEGMENT.fullmatch(seg)
        if not m:
            raise _error(path, f"invalid parameter path {path!r} (at {seg!r})", path, _PATH_ACCEPTED)
        tokens.append(m.group(1))
        tokens.extend(int(i) for i in re.findall(r"\[([0-9]+)\]", m.group(2)))
    return tuple(tokens)


def _format_path(tokens: Sequence[Token]) -> str:
    out = ""
    for t in tokens:
        out += f"[{t}]" if isinstance(t, int) else (f".{t}" if out else t)
    return out


def _resolve(base: Scenario, path: str) -> Tuple[Token, ...]:
    """Checks that ``path`` can be set in ``base``: list indices exist, nothing goes
    through a plain value. Missing keys are fine (optional fields); whether the
    scenario knows them is for ``check`` to say. Returns the tokens."""
    tokens = parse_path(path)
    if tokens[0] == "seed":
        raise _error(path, "the run seeds come from the sweep (its seed and replications), not from a parameter",
                     path, "a parameter path other than seed")
    node: Any = base
    for i, t in enumerate(tokens):
        here = _format_path(tokens[:i]) or "the scenario"
        if isinstance(t, int):
            if not isinstance(node, list):
                what = "absent" if node is None else f"a {_kind(node)}, not a list"
                raise _error(path, f"unknown parameter path: {here} is {what}", path, _PATH_ACCEPTED)
            if t >= len(node):
                has = "no entries" if not node else "1 entry (index 0)" if len(node) == 1 else \
                    f"{len(node)} entries (indices 0 to {len(node) - 1})"
                raise _error(path, f"unknown parameter path: {here} has {has} in the base scenario",
                             path, _PATH_ACCEPTED)
            node = node[t]
        else:
            if node is None:
                continue  # inside a table that the point creates
            if not isinstance(node, dict):
                raise _error(path, f"unknown parameter path: {here} is a {_kind(node)}, not a table",
                             path, _PATH_ACCEPTED)
            node = node.get(t)
    return tokens


def _kind(v: Any) -> str:
    return {str: "string", bool: "boolean", int: "number", float: "number", list: "list", dict: "table"}.get(
        type(v), type(v).__name__)


def _set(sc: Scenario, tokens: Sequence[Token], value: Any) -> None:
    node: Any = sc
    for t in tokens[:-1]:
        if isinstance(t, str) and t not in node:
            node[t] = {}
        node = node[t]
    node[tokens[-1]] = copy.deepcopy(value)


# -- hashing ------------------------------------------------------------------------------------


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def run_id(params: Mapping[str, Any], replication: int) -> str:
    """The id of a run: 16 hex digits of SHA-256 of its parameters and replication."""
    key = _canonical({"params": dict(params), "replication": replication})
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def derive_seed(master_seed: int, params: Mapping[str, Any], replication: int) -> int:
    """The seed of a run, in [0, 2**63-1]: the first 8 bytes of SHA-256 of the master
    seed, the parameters and the replication (big-endian), shifted right by one."""
    key = _canonical({"params": dict(params), "replication": replication, "seed": master_seed})
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") >> 1


# -- the definition ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """One run of a sweep."""

    run_id: str
    point: int  # index into Sweep.points, from 0
    params: Dict[str, Any]
    replication: int  # from 0
    seed: int


def _check_value(path: str, v: Any) -> None:
    try:
        _canonical(v)
    except (TypeError, ValueError) as e:
        raise _error(path, f"invalid value {v!r}: {e}", v,
                     "strings, numbers (finite), booleans, lists and tables") from None


def _params_text(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in params.items()) or "the base scenario"


class Sweep:
    """A sweep definition, validated: every point's scenario passes ``cclab.check``.

    ``base``: a scenario dict, or the path of a scenario TOML file. ``grid``: a
    dict of parameter path -> list of values, run as their cartesian product
    (the first path varies slowest). ``points``: a list of dicts of parameter
    path -> value. With both, every point is crossed with the whole grid.
    ``replications``: runs per point, each with its own derived seed.
    ``seed``: the master seed.

    Raises SweepError, naming the path, the value and the point, for anything
    that would fail: nothing runs before the whole sweep is valid.
    """

    def __init__(
        self,
        base: Union[Scenario, Path_],
        *,
        grid: Optional[Mapping[str, Sequence[Any]]] = None,
        points: Optional[Sequence[Mapping[str, Any]]] = None,
        replications: int = 1,
        seed: int = 1,
        name: Optional[str] = None,
    ) -> None:
        if isinstance(base, (str, os.PathLike)):
            self.base_path: Optional[Path] = Path(base)
            base = load_scenario(base)
        else:
            self.base_path = None
        if not isinstance(base, dict):
            raise _error("base", "a sweep's base is a scenario table or the path of a scenario file",
                         type(base).__name__, "a table, or a path to a scenario TOML file")
        self.base: Scenario = copy.deepcopy(base)
        if isinstance(replications, bool) or not isinstance(replications, int) or replications < 1:
            raise _error("replications", f"invalid value {replications!r}", replications, "a whole number >= 1")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
            raise _error("seed", f"invalid value {seed!r}", seed, f"a whole number from 0 to 2**64-1 ({SEED_MAX})")
        self.replications = replications
        self.seed = seed
        default_name = self.base_path.stem if self.base_path else self.base.get("name")
        self.name = str(name if name is not None else (default_name or "sweep"))
        self.points: List[Dict[str, Any]] = self._expand(grid, points)
        self.params: List[str] = list(dict.fromkeys(k for p in self.points for k in p))
        self._tokens = {p: _resolve(self.base, p) for p in self.params}
        self._check_overlaps()
        self._check_points()

    # -- construction --

    @staticmethod
    def _expand(
        grid: Optional[Mapping[str, Sequence[Any]]], points: Optional[Sequence[Mapping[str, Any]]]
    ) -> List[Dict[str, Any]]:
        grid_accepted = "a table of parameter paths to non-empty lists of values"
        if grid is None and points is None:
            raise _error("grid", "a sweep needs a grid or a list of points", "(missing)", grid_accepted)
        combos: List[Dict[str, Any]] = [{}]
        if grid is not None:
            if not isinstance(grid, Mapping):
                raise _error("grid", f"invalid value {grid!r}", grid, grid_accepted)
            if not grid:
                raise _error("grid", "the grid is empty: no parameter to sweep", "{}", grid_accepted)
            for path, values in grid.items():
                parse_path(path)
                if isinstance(values, Mapping):
                    leaf, node = path, values
                    while isinstance(node, Mapping) and len(node) == 1:
                        k, node = next(iter(node.items()))
                        leaf += f".{k}"
                    raise _error(path, "grid values are lists; a table here usually means an unquoted dotted "
                                       f'key: write "{leaf}" = [...] in quotes', values, grid_accepted)
                if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
                    raise _error(path, f"grid values are lists, not {values!r}", values, grid_accepted)
                if len(values) == 0:
                    raise _error(path, "empty list of values in the grid", "[]", grid_accepted)
                for v in values:
                    _check_value(path, v)
            keys = list(grid)
            combos = [dict(zip(keys, vs)) for vs in itertools.product(*(grid[k] for k in keys))]
        out: List[Dict[str, Any]] = []
        if points is None:
            out = combos
        else:
            pts_accepted = "a non-empty list of tables of parameter paths to values"
            if isinstance(points, (str, bytes, Mapping)) or not isinstance(points, Sequence):
                raise _error("points", f"invalid value {points!r}", points, pts_accepted)
            if len(points) == 0:
                raise _error("points", "the list of points is empty", "[]", pts_accepted)
            for i, p in enumerate(points):
                if not isinstance(p, Mapping):
                    raise _error("points", f"point {i + 1} is not a table: {p!r}", p, pts_accepted)
                for path, v in p.items():
                    parse_path(path)
                    _check_value(path, v)
                    if grid is not None and path in grid:
                        raise _error(path, f"set both by point {i + 1} and by the grid", path,
                                     "each path in the grid or in the points, not both")
                out.extend({**p, **g} for g in combos)
        seen: Dict[str, int] = {}
        for i, p in enumerate(out):
            key = _canonical(p)
            if key in seen:
                raise _error("points", f"point {i + 1} repeats point {seen[key] + 1} ({_params_text(p)})",
                             _params_text(p), "distinct points", point=i + 1, points=len(out), params=p)
            seen[key] = i
        return out

    def _check_overlaps(self) -> None:
        for a in self.params:
            for b in self.params:
                ta, tb = self._tokens[a], self._tokens[b]
                if a != b and len(ta) < len(tb) and tb[: len(ta)] == ta:
                    raise _error(b, f"overlaps {a}: a path may not lie inside another swept path", b,
                                 "paths that do not contain each other")

    def _check_points(self) -> None:
        n = len(self.points)
        for i, params in enumerate(self.points):
            sc = self.scenario(i)
            try:
                check(sc, derive_seed(self.seed, params, 0))
            except ScenarioError as e:
                raise self._point_error(e, i, params) from None

    def _point_error(self, e: ScenarioError, i: int, params: Dict[str, Any]) -> SweepError:
        field = getattr(e, "field", "") or "scenario"
        msg = str(e)
        rest = msg[len(field) + 2:] if msg.startswith(field + ": ") else msg
        # The swept path that the error is about: the field itself, or the table that contains it.
        owner = None
        for p in sorted(params, key=len, reverse=True):
            if field == p or field.startswith(p + ".") or field.startswith(p + "["):
                owner = p
                break
        if owner == field and str(getattr(e, "value", "")).startswith("(unknown field"):
            return _error(field, f"unknown parameter path: {rest}", params[owner], e.accepted)
        value = params[owner] if owner == field else getattr(e, "value", "")
        where = f"point {i + 1} of {len(self.points)} ({_params_text(params)})"
        return _error(field, f"{where}: {rest}", value, getattr(e, "accepted", ""),
                      point=i + 1, points=len(self.points), params=params)

    # -- loading --

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, root: Optional[Path_] = None) -> "Sweep":
        """From a dict with the sweep file's keys; a ``base`` path is relative to ``root``
        (default: the current folder)."""
        if not isinstance(d, Mapping):
            raise TypeError(f"a sweep is a dict or a path to a TOML file, not {type(d).__name__}")
        for k in d:
            if k not in _KEYS:
                raise _error(str(k), f"unknown key {k!r} in the sweep", k, ", ".join(_KEYS))
        if "base" not in d:
            raise _error("base", "the sweep has no base scenario", "(missing)",
                         "a table, or a path to a scenario TOML file")
        base = d["base"]
        if isinstance(base, (str, os.PathLike)) and root is not None:
            base = Path(root) / base
        return cls(base, grid=d.get("grid"), points=d.get("points"), replications=d.get("replications", 1),
                   seed=d.get("seed", 1), name=d.get("name"))

    @classmethod
    def load(cls, path: Path_) -> "Sweep":
        """Reads a sweep TOML file (``docs/sweeps.md``); ``base`` is relative to its folder."""
        p = Path(path)
        if p.is_dir():
            raise IsADirectoryError(21, "is a directory, not a sweep file", str(p))
        text = p.read_text(encoding="utf-8")
        import tomllib

        try:
            d = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise _error("(file)", f"{p}: {e}", p, "a sweep TOML file (docs/sweeps.md)") from None
        d.setdefault("name", p.stem)
        return cls.from_dict(d, root=p.parent)

    # -- use --

    def scenario(self, point: int) -> Scenario:
        """The scenario of point ``point`` (from 0): the base with the point's values set."""
        sc = copy.deepcopy(self.base)
        for path, v in self.points[point].items():
            _set(sc, self._tokens[path], v)
        return sc

    def runs(self) -> List[RunSpec]:
        """Every run, point by point, replication by replication."""
        return [
            RunSpec(run_id(p, r), i, p, r, derive_seed(self.seed, p, r))
            for i, p in enumerate(self.points)
            for r in range(self.replications)
        ]

    def to_dict(self) -> Dict[str, Any]:
        """The definition as data, points expanded (what ``OUT/sweep.json`` holds)."""
        return {
            "format": _FORMAT,
            "cclab_version": _core.__version__,
            "name": self.name,
            "seed": self.seed,
            "replications": self.replications,
            "params": self.params,
            "points": self.points,
            "base": self.base,
        }

    def __len__(self) -> int:
        return len(self.points) * self.replications

    def __repr__(self) -> str:
        return (f"<Sweep {self.name!r}: {len(self.points)} points x {self.replications} replications, "
                f"params {self.params}>")


def as_sweep(definition: Union[Sweep, Mapping[str, Any], Path_]) -> Sweep:
    """A Sweep from a Sweep, a dict (``Sweep.from_dict``) or the path of a sweep TOML file."""
    if isinstance(definition, Sweep):
        return definition
    if isinstance(definition, (str, os.PathLike)):
        return Sweep.load(definition)
    return Sweep.from_dict(definition)
