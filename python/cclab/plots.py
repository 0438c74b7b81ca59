"""Figures beyond one run: runs side by side (``compare``), a sweep's metric against a
parameter with confidence bands (``plot_sweep``), and one flow's window with its window
reductions and timeouts marked (``plot_flow``). Every figure is drawn with matplotlib's Agg
backend on a ``Figure`` of its own (no pyplot state), shades the warm-up that the measured
metrics leave out, and is saved when given a path (format from the suffix).
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Union

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .result import Result

__all__ = ["Comparison", "compare", "draw_run", "plot_flow", "plot_sweep", "shade_warmup"]

PathArg = Union[str, "os.PathLike[str]", None]

#: The summary entries ``Comparison.summary`` shows, in order (those a run has).
SUMMARY_KEYS = ("total_goodput_bps", "bottleneck_utilization", "jain_index", "bottleneck_mean_queue_pkts",
                "bottleneck_drops", "timeouts", "delivered_pkts", "events", "wall_time_s")


def _figure(width: float, height: float) -> "Figure":
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: "Figure", path: PathArg) -> "Figure":
    if path is not None:
        fig.savefig(os.fspath(path), dpi=120)
    return fig


def shade_warmup(ax: "Axes", warmup_s: float) -> None:
    """Greys [0, warmup_s] on ``ax``: the span the measured metrics (goodput, loss rate, mean
    queue, utilization) leave out."""
    if warmup_s and warmup_s > 0:
        ax.axvspan(0.0, warmup_s, color="0.85", alpha=0.6, linewidth=0, zorder=0, label="_warm-up")


def _needs_series(res: "Result", what: str) -> None:
    if res.flow_series.empty:
        raise ValueError(f"{what}: the result {res.name!r} has no time series; set sample_interval in the scenario")


def draw_run(axes: Sequence["Axes"], res: "Result", legend_max: int, fontsize: str) -> None:
    """One run on three axes, top to bottom: each flow's window (packets), each flow's goodput
    (Mbit/s), the monitored queues that ever held a packet (packets); legends when at most
    ``legend_max`` lines, grids, the warm-up greyed, time on the last axis."""
    ax_cwnd, ax_gp, ax_q = axes
    names = res.flows.set_index("flow")["name"]
    for ax, col, scale in ((ax_cwnd, "cwnd", 1.0), (ax_gp, "goodput_bps", 1e-6)):
        wide = res.flow_series.pivot(index="time_s", columns="flow", values=col)
        lines = ax.plot(wide.index.to_numpy(), wide.to_numpy(dtype=float) * scale, linewidth=0.8)
        for line, f in zip(lines, wide.columns):
            line.set_label(str(names.get(f, f)))
    if len(names) <= legend_max:
        ax_cwnd.legend(loc="upper right", fontsize=fontsize, ncol=min(len(names), 4))
    qs = res.queue_series
    if not qs.empty:
        wide = qs.pivot(index="time_s", columns="link", values="len_pkts")
        busy = [c for c in wide.columns if wide[c].max() > 0] or list(wide.columns)
        link_names = res.links.set_index("link")["name"]
        for c in busy:
            ax_q.plot(wide.index.to_numpy(), wide[c].to_numpy(dtype=float), linewidth=0.8,
                      label=str(link_names.get(c, c)))
        if len(busy) <= legend_max:
            ax_q.legend(loc="upper right", fontsize=fontsize)
    ax_q.set_xlabel("time (s)")
    for ax in axes:
        shade_warmup(ax, float(res.summary().get("warmup_s", 0.0)))
        ax.grid(True, alpha=0.3)


class Comparison:
    """Runs side by side. ``labels``: one per run (default: each run's name, with its seed
    when names repeat)."""

    def __init__(self, results: Sequence["Result"], labels: Optional[Sequence[str]] = None) -> None:
        from .result import Result

        results = list(results)
        if not results:
            raise ValueError("results: invalid value []; accepted: one or more cclab.Result")
        for i, r in enumerate(results):
            if not isinstance(r, Result):
                raise ValueError(f"results[{i}]: invalid value of type {type(r).__name__}; accepted: cclab.Result")
        if labels is None:
            names = [r.name for r in results]
            labels = [f"{r.name} (seed {r.seed})" if names.count(r.name) > 1 else r.name for r in results]
        else:
            labels = [str(x) for x in labels]
            if len(labels) != len(results):
                raise ValueError(f"labels: invalid value of length {len(labels)}; accepted: one label per run "
                                 f"({len(results)})")
        self.results: List["Result"] = results
        self.labels: List[str] = list(labels)

    def __repr__(self) -> str:
        return f"<Comparison of {len(self.results)} runs: {', '.join(self.labels)}>"

    def summary(self) -> pd.DataFrame:
        """One row per run (indexed by label): the key summary numbers of each."""
        rows: Dict[str, Dict[str, Any]] = {}
        for label, r in zip(self.labels, self.results):
            s = r.summary()
            rows[label] = {k: s[k] for k in SUMMARY_KEYS if k in s}
        return pd.DataFrame.from_dict(rows, orient="index")

    def _repr_html_(self) -> str:
        return f"<p>{len(self.results)} runs</p>" + self.summary()._repr_html_()

    def plot(self, path: PathArg = None, *, legend_max: int = 8) -> "Figure":
        """One column per run, three rows sharing their y axis across runs: each flow's
        window (packets), each flow's goodput (Mbit/s) and the monitored queues (packets)
        over time, warm-up shaded."""
        for r in self.results:
            _needs_series(r, "compare(...).plot")
        n = len(self.results)
        fig = _figure(min(4.2 * n, 18.0), 8.0)
        axes = np.asarray(fig.subplots(3, n, sharex="col", sharey="row", squeeze=False))
        for j, (label, r) in enumerate(zip(self.labels, self.results)):
            draw_run(axes[:, j], r, legend_max, "x-small")
            axes[0, j].set_title(label, fontsize="medium")
        for ax, label in zip(axes[:, 0], ("cwnd (packets)", "goodput (Mbit/s)", "queue (packets)")):
            ax.set_ylabel(label)
        return _save(fig, path)


def compare(results: Sequence["Result"], labels: Optional[Sequence[str]] = None) -> Comparison:
    """Runs side by side: ``cclab.compare([a, b]).plot("ab.png")``, ``.summary()``."""
    return Comparison(results, labels)


def _numeric_axis(frame: pd.DataFrame, x: str) -> str:
    """The column to put on the x axis for parameter ``x``: its resolved numeric column when
    the sweep table has one (``<x>:value``), else ``x`` itself when numeric."""
    resolved = f"{x}:value"
    if resolved in frame.columns:
        return resolved
    if x not in frame.columns:
        raise KeyError(f"x: no column {x!r}; columns: {list(frame.columns)}")
    if not pd.api.types.is_numeric_dtype(frame[x]):
        raise ValueError(f"x: column {x!r} holds text ({frame[x].iloc[0]!r}...) and the table has no numeric "
                         f"{resolved!r} column to plot it by; accepted: a numeric parameter column")
    return x


def plot_sweep(
    frame: pd.DataFrame,
    x: str,
    y: str,
    *,
    hue: Optional[str] = None,
    confidence: float = 0.95,
    path: PathArg = None,
    logx: bool = False,
) -> "Figure":
    """A sweep's metric ``y`` against parameter ``x``: the mean over the replications of each
    point with its confidence band (Student's t, ``sweep_stats``), one line per value of
    ``hue`` (another parameter). ``frame``: a ``load_sweep`` / ``sweep`` table. A parameter
    given as text (``"0.5bdp"``, ``"20Mbps"``) is placed by its resolved value
    (``<x>:value``: the buffer in packets, the rate in bit/s, a time in seconds)."""
    from .sweep import sweep_stats

    xcol = _numeric_axis(frame, x)
    if y not in frame.columns:
        raise KeyError(f"y: no column {y!r}; columns: {list(frame.columns)}")
    by = [xcol] + ([hue] if hue is not None else [])
    if hue is not None and hue not in frame.columns:
        raise KeyError(f"hue: no column {hue!r}; columns: {list(frame.columns)}")
    stats = sweep_stats(frame, y, by=by, confidence=confidence)
    ci = f"ci{confidence * 100:g}"
    fig = _figure(6.4, 4.2)
    ax = fig.subplots()
    groups = stats.groupby(hue, sort=False) if hue is not None else [(None, stats)]
    for key, g in groups:
        g = g.sort_values(xcol)
        xs = g[xcol].to_numpy(dtype=float)
        mean = g["mean"].to_numpy(dtype=float)
        half = g[ci].to_numpy(dtype=float)
        (line,) = ax.plot(xs, mean, marker="o", markersize=3, linewidth=1.2,
                          label=None if hue is None else f"{hue} = {key}")
        ok = ~np.isnan(half)
        if ok.any():
            ax.fill_between(xs[ok], (mean - half)[ok], (mean + half)[ok], color=line.get_color(), alpha=0.2,
                            linewidth=0)
    n = int(stats["n"].max()) if not stats.empty else 0
    unit = (frame.attrs.get("units") or {}).get(x)
    ax.set_xlabel(f"{x} ({unit})" if xcol != x and unit else xcol)
    ax.set_ylabel(y)
    if logx:
        from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_title(f"{frame.attrs.get('sweep') or 'sweep'}: mean of up to {n} replications, "
                 f"{confidence * 100:g} % confidence band", fontsize="medium")
    ax.grid(True, alpha=0.3)
    if hue is not None:
        ax.legend(fontsize="small")
    return _save(fig, path)


def window_reductions(series: pd.DataFrame) -> pd.DataFrame:
    """The samples at which a flow's window was reduced, from its sampled series: ssthresh
    was set anew (a loss, an ECN echo: it is set at each reduction, higher or lower than the
    last), or the window fell to at most 2 packets (a timeout's restart).
    Marks the sample after the event, so at the sampling interval's resolution; several
    events between two samples show as one."""
    s = series.sort_values("time_s")
    ssthresh = s["ssthresh"].to_numpy(dtype=float)
    cwnd = s["cwnd"].to_numpy(dtype=float)
    prev_ss = np.concatenate([ssthresh[:1], ssthresh[:-1]])
    prev_cwnd = np.concatenate([cwnd[:1], cwnd[:-1]])
    cut = (ssthresh != prev_ss) & np.isfinite(ssthresh)
    restart = (cwnd <= 2.0) & (prev_cwnd > 2.0)
    out = s.loc[cut | restart, ["time_s", "cwnd", "ssthresh"]].copy()
    out["kind"] = np.where(restart[cut | restart], "restart", "reduction")
    return out.reset_index(drop=True)


def _traced_events(res: "Result", flow: int) -> Optional[tuple]:
    """The times of the flow's data drops and retransmission timeouts from the packet trace, or
    None when the run did not trace the flow (docs/tracing.md)."""
    p = getattr(res, "packets", None)
    if p is None or p.empty:
        return None
    mine = p[(p["flow"] == flow) & (p["kind"] != "udp")]
    if mine.empty:
        return None
    drops = mine[(mine["event"] == "drop") & (mine["kind"] == "data")]["time_s"].to_numpy(dtype=float)
    rtos = mine[mine["event"] == "rto"]["time_s"].to_numpy(dtype=float)
    return drops, rtos


def plot_flow(res: "Result", flow: Union[int, str], path: PathArg = None) -> "Figure":
    """One flow's window and slow-start threshold over time, with its losses and timeouts
    marked, the warm-up shaded, and its RTT below. ``flow``: an index or a flow name. With a
    packet trace of the flow (``trace``, docs/tracing.md) the marks are its drops and
    retransmission timeouts at their exact times; without one, the samples at which its window
    was cut (ssthresh set anew) or restarted from 1-2 packets (a timeout)."""
    _needs_series(res, "plot_flow")
    ids = res._select_flows([flow])
    if len(ids) != 1:
        raise ValueError(f"flow: invalid value {flow!r}; accepted: one flow (an index or a flow name, not a group)")
    f = int(ids[0])
    row = res.flows.set_index("flow").loc[f]
    s = res.flow_series[res.flow_series["flow"] == f].sort_values("time_s")
    t = s["time_s"].to_numpy(dtype=float)
    fig = _figure(9.0, 6.0)
    ax, ax_rtt = fig.subplots(2, 1, sharex=True, height_ratios=[2, 1])
    ax.plot(t, s["cwnd"].to_numpy(dtype=float), linewidth=0.9, label="cwnd")
    ss = s["ssthresh"].to_numpy(dtype=float)
    finite = np.isfinite(ss)
    if finite.any():
        ax.plot(t[finite], ss[finite], linewidth=0.8, linestyle="--", label="ssthresh")
    traced = _traced_events(res, f)
    if traced is not None:
        # The trace has every drop and every timeout of the flow at its exact time.
        drops, rtos = traced
        for times, marker, color, label in ((drops, "v", "tab:red", "drop (trace)"),
                                            (rtos, "x", "black", "retransmission timeout (trace)")):
            if len(times):
                ax.scatter(times, np.interp(times, t, s["cwnd"].to_numpy(dtype=float)), marker=marker, color=color,
                           s=22, zorder=3, label=label)
    else:
        ev = window_reductions(s)
        for kind, marker, color in (("reduction", "v", "tab:red"), ("restart", "x", "black")):
            e = ev[ev["kind"] == kind]
            if not e.empty:
                ax.scatter(e["time_s"], e["cwnd"], marker=marker, color=color, s=22, zorder=3,
                           label={"reduction": "window cut (ssthresh set)", "restart": "restart (timeout)"}[kind])
    warmup = float(res.summary().get("warmup_s", 0.0))
    for a in (ax, ax_rtt):
        shade_warmup(a, warmup)
        a.grid(True, alpha=0.3)
    ax.set_ylabel("packets")
    ax.legend(loc="upper right", fontsize="small")
    rtt = s["srtt_s"].to_numpy(dtype=float) * 1e3
    ax_rtt.plot(t, np.where(rtt > 0, rtt, np.nan), linewidth=0.8, label="srtt")
    ax_rtt.set_ylabel("srtt (ms)")
    ax_rtt.set_xlabel("time (s)")
    retx, to = int(row["retransmits"]), int(row["timeouts"])
    ax.set_title(f"{res.name}: flow {row['name']} ({row['cc']}); whole run: {retx} retransmissions, "
                 f"{to} timeouts", fontsize="medium")
    if math.isfinite(warmup) and warmup > 0:
        ax.text(warmup / 2, 0.98, "warm-up", transform=ax.get_xaxis_transform(), ha="center", va="top",
                fontsize="x-small", color="0.4")
    return _save(fig, path)
