"""A store of finished runs that survives rebuilds.

A run's result is determined by three things: the scenario, the seed and the
core's *result version* (``cclab._core.RESULT_VERSION``, a number bumped by
hand with every change that can move a result, guarded by the digest test
``crates/cclab-sim/tests/result_version.rs``), and, for a run whose flows follow
a stack profile other than the default (``stack = "ns2"``), that profile's own
version (``cclab._core.stack_versions()``), bumped when a change moves only the
results under it (and, for a run whose groups under such a profile have a send ``overhead``,
the version of the profile's overhead, ``cclab._core.stack_overhead_versions()``), and, for a
run with a queue variant that has a version of its own (RED with ``ns2 = 1``), that version
(``cclab._core.queue_versions()``), and, for a run with a flow whose algorithm sets the window
from rate samples (bbr, bbr3, a ``cong_control`` hook), the version of the sender's side of
those (``cclab._core.CONG_CONTROL_VERSION``). The store keys each finished run on exactly those, so rebuilding the core (``pip install .``) keeps every run
whose results cannot have changed, and a change of what an experiment keeps of
a run (its ``measure``) reads the stored result instead of simulating again.

Where: ``$CCLAB_STORE`` if set, else ``$XDG_CACHE_HOME/cclab/runs`` (by
default ``~/.cache/cclab/runs``). Each run is a folder written by
``Result.save`` (Parquet tables, ``summary.json``, ``scenario.toml``) and moved
into place whole, so a killed run leaves nothing half-written. Delete the
folder to empty the store.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from . import _core
from .result import Result, load

__all__ = ["RunStore", "default_root", "result_versions", "run_key"]


def default_root() -> Path:
    """``$CCLAB_STORE``, else ``$XDG_CACHE_HOME/cclab/runs``, else ``~/.cache/cclab/runs``."""
    env = os.environ.get("CCLAB_STORE")
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "cclab" / "runs"


def _stacks_named(scenario: Mapping[str, Any]) -> set:
    groups = scenario.get("flows")
    named = [g.get("stack") for g in groups if isinstance(g, Mapping)] if isinstance(groups, list) else []
    web = scenario.get("web")
    if isinstance(web, Mapping):
        named.append(web.get("stack"))
    return {s for s in named if isinstance(s, str)}


def _stacks_with_overhead(scenario: Mapping[str, Any]) -> set:
    groups = scenario.get("flows")
    groups = groups if isinstance(groups, list) else []
    return {g.get("stack") for g in groups if isinstance(g, Mapping) and isinstance(g.get("stack"), str)
            and g.get("overhead") is not None}


def _links(scenario: Mapping[str, Any]) -> list:
    """The scenario's bottleneck and graph links as given (entries may be anything)."""
    topology = scenario.get("topology")
    if not isinstance(topology, Mapping):
        return []
    return [topology.get("bottleneck")] + list(topology.get("links") or [])


def _queue_variants(scenario: Mapping[str, Any]) -> set:
    """The queue variants with result versions of their own that the scenario's links use:
    ``"red ns2"`` for RED, ARED or gARED with ``queue_params.ns2`` set."""
    out = set()
    for link in _links(scenario):
        params = link.get("queue_params") if isinstance(link, Mapping) else None
        if isinstance(params, Mapping) and params.get("ns2") not in (None, 0, False):
            out.add("red ns2")
    return out


def _has_cong_control(scenario: Mapping[str, Any]) -> bool:
    """Whether a flow group or the web traffic of ``scenario`` runs an algorithm that sets the
    window from rate samples (``cong_control``)."""
    groups = scenario.get("flows")
    named = [g for g in groups if isinstance(g, Mapping)] if isinstance(groups, list) else []
    web = scenario.get("web")
    if isinstance(web, Mapping):
        named.append(web)
    for g in named:
        name, params = g.get("cc"), g.get("cc_params")
        if not isinstance(name, str):
            continue
        ok = isinstance(params, Mapping) and all(isinstance(k, str) and isinstance(v, (int, float))
                                                  and not isinstance(v, bool) for k, v in params.items())
        if _core.uses_rate_samples(name, {k: float(v) for k, v in params.items()} if ok else None):
            return True
    return False


