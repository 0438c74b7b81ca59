"""Reading a sweep's runs back as one table, and statistics over its replications."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

import pandas as pd


from .spec import (
    _canonical,
    _RUN_JSON,
    _SWEEP_JSON,
    _TMP_PREFIX,
    Path_,
)


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
    JSON text), each followed, when written as text with a unit, by its value as a number
    (``<param>:value``: a time in seconds, a rate in bit/s, a buffer in packets, a buffer in
    BDPs by the run's own BDP; the units in ``frame.attrs["units"]``), ``replication``, ``seed``, ``run_id``, ``status`` (``"ok"`` or
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
    units = _add_resolved(df, params)
    df.attrs["params"] = params
    df.attrs["units"] = units
    df.attrs["sweep"] = meta.get("name")
    df.attrs["directory"] = str(d)
    return df


#: The unit of a resolved column by the kind the core parsed (a buffer in BDPs becomes packets).
_UNITS = {"s": "s", "bps": "bit/s", "pkts": "packets", "bdp": "packets", "bytes": "bytes"}


def _resolved(value: Any, bdp_pkts: Any) -> tuple[Optional[str], float]:
    """A parameter's value as a number and its unit: numbers as they are, text by the core's
    parsers (``_core.quantity``), a buffer in BDPs in packets by the run's own BDP."""
    from .. import _core

    if isinstance(value, bool) or value is None:
        return None, math.nan
    if isinstance(value, (int, float)):
        return "", float(value)
    if not isinstance(value, str):
        return None, math.nan
    q = _core.quantity(value)
    if q is None:
        return None, math.nan
    kind, x = q
    if kind == "bdp":
        b = bdp_pkts if isinstance(bdp_pkts, (int, float)) else math.nan
        return _UNITS[kind], x * b
    return _UNITS[kind], x


def _add_resolved(df: pd.DataFrame, params: List[str]) -> Dict[str, str]:
    """Beside each parameter written as text (``"0.5bdp"``, ``"20Mbps"``), a numeric column
    ``<param>:value`` (the buffer in packets, a rate in bit/s, a time in seconds), placed right
    after it; only when every value of the column resolves to one unit. Returns the units."""
    units: Dict[str, str] = {}
    if df.empty:
        return units
    bdp = df["bdp_pkts"] if "bdp_pkts" in df.columns else pd.Series([math.nan] * len(df), index=df.index)
    for p in params:
        col = df[p]
        if pd.api.types.is_numeric_dtype(col):
            continue
        pairs = [_resolved(v, b) for v, b in zip(col, bdp)]
        kinds = {u for u, _ in pairs}
        if len(kinds) != 1 or None in kinds or "" in kinds:
            continue
        unit = kinds.pop()
        df.insert(df.columns.get_loc(p) + 1, f"{p}:value", [x for _, x in pairs])
        units[p] = unit
    return units


# -- statistics ------------------------------------------------------------------------------------


def t_quantile(confidence: float, df: int) -> float:
    """The two-sided critical value of Student's t: the t with P(|T| <= t) = confidence,
    for ``df`` degrees of freedom (e.g. 12.706 for 0.95 and 1, 2.262 for 0.95 and 9):
    ``scipy.stats.t.ppf((1 + confidence) / 2, df)``."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence: invalid value {confidence!r}; accepted: a number in (0, 1)")
    if isinstance(df, bool) or int(df) != df or df < 1:
        raise ValueError(f"df: invalid value {df!r}; accepted: a whole number >= 1")
    from scipy.stats import t

    return float(t.ppf((1 + confidence) / 2, int(df)))


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
        skip |= {f"{p}:value" for p in frame.attrs.get("params", [])}
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
