"""Parameter sweeps: a base scenario, a grid or a list of parameter settings,
replications with derived seeds; run on local processes or on Dask, resumable.

A sweep is data (``docs/sweeps.md``)::

    name = "buffer"
    base = "single-reno.toml"        # or an inline [base] table
    replications = 2
    seed = 1
    [grid]
    "topology.bottleneck.buffer" = ["0.25bdp", "0.5bdp", "1bdp"]
    "flows[0].cc" = ["newreno", "cubic"]

Every run is written to ``OUT/runs/<run id>/`` as soon as it finishes (built in
a hidden temporary folder, then renamed into place, so a folder under ``runs/``
is always complete), and a rerun skips the runs already there.

The run id and the seed of a run are hashes of its parameter values and its
replication number (and, for the seed, the sweep's master seed), not of its
position, so adding points or replications changes no other run::

    key     = canonical_json({"params": {path: value, ...}, "replication": r})
    run_id  = sha256(key).hexdigest()[:16]
    seed    = int.from_bytes(sha256(canonical_json({"params": ..., "replication": r,
                                                    "seed": master})).digest()[:8], "big") >> 1

where ``canonical_json`` is ``json.dumps(obj, sort_keys=True, separators=(",", ":"),
ensure_ascii=False)``; seeds are in [0, 2**63-1] so they fit a signed 64-bit column.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import itertools
import json
import math
import os
import re
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from . import _core
from .scenario import SEED_MAX, Scenario, ScenarioError, check, load_scenario, to_toml

__all__ = [
    "RunSpec",
    "Sweep",
    "SweepError",
    "SweepReport",
    "TIMING_COLUMNS",
    "derive_seed",
    "execute",
    "load_sweep",
    "run_id",
    "sweep",
    "sweep_stats",
    "t_quantile",
]

#: Columns of ``load_sweep`` that measure the machine, not the network: they differ between
#: two executions of the same run. Leave them out when comparing sweeps.
TIMING_COLUMNS = ("wall_time_s", "delivered_pkts_per_s")

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
        try:
            import tomllib  # Python >= 3.11
        except ImportError:  # pragma: no cover
            try:
                import tomli as tomllib  # type: ignore[no-redef]
            except ImportError:
                raise ImportError("reading a sweep file on Python < 3.11 needs tomli: pip install 'cclab[sweep]'")
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


# -- one run, in a worker ---------------------------------------------------------------------


def _commit(runs_dir: Path, rid: str, fill: Callable[[Path], None]) -> bool:
    """Builds a run folder in a hidden temporary folder, then renames it to runs/<rid>.
    False when runs/<rid> appeared meanwhile (another process finished it first)."""
    tmp = runs_dir / f"{_TMP_PREFIX}{rid}-{os.getpid()}-{secrets.token_hex(4)}"
    tmp.mkdir()
    try:
        fill(tmp)
        try:
            os.rename(tmp, runs_dir / rid)
        except OSError:
            if (runs_dir / rid / _RUN_JSON).is_file():
                shutil.rmtree(tmp, ignore_errors=True)
                return False
            raise
        return True
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _fill(folder: Path, record: Dict[str, Any], result: Any, scenario: Scenario) -> None:
    if result is not None:
        result.save(folder)
    else:
        try:
            (folder / "scenario.toml").write_text(to_toml(scenario), encoding="utf-8")
        except Exception:  # noqa: BLE001 - the record matters more than the copy of the scenario
            pass
        (folder / _ERROR_TXT).write_text(record.get("traceback", ""), encoding="utf-8")
    rec = {k: v for k, v in record.items() if k != "traceback"}
    (folder / _RUN_JSON).write_text(json.dumps(rec, indent=2) + "\n", encoding="utf-8")  # last: marks it complete


def _record(task: Mapping[str, Any]) -> Dict[str, Any]:
    return {
        "format": _FORMAT,
        "run_id": task["run_id"],
        "params": task["params"],
        "replication": task["replication"],
        "seed": task["seed"],
        "cclab_version": _core.__version__,
        "host": socket.gethostname(),
    }


def _execute(task: Mapping[str, Any], runs_dir: Optional[str], run_fn: Optional[RunFn] = None) -> Dict[str, Any]:
    """Runs one task. With ``runs_dir``, writes the run folder there; without, returns its
    files (``files``: name -> bytes) for the caller to write. Never raises for a
    failed run: the error is part of what it returns (and writes)."""
    t0 = time.perf_counter()
    record = _record(task)
    result = None
    try:
        if task["cclab_version"] != _core.__version__:
            raise RuntimeError(f"this worker has cclab {_core.__version__}, the sweep cclab {task['cclab_version']}")
        if run_fn is None:
            from .run import run as run_fn
        result = run_fn(task["scenario"], seed=task["seed"])
        record["status"] = "ok"
        record["summary"] = result.summary()
    except Exception as e:  # noqa: BLE001 - a failed run is recorded, the sweep goes on
        record["status"] = "failed"
        record["error"] = _one_line(e)
        record["traceback"] = traceback.format_exc()
    record["elapsed_s"] = time.perf_counter() - t0
    out = {"run_id": task["run_id"], "status": record["status"], "error": record.get("error")}
    if runs_dir is not None:
        out["committed"] = _commit(Path(runs_dir), task["run_id"], lambda d: _fill(d, record, result, task["scenario"]))
    else:
        with tempfile.TemporaryDirectory(prefix="cclab-run-") as tmp:
            _fill(Path(tmp), record, result, task["scenario"])
            out["files"] = {f.name: f.read_bytes() for f in Path(tmp).iterdir()}
    return out


def _one_line(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip()
    return text.splitlines()[0] if text else type(e).__name__


def _write_files(runs_dir: Path, rid: str, files: Mapping[str, bytes]) -> bool:
    def fill(d: Path) -> None:
        for name, data in files.items():
            if name != _RUN_JSON:
                (d / name).write_bytes(data)
        (d / _RUN_JSON).write_bytes(files[_RUN_JSON])

    return _commit(runs_dir, rid, fill)


def _failed_here(task: Mapping[str, Any], runs_dir: Path, error: str, tb: str) -> Dict[str, Any]:
    """Records a run that failed outside the run function (a worker died, a task was lost)."""
    record = _record(task)
    record.update(status="failed", error=error, traceback=tb, elapsed_s=None)
    committed = _commit(runs_dir, task["run_id"], lambda d: _fill(d, record, None, task["scenario"]))
    return {"run_id": task["run_id"], "status": "failed", "error": error, "committed": committed}


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group; the parent decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


# -- executors ----------------------------------------------------------------------------------


OnDone = Callable[[Dict[str, Any]], None]


def _run_inline(tasks: Iterator[Dict[str, Any]], runs_dir: Path, run_fn: Optional[RunFn], on_done: OnDone) -> None:
    for task in tasks:
        on_done(_execute(task, str(runs_dir), run_fn))


def _kill_pool(pool: Any) -> None:
    for p in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            p.terminate()
        except Exception:  # noqa: BLE001
            pass
    pool.shutdown(wait=False, cancel_futures=True)


def _run_pool(
    tasks: Iterator[Dict[str, Any]], runs_dir: Path, jobs: int, run_fn: Optional[RunFn], on_done: OnDone
) -> None:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("spawn")

    def new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init)

    pool = new_pool()
    inflight: Dict[Any, Dict[str, Any]] = {}
    retry: List[Dict[str, Any]] = []
    deaths: Dict[str, int] = {}
    finished_on_pool = 0  # tasks this pool finished
    barren = 0  # pools in a row that broke before finishing any task

    def fill() -> None:
        # At most two tasks per worker in flight: Ctrl-C has little to cancel, and a
        # worker that dies takes few tasks with it.
        while len(inflight) < 2 * jobs:
            task = retry.pop() if retry else next(tasks, None)
            if task is None:
                return
            inflight[pool.submit(_execute, task, str(runs_dir), run_fn)] = task

    try:
        fill()
        while inflight:
            done, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                task = inflight.pop(fut)
                try:
                    outcome = fut.result()
                except BrokenProcessPool:
                    broken = True
                    deaths[task["run_id"]] = deaths.get(task["run_id"], 0) + 1
                    if deaths[task["run_id"]] < 2:
                        retry.append(task)
                        continue
                    outcome = _failed_here(task, runs_dir, "the worker process died while running it, twice "
                                           "(killed, out of memory, or crashed)", "")
                except Exception as e:  # noqa: BLE001 - e.g. the run function does not pickle
                    outcome = _failed_here(task, runs_dir, _one_line(e), traceback.format_exc())
                finished_on_pool += 1
                on_done(outcome)
            if broken:
                # Every task in flight on a broken pool fails with it: run them again on a new pool.
                barren = barren + 1 if finished_on_pool == 0 else 0
                if barren >= 2:
                    raise RuntimeError(
                        "the worker processes die before finishing any run (see their messages above). "
                        "They are started with 'spawn': a script that calls cclab.sweep must do it under "
                        "if __name__ == '__main__':, and the run function must be importable by name")
                retry.extend(inflight.values())
                inflight.clear()
                _kill_pool(pool)
                pool = new_pool()
                finished_on_pool = 0
            fill()
    except BaseException:
        _kill_pool(pool)
        raise
    pool.shutdown(wait=True)


def _run_dask(
    tasks: Iterator[Dict[str, Any]], runs_dir: Path, dask: Any, run_fn: Optional[RunFn], on_done: OnDone
) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise _error("--dask", "running on Dask needs dask.distributed: pip install 'cclab[sweep]'", dask,
                     "a scheduler address such as tcp://host:8786, with dask[distributed] installed") from None
    own = False
    if isinstance(dask, str):
        try:
            client = Client(dask, timeout="20s", set_as_default=False)
        except (OSError, TimeoutError) as e:
            raise _error("--dask", f"cannot reach the Dask scheduler at {dask}: {e}", dask,
                         "the address of a running scheduler, such as tcp://host:8786") from None
        own = True
    elif hasattr(dask, "submit"):
        client = dask
    elif hasattr(dask, "scheduler_address"):  # a cluster object
        client = Client(dask, set_as_default=False)
        own = True
    else:
        raise TypeError(f"dask: expected a scheduler address, a distributed.Client or a cluster, not {type(dask).__name__}")
    futures: Dict[Any, Dict[str, Any]] = {}
    try:
        token = secrets.token_hex(4)
        for task in tasks:
            fut = client.submit(_execute, task, None, run_fn, key=f"cclab-run-{task['run_id']}-{token}", pure=False)
            futures[fut] = task
        for fut in as_completed(list(futures), loop=client.loop):
            task = futures.pop(fut)
            try:
                out = fut.result()
            except Exception as e:  # noqa: BLE001 - a lost worker, a task that did not deserialize...
                on_done(_failed_here(task, runs_dir, _one_line(e), traceback.format_exc()))
                continue
            finally:
                fut.release()
            files = out.pop("files")
            out["committed"] = _write_files(runs_dir, task["run_id"], files)
            on_done(out)
    except BaseException:
        client.cancel(list(futures))
        raise
    finally:
        if own:
            client.close()


# -- progress -------------------------------------------------------------------------------------


class _Progress:
    """A rich progress bar on a terminal (runs done, failed, time left), else a line every 10%."""

    def __init__(self, enabled: bool, name: str, total: int, done: int) -> None:
        self.total, self.done, self.failed = total, done, 0
        self._bar = None
        self._plain = False
        self._next_plain = 0.1
        self._t0 = time.monotonic()
        self._start_done = done
        if not enabled or total == done:
            return
        from rich.console import Console

        console = Console(stderr=True)
        if console.is_terminal:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                       TimeRemainingColumn)

            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("runs,"),
                TextColumn("[red]{task.fields[failed]} failed"),
                TimeElapsedColumn(),
                TextColumn("eta"),
                TimeRemainingColumn(),
                console=console,
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task(name, total=total, completed=done, failed=0)
        else:
            self._plain = True

    def advance(self, ok: bool) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        if self._bar is not None:
            self._bar.update(self._task, advance=1, failed=self.failed)
        elif self._plain and self.done / self.total >= self._next_plain:
            while self.done / self.total >= self._next_plain:
                self._next_plain += 0.1
            ran = self.done - self._start_done
            dt = time.monotonic() - self._t0
            eta = (self.total - self.done) * dt / ran if ran else float("nan")
            print(f"{self.done}/{self.total} runs done, {self.failed} failed, "
                  f"{dt:.0f} s elapsed, about {eta:.0f} s left", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


# -- a sweep, end to end ---------------------------------------------------------------------------


@dataclasses.dataclass
class SweepReport:
    """What ``execute`` did."""

    name: str
    out: Path
    total: int  # runs in the sweep
    skipped: int  # already complete before this execution
    ok: int  # finished in this execution
    failed: List[Dict[str, Any]]  # {run_id, params, replication, error} of the runs that failed
    elapsed_s: float
    executor: str


def _prepare(out: Path, sw: Sweep) -> Optional[Any]:
    """Checks that ``out`` is new or holds this sweep, before anything is written; then
    creates it, takes its lock and writes sweep.json. Returns the lock's file (keep it open)."""
    meta_path = out / _SWEEP_JSON
    if meta_path.is_file():
        old = json.loads(meta_path.read_text(encoding="utf-8"))
        why = None
        if old.get("format") != _FORMAT:
            why = f"it was written in sweep format {old.get('format')}"
        elif old.get("cclab_version") != _core.__version__:
            why = f"it was started with cclab {old.get('cclab_version')}, this is cclab {_core.__version__}"
        elif _canonical(old.get("base")) != _canonical(sw.base):
            why = "its base scenario differs"
        elif old.get("seed") != sw.seed:
            why = f"its master seed is {old.get('seed')}, this sweep's is {sw.seed}"
        if why:
            raise _error("--out", f"{out} holds another sweep ({why}); choose another folder or delete it",
                         out, "a new folder, or one that holds this sweep (same base, seed and cclab version)")
    elif out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise _error("--out", f"{out} exists and is not a sweep folder (it has no {_SWEEP_JSON})", out,
                     "a new or empty folder, or one that holds this sweep")
    (out / "runs").mkdir(parents=True, exist_ok=True)
    lock = None
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        fcntl = None  # type: ignore[assignment]
    if fcntl is not None:
        lock = open(out / ".lock", "w")
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            raise _error("--out", f"another cclab sweep is writing to {out}", out, "one sweep per folder at a time")
    tmp = out / f"{_TMP_PREFIX}{_SWEEP_JSON}"
    tmp.write_text(json.dumps(sw.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, meta_path)
    return lock


def _default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))  # type: ignore[attr-defined]
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1


