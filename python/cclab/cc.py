"""Congestion controls written outside cclab: a Python class, or a plugin library built in
your own Rust crate (docs/writing-an-algorithm.md).

A Python class has the hooks of the Rust trait ``CongestionControl``
(crates/cclab-sim/src/cc/mod.rs), under the same names and with the same arguments::

    class MyReno(cclab.CongestionControl):
        def __init__(self, beta: float = 0.5):      # cc_params, by name, numbers
            self.beta = beta
        def ssthresh(self, v):                      # a loss: the new threshold, packets
            return cclab.cc.multiplicative_decrease(v.cwnd, self.beta)
        def cong_avoid(self, v, acked):             # an ACK outside recovery: the new window
            return cclab.cc.slow_start_then_increase(v, acked, 1.0)

    cclab.register_cc("myreno", MyReno)
    cclab.run(scenario_with_cc_myreno)

``ssthresh`` and ``cong_avoid`` are required; the others are called only when the class
defines them (each costs a Python call per ACK or per packet). The core calls the hooks
from the simulation: the Python code runs in the same process, under the GIL, in simulated
time. A hook that raises stops the run with ``cclab.AlgorithmError`` naming the
algorithm, the hook and the exception (which is its ``__cause__``).

A plugin is a library built from a Rust crate that implements the same trait against
cclab-sim and exports its entries with ``cclab_plugin::export!``;
``cclab.load_plugin(path)`` registers them (examples/plugin-cc/).
"""

from __future__ import annotations

import hashlib
import inspect
import math
import os
import pickle
import sys
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from . import _core

__all__ = [
    "AckSample",
    "AlgorithmError",
    "CcObservation",
    "CongControl",
    "CongestionControl",
    "MIN_WINDOW",
    "PluginError",
    "RateSample",
    "SenderView",
    "additive_increase",
    "grow",
    "halve",
    "load_plugin",
    "multiplicative_decrease",
    "register_cc",
    "slow_start",
    "slow_start_then",
    "slow_start_then_increase",
]

#: The view of the sender each hook gets: ``now``, ``cwnd``, ``ssthresh`` (``inf`` before
#: the first loss), ``flight_size``, ``srtt``, ``rtt_min`` (seconds, 0 before the first
#: sample), ``mss`` (bytes), ``state`` (``"open"``, ``"disorder"``, ``"recovery"``,
#: ``"loss"``), ``snd_una``, ``snd_nxt``, ``in_flight``, ``delivered``, ``delivered_time``,
#: ``lost``, ``app_limited``, ``next_tx_time``; times in seconds, windows in packets.
SenderView = _core.SenderView
#: ``pkts_acked``'s sample: ``acked`` (packets), ``rtt`` (seconds or None), ``rcv_tsval``,
#: ``cc_echo`` (3 words), ``ece``.
AckSample = _core.AckSample
#: ``cong_control``'s rate sample: ``delivery_rate`` (bit/s or None), ``interval``, ``rtt``
#: (seconds or None), ``delivered``, ``prior_delivered``, ``is_app_limited``, ``losses``,
#: ``acked_sacked``, ``prior_in_flight``.
RateSample = _core.RateSample
#: What ``cong_control``, ``init`` and ``cwnd_event_control`` return:
#: ``CongControl(cwnd, pacing_rate=None, mark_app_limited=False)``, the rate in bit/s.
CongControl = _core.CongControl
#: What ``observe`` returns for the ``cc_series`` table:
#: ``CcObservation(state, pacing_gain=1.0, cwnd_gain=1.0, bw_bps=0.0, min_rtt=None)``.
CcObservation = _core.CcObservation
AlgorithmError = _core.AlgorithmError


class PluginError(ValueError):
    """A plugin library could not be loaded (not found, not a cclab plugin, another plugin ABI,
    a name already taken). The message is one line naming the library."""