def result_versions(scenario: Mapping[str, Any]) -> list:
    """The versions a run's results depend on: the core's RESULT_VERSION, then, if the scenario
    names stack profiles with versions of their own, those versions by name. A scenario that
    names none gives ``[RESULT_VERSION]`` alone, the key runs had before profiles had versions.
    A scenario naming an algorithm registered at run time adds ``{"external": {name: digest}}``."""
    versions = _core.stack_versions()
    own = {name: versions[name] for name in sorted(_stacks_named(scenario)) if versions.get(name, 0) > 0}
    # A profile's send overhead has a version of its own (StackProfile::overhead_version), in the
    # key of the runs whose groups follow it with an `overhead` only.
    overhead = _core.stack_overhead_versions()
    for name in sorted(_stacks_with_overhead(scenario)):
        if name in overhead:
            own[f"{name} overhead"] = overhead[name]
    # A queue variant's own version (crates/cclab-sim/src/queue/mod.rs, VARIANT_VERSIONS), in
    # the key of the runs with such a queue only.
    queues = _core.queue_versions()
    for name in sorted(_queue_variants(scenario)):
        if queues.get(name, 0) > 0:
            own[f"queue {name}"] = queues[name]
    # The flows whose algorithm sets the window from rate samples (bbr, bbr3) follow a version
    # of their own too (crates/cclab-sim/src/tcp/mod.rs, CONG_CONTROL_VERSION).
    if _has_cong_control(scenario):
        own["cong_control"] = int(_core.CONG_CONTROL_VERSION)
    out: list = [int(_core.RESULT_VERSION)] + ([own] if own else [])
    # An algorithm registered at run time (a Python class, a plugin) changes with its code, not
    # with RESULT_VERSION: its source's or library's digest is part of the key (cclab.cc).
    from .cc import fingerprints

    external = fingerprints(scenario)
    if external:
        out.append({"external": external})
    return out


def file_digests(scenario: Mapping[str, Any]) -> dict:
    """The SHA-256 of each trace or schedule file the scenario's links name (docs/links.md), by
    path: a run depends on their content, which the scenario's text does not hold."""
    out = {}
    for link in _links(scenario):
        if not isinstance(link, Mapping):
            continue
        for name in ("mahimahi", "rate_schedule", "delay_schedule", "loss_schedule"):
            path = link.get(name)
            if isinstance(path, str) and path not in out:
                try:
                    out[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                except OSError:
                    out[path] = "unreadable"
    return out


def run_key(scenario: Mapping[str, Any], seed: int) -> str:
    """The key of a run: a digest of the scenario (as given), the seed and the result versions
    (``result_versions``), and of the content of the files it names, if any (``file_digests``;
    a scenario naming none keeps the key it had before links could name files)."""
    files = file_digests(scenario)
    extra = [{"files": files}] if files else []
    blob = json.dumps([dict(scenario), int(seed), *result_versions(scenario), *extra], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class RunStore:
    """Finished runs by (scenario, seed, result version); see the module's doc."""

    def __init__(self, root: Union[str, "os.PathLike[str]", None] = None) -> None:
        self.root = Path(root) if root is not None else default_root()

    def path(self, scenario: Mapping[str, Any], seed: int) -> Path:
        k = run_key(scenario, seed)
        return self.root / f"v{_core.RESULT_VERSION}" / k[:2] / k

    def get(self, scenario: Mapping[str, Any], seed: int) -> Optional[Result]:
        """The stored result of this run, or None (also when the stored folder is unreadable)."""
        p = self.path(scenario, seed)
        if not (p / "summary.json").is_file():
            return None
        try:
            return load(p)
        except Exception:  # a damaged entry is a miss; it is overwritten by the next put
            return None

    def put(self, scenario: Mapping[str, Any], seed: int, result: Result, overwrite: bool = False) -> Path:
        """Stores ``result`` as the run of (scenario, seed); atomic, and a no-op when present
        (unless ``overwrite``)."""
        p = self.path(scenario, seed)
        if not overwrite and (p / "summary.json").is_file():
            return p
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=p.parent))
        try:
            result.save(tmp)
            if p.exists():  # overwritten, or a damaged earlier entry
                shutil.rmtree(p, ignore_errors=True)
            os.replace(tmp, p)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
            if not (p / "summary.json").is_file():
                raise
        return p

    def run(self, scenario: Mapping[str, Any], seed: int) -> Result:
        """The stored result of (scenario, seed), simulating and storing it first when absent."""
        hit = self.get(scenario, seed)
        if hit is not None:
            return hit
        from .run import run as run_scenario

        res = run_scenario(dict(scenario), seed=seed)
        self.put(scenario, seed, res)
        return res