def execute(
    definition: Union[Sweep, Mapping[str, Any], Path_],
    out: Path_,
    *,
    jobs: Optional[int] = None,
    dask: Any = None,
    progress: bool = False,
    run: Optional[RunFn] = None,
) -> SweepReport:
    """Runs the runs of a sweep that ``out`` does not hold yet; returns a SweepReport.
    ``sweep`` is this plus ``load_sweep``; the arguments are the same."""
    sw = as_sweep(definition)
    out = Path(out)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise _error("--jobs", f"invalid value {jobs!r}", jobs, "a whole number >= 1")
    if jobs is not None and dask is not None:
        raise _error("--jobs", "--jobs and --dask exclude each other (Dask has its own workers)", jobs,
                     "one of --jobs and --dask")
    t0 = time.monotonic()
    lock = _prepare(out, sw)
    try:
        runs_dir = out / "runs"
        for stale in runs_dir.glob(_TMP_PREFIX + "*"):  # left by a run that was killed while writing
            shutil.rmtree(stale, ignore_errors=True)
        specs = sw.runs()
        pending: List[RunSpec] = []
        for s in specs:
            rec = _read_record(runs_dir / s.run_id)
            if rec is not None and rec.get("status") == "ok":
                continue
            if (runs_dir / s.run_id).exists():  # a failed run: try it again
                shutil.rmtree(runs_dir / s.run_id)
            pending.append(s)
        skipped = len(specs) - len(pending)
        n_jobs = jobs if jobs is not None else _default_jobs()
        n_jobs = max(1, min(n_jobs, len(pending)))
        if not pending:
            executor = "none (nothing left to run)"
        elif dask is not None:
            executor = f"dask ({dask if isinstance(dask, str) else type(dask).__name__})"
        else:
            executor = f"{n_jobs} local processes" if n_jobs > 1 else "this process"
        report = SweepReport(sw.name, out, len(specs), skipped, 0, [], 0.0, executor)
        if progress and pending:
            print(f"sweep {sw.name}: {len(specs)} runs ({len(sw.points)} points x {sw.replications} replications), "
                  f"{skipped} already done, {len(pending)} to run on {executor}", file=sys.stderr, flush=True)
        bar = _Progress(progress, sw.name, len(specs), skipped)
        by_id = {s.run_id: s for s in pending}

        def tasks() -> Iterator[Dict[str, Any]]:
            for s in pending:
                yield {"run_id": s.run_id, "params": s.params, "replication": s.replication, "seed": s.seed,
                       "scenario": sw.scenario(s.point), "cclab_version": _core.__version__}

        def on_done(o: Dict[str, Any]) -> None:
            if o["status"] == "ok":
                report.ok += 1
            else:
                s = by_id[o["run_id"]]
                report.failed.append({"run_id": s.run_id, "params": s.params, "replication": s.replication,
                                      "error": o.get("error")})
            bar.advance(o["status"] == "ok")

        try:
            if not pending:
                pass
            elif dask is not None:
                _run_dask(tasks(), runs_dir, dask, run, on_done)
            elif n_jobs == 1:
                _run_inline(tasks(), runs_dir, run, on_done)
            else:
                _run_pool(tasks(), runs_dir, n_jobs, run, on_done)
        except KeyboardInterrupt:
            bar.close()
            kept = sum((runs_dir / s.run_id / _RUN_JSON).is_file() for s in specs)
            print(f"interrupted: {kept} of {len(specs)} runs are in {runs_dir}; "
                  "run the same sweep again to resume", file=sys.stderr, flush=True)
            raise
        finally:
            bar.close()
        report.elapsed_s = time.monotonic() - t0
        return report
    finally:
        if lock is not None:
            lock.close()