class CongestionControl:
    """Base class of an algorithm written in Python (optional: any class with ``ssthresh`` and
    ``cong_avoid`` does). The optional hooks below are documentation: the core calls a hook
    only if the registered class defines it itself (or inherits it from a class other than
    this one).

    The constructor's parameters are the algorithm's ``cc_params``: each needs a default and
    takes a number. Raise ``ValueError`` in ``__init__`` to refuse a value.
    """

    #: ``True``: the flows are ECN-capable and the receiver echoes every CE mark (DCTCP's
    #: ``TCP_CONG_NEEDS_ECN``).
    needs_ecn: bool = False

    def ssthresh(self, v: Any) -> float:
        """A loss was detected (fast retransmit or timeout): the new slow-start threshold, packets."""
        raise NotImplementedError

    def cong_avoid(self, v: Any, acked: int) -> float:
        """``acked`` packets were newly acknowledged outside recovery (slow start included): the
        new window, packets."""
        raise NotImplementedError

    def pkts_acked(self, v: Any, sample: Any) -> None:
        """Every ACK that acknowledges data, before ``cong_avoid``, with its ``AckSample``."""

    def ssthresh_after_ack(self, v: Any) -> Optional[float]:
        """Right after ``pkts_acked``: a threshold set outside a loss (HyStart), or None."""

    def ecn_ssthresh(self, v: Any) -> float:
        """An ECN echo reduces the window: the new threshold (default: ``ssthresh``)."""
        return self.ssthresh(v)

    def set_state(self, v: Any, state: str) -> None:
        """The sender enters ``state``: ``"open"``, ``"disorder"``, ``"recovery"`` or ``"loss"``."""

    def cwnd_event(self, v: Any, event: str) -> None:
        """``"tx_start"``, ``"timeout"`` or ``"recovery_end"``."""

    def undo_cwnd(self, v: Any) -> Optional[float]:
        """A loss was spurious: the window to restore, or None."""

    def on_send(self, v: Any, seq: int) -> Optional[Tuple[int, ...]]:
        """A data segment leaves: up to 3 whole numbers (32 bits) the receiver echoes in
        ``AckSample.cc_echo``, or None."""

    def init(self, v: Any) -> Optional[Any]:
        """The flow starts: a ``CongControl`` to set the first window and pacing rate, or None."""

    def cong_control(self, v: Any, rs: Any) -> Optional[Any]:
        """Every ACK, after loss detection, with its ``RateSample``: a ``CongControl`` (the
        window and pacing rate from now on; ``cong_avoid`` is then not called), or None.
        Defining it turns on the rate samples (Linux: ops that set ``cong_control``)."""

    def cwnd_event_control(self, v: Any, event: str) -> Optional[Any]:
        """With ``cong_control``: a segment leaves with nothing in flight (``"tx_start"``): a
        ``CongControl`` or None (BBR's restart from idle)."""

    def set_rng(self, rng: Any) -> None:
        """Once, before ``init``: a ``random.Random`` seeded from the flow's own stream. Draw
        from it (never from ``random`` itself) to keep runs deterministic."""

    def observe(self) -> Optional[Any]:
        """When the time series is sampled: a ``CcObservation`` for the ``cc_series`` table, or None."""


_OPTIONAL = tuple(_core.optional_hooks())

# -- window arithmetic, as crates/cclab-sim/src/cc/window.rs (the same float operations in the
# same order, so a Python algorithm built on them gives the Rust one's bits) -----------------

#: The smallest window a loss leaves, packets (RFC 5681 eq. 4's 2*SMSS).
MIN_WINDOW = 2.0


def slow_start(cwnd: float, ssthresh: float, acked: int) -> Tuple[float, int]:
    """Slow start (RFC 5681 with appropriate byte counting): grows by the packets acknowledged,
    up to ``ssthresh``. Returns the new window and the packets left for congestion avoidance."""
    room = max(ssthresh - cwnd, 0.0)
    used = min(float(acked), room if math.isinf(room) else float(math.ceil(room)))
    new = min(cwnd + used, max(ssthresh, cwnd))
    return new, acked - int(used)


def additive_increase(cwnd: float, a: float, acked: int) -> float:
    """``a`` packets per window's worth of ACKs: ``a/cwnd`` per acknowledged packet."""
    return cwnd + a * float(acked) / cwnd


def grow(v: Any, acked: int, slow_start_fn: Any, increase: Any) -> float:
    """``slow_start_fn(cwnd, ssthresh, acked)`` below ssthresh, then ``increase(window, left)``
    with the packets the ACK leaves over, called only when some are left."""
    if v.cwnd < v.ssthresh:
        w, left = slow_start_fn(v.cwnd, v.ssthresh, acked)
    else:
        w, left = v.cwnd, acked
    if left == 0:
        return w
    return increase(w, left)


def slow_start_then(v: Any, acked: int, increase: Any) -> float:
    """Slow start below ssthresh, then ``increase(window, left)``."""
    return grow(v, acked, slow_start, increase)


def slow_start_then_increase(v: Any, acked: int, a: float) -> float:
    """The common growth: slow start below ssthresh, then ``a`` packets per RTT."""
    return slow_start_then(v, acked, lambda w, left: additive_increase(w, a, left))


