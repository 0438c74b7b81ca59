"""Helpers shared by the papers' experiments: scenario builders, series, plots."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "dumbbell",
    "flow",
    "series",
    "window_mean",
    "figure",
    "jain",
    "mean_ci",
]


def dumbbell(
    rate: str,
    delay: str,
    buffer: str,
    flows: Sequence[Mapping[str, Any]],
    duration: str,
    *,
    warmup: str = "0s",
    sample_interval: Optional[str] = None,
    name: str = "",
    queue: str = "droptail",
    queue_params: Optional[Mapping[str, float]] = None,
    loss: float = 0.0,
    bdp_rtt: Optional[str] = None,
    **extra: Any,
) -> Dict[str, Any]:
    """A dumbbell scenario as a dict (the TOML's structure, docs/scenario.md)."""
    bottleneck: Dict[str, Any] = {"rate": rate, "delay": delay, "buffer": buffer, "queue": queue}
    if queue_params:
        bottleneck["queue_params"] = dict(queue_params)
    if loss:
        bottleneck["loss"] = loss
    topo: Dict[str, Any] = {"kind": "dumbbell", "bottleneck": bottleneck}
    if bdp_rtt:
        topo["bdp_rtt"] = bdp_rtt
    sc: Dict[str, Any] = {"duration": duration, "warmup": warmup, "topology": topo, "flows": [dict(f) for f in flows]}
    if name:
        sc["name"] = name
    if sample_interval:
        sc["sample_interval"] = sample_interval
    sc.update(extra)
    return sc


def flow(cc: str, **fields: Any) -> Dict[str, Any]:
    """One flow group: ``flow("newreno", rtt="80ms", packet_size="1000B", count=20)``."""
    return {"cc": cc, **fields}


def series(df: pd.DataFrame, columns: Sequence[str], every: int = 1) -> pd.DataFrame:
    """A sampled series cut to ``columns`` (and every ``every``-th time), to keep run files small."""
    if df.empty:
        return df
    times = np.sort(df["time_s"].unique())[::every]
    return df[df["time_s"].isin(times)][list(columns)].reset_index(drop=True)


def window_mean(df: pd.DataFrame, column: str, t0: float, t1: float) -> float:
    """Mean of ``column`` over the samples with t0 < time_s <= t1 (each sample covers the
    interval before it)."""
    m = (df["time_s"] > t0) & (df["time_s"] <= t1)
    return float(df.loc[m, column].mean())


def jain(x: Sequence[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2); the one results use (``cclab.result``)."""
    from ..result import _jain

    return _jain(x)


def mean_ci(x: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """Mean and half-width of its Student-t confidence interval (0 for one value)."""
    from ..sweep import t_quantile  # exact for integer degrees of freedom

    a = np.asarray(x, dtype=float)
    if a.size < 2:
        return (float(a.mean()) if a.size else float("nan"), 0.0)
    half = t_quantile(level, a.size - 1) * float(a.std(ddof=1)) / np.sqrt(a.size)
    return float(a.mean()), float(half)


def figure(rows: int = 1, cols: int = 1, *, width: float = 6.4, height: float = 2.6, sharex: bool = True) -> Any:
    """A constrained-layout figure with a grid of axes (``fig, axes``; axes always a flat list)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), sharex=sharex, layout="constrained")
    flat: List[Any] = list(np.atleast_1d(axes).ravel())
    for ax in flat:
        ax.grid(True, alpha=0.3)
    return fig, flat
