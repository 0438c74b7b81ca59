"""The tables ``cclab run`` prints: a run's flows and summary, and statistics over seeds."""

from __future__ import annotations

from typing import Any, List

from rich.table import Table

from .result import Result

__all__ = ["seeds_table", "summary_tables"]


def summary_tables(res: Result, max_rows: int = 40) -> List[Table]:
    flows = Table(title=f"{res.name}: flows", title_justify="left")
    shown = res.flows.head(max_rows)
    cc_width = max(len(f"{r.cc}/{r.recovery}") for r in shown.itertuples(index=False))
    flows.add_column("flow", no_wrap=True)
    flows.add_column("cc/recovery", no_wrap=True, min_width=cc_width)
    for col in ("goodput Mbit/s", "retransmits", "timeouts", "RTT mean ms"):
        flows.add_column(col, justify="right")
    for r in shown.itertuples(index=False):
        flows.add_row(
            str(r.name),
            f"{r.cc}/{r.recovery}",
            f"{r.goodput_bps / 1e6:.2f}",
            str(r.retransmits),
            str(r.timeouts),
            f"{r.rtt_mean_s * 1e3:.1f}",
        )
    if len(res.flows) > max_rows:
        flows.caption = f"... and {len(res.flows) - max_rows} more flows (flows.parquet has them all)"

    s = res.summary()
    totals = Table(title="summary", title_justify="left", show_header=False)
    totals.add_column("what")
    totals.add_column("value", justify="right")
    if "bottleneck_utilization" in s:
        totals.add_row("bottleneck utilization", f"{100 * s['bottleneck_utilization']:.2f} %")
        totals.add_row("bottleneck drops", f"{s['bottleneck_drops']:,}")
    else:  # a graph: no designated bottleneck; show the busiest link
        busiest = res.links.loc[res.links["utilization"].idxmax()]
        totals.add_row(f"busiest link ({busiest['name']}) utilization", f"{100 * busiest['utilization']:.2f} %")
        totals.add_row("drops (all queues)", f"{int(res.queues['drops'].sum()):,}")
    totals.add_row("total goodput", f"{s['total_goodput_bps'] / 1e6:.2f} Mbit/s")
    totals.add_row("Jain's index", f"{s['jain_index']:.4f}")
    totals.add_row("wall time", f"{s['wall_time_s']:.3f} s")
    totals.add_row("events", f"{s['events']:,}")
    totals.add_row("delivered packets/s", f"{s['delivered_pkts_per_s']:,.0f}")
    return [flows, totals]


def seeds_table(frame: Any) -> Table:
    """Mean, sample standard deviation and 95 % confidence half-width over the seeds."""
    from .sweep.results import t_quantile

    t = Table(title=f"{len(frame)} seeds", title_justify="left")
    for col in ("metric", "mean", "std", "95 % CI +-", "min", "max"):
        t.add_column(col, justify="left" if col == "metric" else "right")
    n = len(frame)
    for m in ("total_goodput_bps", "bottleneck_utilization", "jain_index", "bottleneck_mean_queue_pkts",
              "bottleneck_drops", "timeouts"):
        if m not in frame.columns:
            continue
        x = frame[m].astype(float)
        std = float(x.std(ddof=1)) if n > 1 else float("nan")
        half = t_quantile(0.95, n - 1) * std / n**0.5 if n > 1 else float("nan")
        t.add_row(m, *(f"{v:.6g}" for v in (x.mean(), std, half, x.min(), x.max())))
    return t
