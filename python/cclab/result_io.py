"""Reading a result folder back (``cclab.load``): the tables' schema, and the checks that
turn a damaged folder into one ``ResultError`` line naming the file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Union

import numpy as np
import pandas as pd

from .result import TABLES, TRACE_TABLES
from .scenario import load_scenario

if TYPE_CHECKING:
    from .result import Result

__all__ = ["ResultError", "SCHEMA", "load"]


#: The columns of each table and their kinds, as the core makes them: ``u`` unsigned 64-bit
#: integers, ``f`` 64-bit floats, ``s`` text (docs/scenario.md, "Results"; a test holds this
#: against a fresh run). ``load`` checks a folder against it.
SCHEMA = {
    "flows": "flow:u name:s group:s cc:s recovery:s start_s:f base_rtt_s:f packet_size:u sent_pkts:u "
             "retransmits:u timeouts:u fast_retransmits:u ecn_reductions:u drops:u loss_rate:f delivered_pkts:u "
             "delivered_bytes:u goodput_bps:f rtt_min_s:f rtt_mean_s:f rtt_max_s:f cwnd_final:f completion_s:f "
             "drops_measured:u retransmits_measured:u timeouts_measured:u payload_goodput_bps:f",
    "queues": "link:u name:s role:s arrivals:u departures:u drops:u drops_overflow:u drops_early:u drops_link:u "
              "marks:u mean_len_pkts:f mean_len_bytes:f max_len_pkts:u max_len_bytes:u mean_delay_s:f "
              "len_pkts_end:u loss_rate:f",
    "links": "link:u name:s role:s from:u to:u rate_bps:u delay_s:f tx_pkts:u tx_bytes:u utilization:f",
    "flow_series": "time_s:f flow:u cwnd:f ssthresh:f srtt_s:f rtt_s:f delivered_bytes:u goodput_bps:f",
    "queue_series": "time_s:f link:u len_pkts:u len_bytes:u throughput_bps:f avg_pkts:f max_p:f arrivals:u drops:u",
    "udp": "name:s group:s start_s:f packet_size:u sent_pkts:u received_pkts:u drops:u throughput_bps:f",
    "web": "object:u session:u page:u server:u client:u start_s:f size_bytes:u packets:u retransmits:u timeouts:u "
           "response_s:f",
    "cc_series": "time_s:f flow:u state:s pacing_rate_bps:f pacing_gain:f cwnd_gain:f bw_bps:f min_rtt_s:f",
    "packets": "time_s:f event:s flow:u kind:s seq:u size:u retx:u cause:s link:u queue_pkts:u flags:u sack:s",
    "sender": "time_s:f flow:u event:s ack:u cwnd:f ssthresh:f srtt_s:f rttvar_s:f rto_s:f rtt_s:f in_flight:u "
              "snd_una:u snd_nxt:u pacing_rate_bps:f ca_state:s retransmits:u cc_state:s cc_pacing_gain:f "
              "cc_cwnd_gain:f cc_bw_bps:f cc_min_rtt_s:f",
}
#: Columns added after results were first saved (and kept in run stores): a folder without
#: them loads with them as NaN (unknown), so that stored runs stay valid.
_LATER_COLUMNS = {"flows": ("drops_measured", "retransmits_measured", "timeouts_measured", "payload_goodput_bps")}
#: Tables that results saved by earlier versions (or without a trace) do not have; read as
#: empty when missing.
_OPTIONAL = ("cc_series",) + TRACE_TABLES


def _empty(table: str) -> pd.DataFrame:
    """A table of ``SCHEMA`` with no rows."""
    dtypes = {"u": "uint64", "f": "float64", "s": "object"}
    cols = [c.split(":") for c in SCHEMA[table].split()]
    df = pd.DataFrame({name: pd.Series([], dtype=dtypes[kind]) for name, kind in cols})
    if table == "packets":
        df["link"] = df["link"].astype("UInt64")
    return df


_KIND_NAMES = {"u": "unsigned integers (uint64)", "f": "floats (double)", "s": "text"}


class ResultError(ValueError):
    """A result folder that ``load`` cannot read: ``path`` (the file) and ``problem`` (what is
    wrong with it), in one line."""

    def __init__(self, path: Path, problem: str) -> None:
        problem = " ".join(problem.split())
        if len(problem) > 300:
            problem = problem[:297] + "..."
        super().__init__(f"{path}: {problem}")
        self.path, self.problem = path, problem


def _kind(arrow_type: Any) -> str:
    import pyarrow as pa

    if pa.types.is_uint64(arrow_type):
        return "u"
    if pa.types.is_float64(arrow_type):
        return "f"
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "s"
    return str(arrow_type)


def _read_table(path: Path, table: str) -> pd.DataFrame:
    """The table at ``path``, checked against ``SCHEMA``; ResultError when it is not that."""
    import pyarrow.parquet as pq

    if not path.is_file():
        raise ResultError(path, "missing")
    try:
        meta = pq.read_metadata(path)
        schema = meta.schema.to_arrow_schema()
    except Exception as e:  # noqa: BLE001 - whatever pyarrow says, the file is not a table
        raise ResultError(path, f"not a readable Parquet file ({e})") from None
    want = dict(c.split(":") for c in SCHEMA[table].split())
    have = {f.name: _kind(f.type) for f in schema}
    later = [c for c in _LATER_COLUMNS.get(table, ()) if c not in have]
    missing = [c for c in want if c not in have and c not in later]
    extra = [c for c in have if c not in want]
    if missing or extra:
        parts = [f"missing {missing}" if missing else "", f"unexpected {extra}" if extra else ""]
        raise ResultError(path, f"not the '{table}' table: columns " + ", ".join(p for p in parts if p))
    for c, k in want.items():
        if c in later:
            continue
        # An empty text column has no values to give it a type: pandas writes it as floats.
        if have[c] != k and not (k == "s" and meta.num_rows == 0):
            raise ResultError(path, f"column '{c}' holds {_KIND_NAMES.get(have[c], have[c])}, "
                                    f"expected {_KIND_NAMES[k]}")
    try:
        frame = pd.read_parquet(path)
        for c in later:
            frame[c] = np.nan
        return frame
    except Exception as e:  # noqa: BLE001 - damaged data pages
        raise ResultError(path, f"not a readable Parquet file ({e})") from None


def _read_meta(path: Path) -> Mapping[str, Any]:
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ResultError(path, "not text (UTF-8)") from None
    except ValueError as e:
        raise ResultError(path, f"not valid JSON ({e})") from None
    if not isinstance(meta, dict):
        raise ResultError(path, f"expected a JSON object, found {type(meta).__name__}")
    checks = {"seed": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
              "wall_time_s": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
              "summary": lambda v: isinstance(v, dict)}
    for key, ok in checks.items():
        if key not in meta:
            raise ResultError(path, f"no '{key}' entry")
        if not ok(meta[key]):
            raise ResultError(path, f"'{key}' is {json.dumps(meta[key])[:60]}, expected "
                                    + {"seed": "a whole number >= 0", "wall_time_s": "a number",
                                       "summary": "an object"}[key])
    return meta


def load(directory: Union[str, os.PathLike[str]]) -> "Result":
    """Reads a result written by ``Result.save``. Raises FileNotFoundError when the folder holds
    no result (no summary.json), and ResultError, naming the file and what is wrong with it, when
    a file is damaged: summary.json not JSON or without its entries, a table missing, not
    Parquet, or without the columns and types of ``SCHEMA``, scenario.toml unreadable."""
    d = Path(directory)
    if not (d / "summary.json").is_file():
        raise FileNotFoundError(f"no cclab result in '{d}' (summary.json is missing)")
    meta = _read_meta(d / "summary.json")
    tables = {name: _read_table(d / f"{name}.parquet", name) for name in TABLES if name not in _OPTIONAL
              or (d / f"{name}.parquet").is_file()}
    for name in _OPTIONAL:
        # Results saved before the table existed: it was empty then (no algorithm showed a state).
        tables.setdefault(name, _empty(name))
    try:
        scenario = load_scenario(d / "scenario.toml")
    except (OSError, ValueError) as e:
        raise ResultError(d / "scenario.toml", f"not a readable scenario ({e})") from None
    from .result import Result

    cpu = meta.get("cpu_time_s")  # results saved before it was measured have none
    cpu = float(cpu) if isinstance(cpu, (int, float)) and not isinstance(cpu, bool) else None
    return Result(scenario, int(meta["seed"]), float(meta["wall_time_s"]), tables, meta["summary"], meta.get("bdp_pkts"),
                  cpu)