def multiplicative_decrease(cwnd: float, beta: float) -> float:
    """Keeps ``beta`` of the window, at least ``MIN_WINDOW``."""
    return max(beta * cwnd, MIN_WINDOW)


def halve(v: Any) -> float:
    """Reno's loss response, ``max(cwnd/2, 2)``."""
    return multiplicative_decrease(v.cwnd, 0.5)


# -- registration ------------------------------------------------------------------------------

#: Everything registered in this process, in order, to replay in sweep worker processes:
#: ("class", name, cls, summary) and ("plugin", path).
_REGISTRATIONS: List[Tuple[Any, ...]] = []
#: A fingerprint of what each external name runs (store keys): the class's source, the library's bytes.
_FINGERPRINTS: Dict[str, str] = {}


def _parameters(cls: type) -> List[Tuple[str, float]]:
    sig = inspect.signature(cls)
    out = []
    for p in sig.parameters.values():
        where = f"{cls.__qualname__}.__init__ parameter '{p.name}'"
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"{where}: *args and **kwargs are not accepted (name each parameter, with a default)")
        if p.kind == p.POSITIONAL_ONLY:
            raise TypeError(f"{where}: positional-only; cc_params are given by name")
        if p.default is p.empty:
            raise TypeError(f"{where} has no default: cc_params are optional numbers, each with its default")
        if isinstance(p.default, bool) or not isinstance(p.default, (int, float)):
            raise TypeError(f"{where}: default {p.default!r}; cc_params are numbers")
        out.append((p.name, float(p.default)))
    return out


def _hooks(cls: type) -> List[str]:
    """The optional hooks ``cls`` defines (not the no-ops of CongestionControl)."""
    out = []
    for name in _OPTIONAL:
        own = inspect.getattr_static(cls, name, None)
        if own is None or own is inspect.getattr_static(CongestionControl, name, None):
            continue
        out.append(name)
    return out


def _source_fingerprint(cls: type) -> str:
    """A digest of the source the class runs: its module's file (helpers included), else the
    class's own source, else a token unique to this process (a run of it is never reused)."""
    module = sys.modules.get(cls.__module__)
    text = None
    try:
        text = inspect.getsource(module) if module is not None else None
    except (OSError, TypeError):
        try:
            text = inspect.getsource(cls)
        except (OSError, TypeError):
            text = None
    if text is None:
        text = f"{cls.__module__}.{cls.__qualname__} in process {os.getpid()} at {id(cls)}"
    return hashlib.sha256(f"{cls.__module__}.{cls.__qualname__}\n{text}".encode()).hexdigest()[:16]


def register_cc(name: str, cls: type, *, summary: Optional[str] = None, replace: bool = False) -> None:
    """Registers the class ``cls`` as the congestion control ``name``: scenarios then write
    ``cc = "name"`` (and ``cc_params``, passed to its constructor by name), ``cclab
    algorithms`` lists it after the built-ins, and ``"name+ktcp"`` wraps it.

    ``summary``: the line ``cclab algorithms`` shows (default: the first line of the class's
    docstring). ``replace=True`` registers a new version of a class under a name it already
    registered (as a notebook redefines it); runs already built keep the old one. A name of a
    built-in or of a plugin's algorithm is never replaced.

    Raises TypeError when the class lacks ``ssthresh`` or ``cong_avoid`` or its constructor's
    parameters are not numbers with defaults, ValueError when the name is taken or invalid.
    """
    if not isinstance(cls, type):
        raise TypeError(f"register_cc: expected a class, not {type(cls).__name__}")
    for required in ("ssthresh", "cong_avoid"):
        own = inspect.getattr_static(cls, required, None)
        if own is None or own is inspect.getattr_static(CongestionControl, required, None):
            raise TypeError(f"register_cc: {cls.__qualname__} does not define {required}(), which every algorithm needs")
    params = _parameters(cls)
    if summary is None:
        doc = inspect.getdoc(cls) if cls.__doc__ else None
        summary = doc.strip().splitlines()[0] if doc else f"{cls.__qualname__} (Python)"
    _core.register_python_cc(name, f"{summary} [Python: {cls.__module__}.{cls.__qualname__}]", cls, params,
                             _hooks(cls), replace)
    _REGISTRATIONS[:] = [r for r in _REGISTRATIONS if not (r[0] == "class" and r[1] == name)]
    _REGISTRATIONS.append(("class", name, cls, summary))
    _FINGERPRINTS[name] = "py:" + _source_fingerprint(cls)