def sweep(
    definition: Union[Sweep, Mapping[str, Any], Path_],
    out: Path_,
    *,
    jobs: Optional[int] = None,
    dask: Any = None,
    progress: bool = False,
    run: Optional[RunFn] = None,
) -> pd.DataFrame:
    """Runs a sweep into the folder ``out`` and returns its table (``load_sweep``'s
    columns, the runs of this sweep only).

    ``definition``: the path of a sweep TOML file, a dict with its keys, or a Sweep.
    ``jobs``: local worker processes (default: every core; 1 runs in this process).
    ``dask``: instead, a Dask scheduler address (``"tcp://host:8786"``), a
    ``distributed.Client`` or a cluster; results travel back to this process,
    which writes them, so the workers need cclab but no shared folder.
    ``progress``: a progress bar on stderr. ``run``: the function that runs one
    scenario, called as ``run(scenario, seed=seed)`` (default ``cclab.run``); for
    processes or Dask it must be importable by name.

    Runs already in ``out`` are skipped; failed runs are recorded (``status``,
    ``error``) and tried again by the next execution. Uses a process pool with
    the ``spawn`` start method: in a script, call it under ``if __name__ == "__main__":``.
    """
    sw = as_sweep(definition)
    execute(sw, out, jobs=jobs, dask=dask, progress=progress, run=run)
    return load_sweep(out, runs=[s.run_id for s in sw.runs()])


