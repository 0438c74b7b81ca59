"""The result of a run: tables as pandas DataFrames, summary numbers, plots,
a markdown report, and a folder format (Parquet + JSON + TOML) to keep them.

Column names carry their units (``goodput_bps``, ``rtt_mean_s``); the columns
are listed in ``docs/scenario.md`` ("Results").
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Sequence, Union

import numpy as np
import pandas as pd

from . import _core
from .scenario import Scenario, load_scenario, to_toml

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Result", "ResultError", "SCHEMA", "TABLES", "load"]

#: The tables of a result, in the order the core returns them; each is saved as ``<name>.parquet``.
TABLES = ("flows", "queues", "links", "flow_series", "queue_series", "udp", "web", "cc_series", "packets", "sender")
#: The trace's tables (docs/tracing.md): rows only when the scenario has a ``[trace]``; saved
#: only when they have rows.
TRACE_TABLES = ("packets", "sender")
#: ``packets.link`` of an event at an endpoint, as the core writes it; read as missing (<NA>).
_NO_LINK = 2**64 - 1

# Summary entries that count things; the core hands every summary value over as a float.
_COUNTS = frozenset(
    {
        "flows",
        "data_sent",
        "data_received",
        "data_dropped",
        "data_in_queues",
        "data_on_wires",
        "timeouts",
        "events",
        "bottleneck_drops",
    }
)

_FORMAT_VERSION = 1


def _jain(x: Sequence[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2); 1 when every share is zero."""
    a = np.asarray(x, dtype=float)
    s2 = float((a * a).sum())
    if a.size == 0 or s2 == 0.0:
        return 1.0
    return float(a.sum() ** 2 / (a.size * s2))


def _frame(columns: Mapping[str, Any]) -> pd.DataFrame:
    # Numeric columns arrive as numpy arrays (kept as they are, no copy of the
    # data into Python objects); text columns as lists of str.
    return pd.DataFrame({name: col for name, col in columns.items()})


def _packets_frame(columns: Mapping[str, Any]) -> pd.DataFrame:
    """The trace's ``packets`` table: ``link`` is missing (<NA>) for events at an endpoint."""
    df = _frame(columns)
    link = pd.array(df["link"].to_numpy(), dtype="UInt64")
    link[df["link"].to_numpy() == _NO_LINK] = pd.NA
    df["link"] = link
    return df