# -- plugins -----------------------------------------------------------------------------------

#: Libraries loaded, by resolved path: (ctypes handle, names). Kept for the life of the process:
#: a library is never unloaded (the registry holds pointers into it).
_PLUGINS: Dict[str, Tuple[Any, List[str]]] = {}


def load_plugin(path: Union[str, "os.PathLike[str]"]) -> List[str]:
    """Loads the plugin library at ``path`` (a ``.so``/``.dylib``/``.dll`` built from a crate
    that exports its algorithms with ``cclab_plugin::export!``) and registers its algorithms.
    Returns their names. Loading the same file again returns the same names.

    Raises PluginError, in one line naming the library, when the file is missing, is not a
    cclab plugin, was built for another plugin ABI, or names an algorithm already registered.
    """
    import ctypes

    p = Path(path).resolve()
    key = str(p)
    if key in _PLUGINS:
        return list(_PLUGINS[key][1])
    if not p.is_file():
        raise PluginError(f"plugin {path}: no such file")
    try:
        lib = ctypes.CDLL(key)
    except OSError as e:
        raise PluginError(f"plugin {p.name}: cannot be loaded ({str(e).splitlines()[0]})") from None
    try:
        entry = lib[_core.PLUGIN_SYMBOL]
    except AttributeError:
        raise PluginError(f"plugin {p.name}: no symbol {_core.PLUGIN_SYMBOL}: not a cclab plugin "
                          "(export its algorithms with cclab_plugin::export!)") from None
    address = ctypes.cast(entry, ctypes.c_void_p).value
    try:
        names = list(_core.load_plugin_entry(address, p.name))
    except ValueError as e:
        raise PluginError(str(e)) from None
    _PLUGINS[key] = (lib, names)
    digest = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
    for n in names:
        _FINGERPRINTS[n] = "plugin:" + digest
    _REGISTRATIONS.append(("plugin", key))
    return names


# -- runs elsewhere: sweeps on processes, the run store -------------------------------------------


def external_names(scenario: Mapping[str, Any]) -> List[str]:
    """The algorithms registered at run time that ``scenario`` names (``"x+ktcp"`` included)."""
    named = []
    groups = scenario.get("flows")
    if isinstance(groups, list):
        named += [g.get("cc") for g in groups if isinstance(g, Mapping)]
    web = scenario.get("web")
    if isinstance(web, Mapping):
        named.append(web.get("cc"))
    out: List[str] = []
    for n in named:
        if not isinstance(n, str):
            continue
        # A whole name ("w+cr+reno" is one built-in), else each part of "<algorithm>+<add-on>".
        for part in [n] if _core.is_external(n) else n.split("+"):
            if part and part not in out and _core.is_external(part):
                out.append(part)
    return out


def fingerprints(scenario: Mapping[str, Any]) -> Dict[str, str]:
    """What the external algorithms a scenario names run, by name (part of a stored run's key)."""
    return {n: _FINGERPRINTS.get(n, f"unknown:{os.getpid()}") for n in external_names(scenario)}


def worker_setup() -> Optional[List[Tuple[Any, ...]]]:
    """The registrations a worker process must replay (``restore``), or None when there are
    none. Raises ValueError, naming the algorithm, for a class worker processes cannot import
    (defined in an interactive session or inside a function)."""
    if not _REGISTRATIONS:
        return None
    main = sys.modules.get("__main__")
    for r in _REGISTRATIONS:
        if r[0] != "class":
            continue
        cls = r[2]
        why = None
        if "<locals>" in cls.__qualname__:
            why = "it is defined inside a function"
        elif cls.__module__ == "__main__" and not getattr(main, "__file__", None):
            why = "it is defined in an interactive session (__main__ has no file)"
        else:
            try:
                pickle.loads(pickle.dumps(cls))
            except Exception as e:  # noqa: BLE001 - any reason it cannot travel
                why = f"it does not pickle by name ({type(e).__name__}: {e})"
        if why:
            raise ValueError(f"cc '{r[1]}' ({cls.__qualname__}) cannot run in worker processes: {why}; define it in "
                             "a module file, or run with one job (jobs=1)")
    return list(_REGISTRATIONS)


def restore(registrations: List[Tuple[Any, ...]]) -> None:
    """In a worker process: registers what the parent had, in the same order."""
    for r in registrations:
        if r[0] == "class":
            register_cc(r[1], r[2], summary=r[3], replace=True)
        else:
            load_plugin(r[1])