# -- reading -----------------------------------------------------------------------------------------


def _read_record(folder: Path) -> Optional[Dict[str, Any]]:
    try:
        return json.loads((folder / _RUN_JSON).read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return None


def _cell(v: Any) -> Any:
    return _canonical(v) if isinstance(v, (dict, list)) else v


def load_sweep(directory: Path_, *, runs: Optional[Iterable[str]] = None) -> pd.DataFrame:
    """The table of a sweep folder: one row per run.

    Columns: the swept parameters (named by their paths; a table or list value as
    JSON text), ``replication``, ``seed``, ``run_id``, ``status`` (``"ok"`` or
    ``"failed"``), the summary values of the run (``Result.summary()`` without
    ``name`` and ``seed``; empty for a failed run) and ``error`` (the failure in
    one line; the traceback is in ``runs/<run_id>/error.txt``). Rows in the order
    of the sweep's points, then replications. ``cclab.load(directory / "runs" /
    run_id)`` gives a run's full Result.

    ``runs``: only these run ids (default: every run in the folder).
    """
    d = Path(directory)
    meta_path = d / _SWEEP_JSON
    if not meta_path.is_file():
        raise FileNotFoundError(2, f"no cclab sweep here ({_SWEEP_JSON} is missing)", str(d))
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    wanted = set(runs) if runs is not None else None
    order = {_canonical(p): i for i, p in enumerate(meta.get("points", []))}
    records = []
    runs_dir = d / "runs"
    if runs_dir.is_dir():
        for f in runs_dir.iterdir():
            if f.name.startswith(_TMP_PREFIX) or (wanted is not None and f.name not in wanted):
                continue
            rec = _read_record(f)
            if rec is not None:
                records.append(rec)
    records.sort(key=lambda r: (order.get(_canonical(r["params"]), len(order)), _canonical(r["params"]),
                                r["replication"]))
    params = list(meta.get("params", []))
    for r in records:
        params.extend(p for p in r["params"] if p not in params)
    summary_keys: List[str] = []
    for r in records:
        summary_keys.extend(k for k in r.get("summary", {}) if k not in summary_keys and k not in ("name", "seed"))
    fixed = ["replication", "seed", "run_id", "status"]
    clash = set(params) | set(fixed) | {"error"}
    rows = []
    for r in records:
        row: Dict[str, Any] = {p: _cell(r["params"].get(p)) for p in params}
        row.update(replication=r["replication"], seed=r["seed"], run_id=r["run_id"], status=r["status"])
        s = r.get("summary", {})
        for k in summary_keys:
            row[f"result.{k}" if k in clash else k] = s.get(k, math.nan)
        row["error"] = r.get("error")
        rows.append(row)
    cols = params + fixed + [f"result.{k}" if k in clash else k for k in summary_keys] + ["error"]
    df = pd.DataFrame(rows, columns=cols)
    if not df.empty:
        df["replication"] = df["replication"].astype("int64")
        df["seed"] = df["seed"].astype("int64")
    df.attrs["params"] = params
    df.attrs["sweep"] = meta.get("name")
    df.attrs["directory"] = str(d)
    return df


# -- statistics ------------------------------------------------------------------------------------


def _t_two_sided(t: float, nu: int) -> float:
    """P(|T| <= t) for Student's t with ``nu`` degrees of freedom (integer): the closed
    forms of Abramowitz & Stegun 26.7.3 and 26.7.4."""
    theta = math.atan(t / math.sqrt(nu))
    s, c = math.sin(theta), math.cos(theta)
    c2 = c * c
    if nu % 2 == 1:
        if nu == 1:
            return 2 * theta / math.pi
        term, total = 1.0, 1.0
        for k in range(1, (nu - 3) // 2 + 1):
            term *= c2 * (2 * k) / (2 * k + 1)
            total += term
        return 2 / math.pi * (theta + s * c * total)
    term, total = 1.0, 1.0
    for k in range(1, (nu - 2) // 2 + 1):
        term *= c2 * (2 * k - 1) / (2 * k)
        total += term
    return s * total


def t_quantile(confidence: float, df: int) -> float:
    """The two-sided critical value of Student's t: the t with P(|T| <= t) = confidence,
    for ``df`` degrees of freedom (e.g. 12.706 for 0.95 and 1, 2.262 for 0.95 and 9).

    Computed, not looked up: the exact t distribution function for integer degrees
    of freedom (Abramowitz & Stegun 26.7.3-4, a finite sum) inverted by bisection
    to 1e-12; degrees of freedom above 10,000 are taken as 10,000 (within 3e-4 of
    the normal quantile's t)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence: invalid value {confidence!r}; accepted: a number in (0, 1)")
    if isinstance(df, bool) or int(df) != df or df < 1:
        raise ValueError(f"df: invalid value {df!r}; accepted: a whole number >= 1")
    return _t_quantile(float(confidence), min(int(df), 10_000))


@functools.lru_cache(maxsize=None)
def _t_quantile(confidence: float, nu: int) -> float:
    lo, hi = 0.0, 1.0
    while _t_two_sided(hi, nu) < confidence:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if _t_two_sided(mid, nu) < confidence:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2


def sweep_stats(
    frame: pd.DataFrame,
    metrics: Union[str, Sequence[str], None] = None,
    by: Union[str, Sequence[str], None] = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Statistics over the replications of each point of a ``load_sweep`` table.

    One row per point (``by``: the columns to group by; default the parameter
    columns, those before ``replication``) and metric, with ``n`` (runs with a
    value; failed runs have none), ``mean``, ``std`` (sample standard deviation,
    n - 1), and the half-width of the two-sided confidence interval of the mean
    by Student's t, ``t(confidence, n - 1) x std / sqrt(n)``, in a column named
    ``ci95`` for 0.95 (``ci99`` for 0.99...); NaN when n < 2.

    ``metrics``: a column or columns; default every numeric result column (not
    ``replication``, ``seed`` or the parameters).
    """
    cols = list(frame.columns)
    if by is None:
        if frame.attrs.get("params"):
            by = list(frame.attrs["params"])
        else:
            by = cols[: cols.index("replication")] if "replication" in cols else []
    elif isinstance(by, str):
        by = [by]
    else:
        by = list(by)
    for c in by:
        if c not in cols:
            raise KeyError(f"by: no column {c!r}; columns: {cols}")
    if metrics is None:
        skip = set(by) | {"replication", "seed", "run_id", "status", "error"}
        metrics = [c for c in cols if c not in skip and pd.api.types.is_numeric_dtype(frame[c])]
    elif isinstance(metrics, str):
        metrics = [metrics]
    ci_name = f"ci{confidence * 100:g}"
    rows = []
    groups = frame.groupby(by, sort=False, dropna=False) if by else [((), frame)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        if "status" in cols:
            g = g[g["status"] == "ok"]  # a point whose runs all failed stays, with n = 0
        for m in metrics:
            if m not in cols:
                raise KeyError(f"metrics: no column {m!r}; columns: {cols}")
            x = pd.to_numeric(g[m], errors="coerce").dropna().to_numpy(dtype=float)
            n = int(x.size)
            mean = float(x.mean()) if n else math.nan
            std = float(x.std(ddof=1)) if n >= 2 else math.nan
            half = t_quantile(confidence, n - 1) * std / math.sqrt(n) if n >= 2 else math.nan
            rows.append({**dict(zip(by, key)), "metric": m, "n": n, "mean": mean, "std": std, ci_name: half})
    out = pd.DataFrame(rows, columns=[*by, "metric", "n", "mean", "std", ci_name])
    out.attrs["confidence"] = confidence
    return out


# -- the command's report -------------------------------------------------------------------------


def print_report(report: SweepReport, console: Any, max_failures: int = 20) -> None:
    """The end-of-sweep summary for the command line."""
    from rich.table import Table

    t = Table(title=f"sweep {report.name}", title_justify="left", show_header=False)
    t.add_column("what")
    t.add_column("value", justify="right")
    t.add_row("runs in the sweep", f"{report.total}")
    t.add_row("already done before", f"{report.skipped}")
    t.add_row("finished now", f"{report.ok}")
    t.add_row("failed", f"{len(report.failed)}", style="red" if report.failed else None)
    t.add_row("executor", report.executor)
    t.add_row("wall time", f"{report.elapsed_s:.1f} s")
    console.print(t)
    if report.failed:
        f = Table(title="failed runs (tried again when the sweep is run again)", title_justify="left")
        for col in ("run id", "parameters", "rep", "error"):
            f.add_column(col)
        for r in report.failed[:max_failures]:
            f.add_row(r["run_id"], _params_text(r["params"]), str(r["replication"]), str(r["error"]))
        if len(report.failed) > max_failures:
            f.caption = f"... and {len(report.failed) - max_failures} more; load_sweep() lists them all"
        console.print(f)
        console.print(f"tracebacks: {report.out / 'runs'}/<run id>/{_ERROR_TXT}")
    console.print(f"wrote {report.out} (cclab.load_sweep({str(report.out)!r}))")