class Result:
    """What one run produced.

    Attributes:
        scenario: the scenario as run, normalized (a dict with the TOML's structure).
        seed: the master seed.
        wall_time_s: wall-clock time of the simulation itself, seconds.
        cpu_time_s: the CPU time it took (the simulating thread's), seconds; unlike the wall
            time, not lengthened by other work sharing the machine. None where not measured (a
            result saved before it was, a Linux engine run).
        flows, queues, links: one row per flow / per link (every link has a queue).
        flow_series, queue_series: the sampled time series, one row per sample and
            flow (or monitored link); empty without ``sample_interval``.
        udp: one row per UDP source (empty without ``[[udp]]``).
        web: one row per web object started, with its response time (empty without ``[web]``).
        cc_series: the congestion controls' own state, one row per sample and flow whose
            algorithm shows one (BBR: mode, pacing rate, gains, estimates); empty otherwise.
        packets, sender: the trace (docs/tracing.md): one row per packet event of the traced
            flows and links, one row per ACK and timer of the traced senders; empty without
            a ``[trace]``.
    """

    def __init__(
        self,
        scenario: Scenario,
        seed: int,
        wall_time_s: float,
        tables: Mapping[str, pd.DataFrame],
        summary: Mapping[str, float],
        bdp_pkts: Optional[float] = None,
        cpu_time_s: Optional[float] = None,
    ) -> None:
        self.scenario = scenario
        self.seed = seed
        self.wall_time_s = wall_time_s
        self.cpu_time_s = cpu_time_s
        self.bdp_pkts = bdp_pkts
        self.flows: pd.DataFrame = tables["flows"]
        self.queues: pd.DataFrame = tables["queues"]
        self.links: pd.DataFrame = tables["links"]
        self.flow_series: pd.DataFrame = tables["flow_series"]
        self.queue_series: pd.DataFrame = tables["queue_series"]
        self.udp: pd.DataFrame = tables["udp"]
        self.web: pd.DataFrame = tables["web"]
        self.cc_series: pd.DataFrame = tables["cc_series"]
        self.packets: pd.DataFrame = tables["packets"]
        self.sender: pd.DataFrame = tables["sender"]
        self._summary = dict(summary)

    @classmethod
    def from_core(
        cls,
        scenario: Scenario,
        seed: int,
        wall_time_s: float,
        raw: Mapping[str, Any],
        bdp_pkts: Optional[float] = None,
        cpu_time_s: Optional[float] = None,
    ) -> "Result":
        """Builds a result from what ``_core.Sim.results()`` returns."""
        tables = {name: (_packets_frame if name == "packets" else _frame)(raw[name]) for name in TABLES}
        for name in TRACE_TABLES:
            if tables[name].empty:  # no trace: the typed empty table that ``load`` gives too
                tables[name] = _empty(name)
        return cls(scenario, seed, wall_time_s, tables, raw["summary"], bdp_pkts, cpu_time_s)

    # -- reading ---------------------------------------------------------------------

    @property
    def name(self) -> str:
        return str(self.scenario.get("name") or "scenario")

    def __repr__(self) -> str:
        return (
            f"<Result {self.name!r}: {len(self.flows)} flows, "
            f"{self._summary.get('duration_s', float('nan')):g} s simulated, seed {self.seed}, "
            f"{self.wall_time_s:.3g} s wall>"
        )

    def _repr_html_(self) -> str:
        """Jupyter's view: the summary numbers and the flows table (first 20 flows)."""
        import html

        s = self.summary()
        cells = "".join(f"<tr><th style='text-align:left'>{html.escape(str(k))}</th><td>{html.escape(format(v, '.6g') if isinstance(v, float) else str(v))}</td></tr>"
                        for k, v in s.items())
        more = f"<p>... and {len(self.flows) - 20} more flows</p>" if len(self.flows) > 20 else ""
        return (f"<p><b>{html.escape(repr(self))}</b></p><table>{cells}</table>"
                + self.flows.head(20)._repr_html_() + more)

    def plot_flow(self, flow: Union[int, str], path: Union[str, os.PathLike[str], None] = None) -> "Figure":
        """One flow's window with its reductions and timeouts marked (``cclab.plots.plot_flow``)."""
        from .plots import plot_flow

        return plot_flow(self, flow, path)

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables by name (see ``TABLES``)."""
        return {name: getattr(self, name) for name in TABLES}

    def summary(self) -> dict[str, Any]:
        """Scalar results: the core's summary (utilization, goodput, Jain, drops,
        packet accounting, events...) plus the seed, the wall and CPU times (NaN where not
        measured), the packets delivered and the delivered packets per wall-clock second."""
        out: dict[str, Any] = {"name": self.name, "seed": self.seed}
        for k, v in self._summary.items():
            out[k] = int(v) if k in _COUNTS and math.isfinite(v) else v
        if self.bdp_pkts is not None:
            out["bdp_pkts"] = self.bdp_pkts
        delivered = int(self.flows["delivered_pkts"].sum())
        out["delivered_pkts"] = delivered
        out["wall_time_s"] = self.wall_time_s
        out["cpu_time_s"] = float("nan") if self.cpu_time_s is None else self.cpu_time_s
        out["delivered_pkts_per_s"] = delivered / self.wall_time_s if self.wall_time_s > 0 else float("nan")
        return out

    def timeseries(self, kind: str = "flows") -> pd.DataFrame:
        """A time series in long form with a ``name`` column: ``"flows"`` (time_s, flow,
        name, cwnd, ssthresh, srtt_s, rtt_s, delivered_bytes, goodput_bps) or
        ``"queues"`` (time_s, link, name, len_pkts, len_bytes, throughput_bps) for
        the monitored links (the bottleneck of a dumbbell, every link of a graph)."""
        if kind == "flows":
            df, key, names = self.flow_series.copy(), "flow", self.flows.set_index("flow")["name"]
        elif kind == "queues":
            df, key, names = self.queue_series.copy(), "link", self.links.set_index("link")["name"]
        else:
            raise ValueError(f"kind: invalid value {kind!r}; accepted: 'flows', 'queues'")
        df.insert(df.columns.get_loc(key) + 1, "name", df[key].map(names))
        return df

    def _select_flows(self, flows: Optional[Iterable[Union[int, str]]]) -> np.ndarray:
        """Flow indices from indices, flow names ("newreno0.1") or group names ("newreno0")."""
        all_ids = self.flows["flow"].to_numpy()
        if flows is None:
            return all_ids
        if isinstance(flows, (int, str)):
            flows = [flows]
        picked: list[int] = []
        for f in flows:
            if isinstance(f, str):
                m = self.flows[(self.flows["name"] == f) | (self.flows["group"] == f)]["flow"]
                if m.empty:
                    known = ", ".join(self.flows["name"].tolist()[:10])
                    raise ValueError(f"flows: invalid value {f!r}; accepted: flow or group names ({known}...)")
                picked.extend(int(x) for x in m)
            elif isinstance(f, (int, np.integer)) and not isinstance(f, bool) and 0 <= f < len(all_ids):
                picked.append(int(f))
            else:
                raise ValueError(f"flows: invalid value {f!r}; accepted: flow indices 0..{len(all_ids) - 1} or names")
        return np.array(sorted(set(picked)), dtype=np.uint64)

    def jain(
        self,
        flows: Optional[Iterable[Union[int, str]]] = None,
        start: Optional[float] = None,
        end: Optional[float] = None,
    ) -> float:
        """Jain's fairness index of the flows' goodputs.

        Without a window: over each flow's goodput in the flows table (measured
        from max(start, warmup) to the end or its completion). With ``start``
        and/or ``end`` (seconds): over the data each flow delivered between the
        samples of the time series at or just before ``start`` and ``end``
        (default: the first and the last sample), from the cumulative
        ``delivered_bytes``; this needs ``sample_interval``.

        ``flows``: indices, flow names or group names; default all.
        """
        ids = self._select_flows(flows)
        if start is None and end is None:
            g = self.flows.set_index("flow").loc[ids, "goodput_bps"]
            return _jain(g.to_numpy())
        fs = self.flow_series
        if fs.empty:
            raise ValueError("jain: a time window needs the time series; set sample_interval in the scenario")
        delivered = fs.pivot(index="time_s", columns="flow", values="delivered_bytes")
        times = delivered.index.to_numpy()
        eps = 1e-9

        def at_or_before(t: Optional[float], default: float) -> float:
            if t is None:
                return default
            i = np.searchsorted(times, t + eps, side="right") - 1
            return float(times[max(i, 0)])

        t0 = at_or_before(start, float(times[0]))
        t1 = at_or_before(end, float(times[-1]))
        if t1 <= t0:
            raise ValueError(
                f"jain: the window [{start}, {end}] s holds fewer than two samples "
                f"(samples from {times[0]:g} s to {times[-1]:g} s)"
            )
        d = delivered.loc[t1, ids].to_numpy(dtype=float) - delivered.loc[t0, ids].to_numpy(dtype=float)
        return _jain(d)

    # -- figures and reports ------------------------------------------------------------

    def plot(self, path: Union[str, os.PathLike[str], None] = None, *, legend_max: int = 10) -> "Figure":
        """Three stacked panels over time: congestion window per flow (packets),
        goodput per flow (Mbit/s), and the queue length of the monitored links
        (packets), the warm-up greyed. Drawn with the Agg backend, without pyplot's global state;
        saved to ``path`` (format from its suffix) when given."""
        from .plots import _figure, _save, draw_run

        if self.flow_series.empty:
            raise ValueError("plot: the result has no time series; set sample_interval in the scenario")
        fig = _figure(9.0, 8.0)
        axes = fig.subplots(3, 1, sharex=True)
        draw_run(axes, self, legend_max, "small")
        for ax, label in zip(axes, ("cwnd (packets)", "goodput (Mbit/s)", "queue (packets)")):
            ax.set_ylabel(label)
        fig.suptitle(f"{self.name} (seed {self.seed})")
        return _save(fig, path)

    def report_markdown(self) -> str:
        """A short markdown report: the scenario, the key numbers, the flows table."""
        s = self.summary()
        lines = [f"# cclab: {self.name}", ""]
        topo = self.scenario.get("topology", {})
        desc = f"{len(self.flows)} flow(s), {s.get('duration_s', float('nan')):g} s simulated, seed {self.seed}"
        b = topo.get("bottleneck")
        if b:
            desc += f"; dumbbell, bottleneck {b.get('rate')} / {b.get('delay')} one way, buffer {b.get('buffer', '1bdp')}"
            if self.bdp_pkts is not None:
                desc += f" (1 BDP = {self.bdp_pkts:.1f} packets)"
        elif topo.get("kind") == "graph":
            desc += f"; graph of {len(topo.get('nodes', []))} nodes, {len(topo.get('links', []))} links"
        lines += [desc + ".", "", "| | |", "|---|---|"]

        def row(label: str, key: str, fmt: str) -> None:
            # NaN: a figure the engine could not measure (the Linux engine's event count).
            if key in s and s[key] is not None and not (isinstance(s[key], float) and math.isnan(s[key])):
                lines.append(f"| {label} | {format(s[key], fmt)} |")

        if "bottleneck_utilization" in s:
            lines.append(f"| bottleneck utilization | {100 * s['bottleneck_utilization']:.2f} % |")
        lines.append(f"| total goodput | {s['total_goodput_bps'] / 1e6:.2f} Mbit/s |")
        row("Jain's fairness index", "jain_index", ".4f")
        row("bottleneck drops", "bottleneck_drops", "d")
        if "bottleneck_mean_queue_pkts" in s:
            lines.append(f"| bottleneck mean queue | {s['bottleneck_mean_queue_pkts']:.1f} packets |")
        row("timeouts", "timeouts", "d")
        lines.append(f"| wall time | {s['wall_time_s']:.3f} s |")
        row("events", "events", ",d")
        lines.append(f"| delivered packets per wall second | {s['delivered_pkts_per_s']:,.0f} |")
        lines += ["", "## Flows", ""]
        lines.append("| flow | cc | recovery | start (s) | goodput (Mbit/s) | retransmits | timeouts | RTT mean (ms) |")
        lines.append("|---|---|---|---:|---:|---:|---:|---:|")
        for r in self.flows.itertuples(index=False):
            lines.append(
                f"| {r.name} | {r.cc} | {r.recovery} | {r.start_s:.3f} | {r.goodput_bps / 1e6:.2f} | "
                f"{r.retransmits} | {r.timeouts} | {r.rtt_mean_s * 1e3:.1f} |"
            )
        return "\n".join(lines) + "\n"

    # -- persistence ----------------------------------------------------------------------

    def save(self, directory: Union[str, os.PathLike[str]]) -> Path:
        """Writes the result to a folder: ``<table>.parquet`` for each table,
        ``summary.json`` (summary, seed, wall time) and ``scenario.toml``.
        Returns the folder."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        for name in TABLES:
            if name in TRACE_TABLES and getattr(self, name).empty:
                continue  # no trace asked for: no file, as before tracing existed
            getattr(self, name).to_parquet(d / f"{name}.parquet", index=False)
        meta = {
            "format": _FORMAT_VERSION,
            "cclab_version": _core.__version__,
            "name": self.name,
            "seed": self.seed,
            "wall_time_s": self.wall_time_s,
            "cpu_time_s": self.cpu_time_s,
            "bdp_pkts": self.bdp_pkts,
            "summary": self._summary,
        }
        (d / "summary.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        (d / "scenario.toml").write_text(to_toml(self.scenario), encoding="utf-8")
        return d


# The folder format's schema and reading (result_io.py), here for the names users import.
from .result_io import SCHEMA, ResultError, _empty, _kind, load  # noqa: E402
