"""The report lines both peers print (the ns-2 script and the ns-3 program), read back.

Once at the warmup (``W``) and once at the end (``E``), one line:
``W|E <t> (F <counter>...)... (Q <link> <3 numbers> [M <link> <marks>])...``, a flow's
counters in the order its peer names them, each monitored link's three queue numbers and,
where the peer counts them (ns-3's queue discs), the packets its queue marked CE.
"""

from __future__ import annotations

from typing import Any, Dict, Sequence

from .errors import CrosscheckError


def parse(text: str, flow_counters: Sequence[str], field: str, printer: str) -> Dict[str, Any]:
    """``{"W"|"E": {"t", "flows": [{counter: v}], "queues": {link: (3 numbers)}, "marks": {link: n}}}``
    from ``text``, the output of ``printer`` (named with ``field`` in errors)."""
    got: Dict[str, Any] = {}
    for line in text.splitlines():
        tok = line.split()
        if not tok or tok[0] not in ("W", "E"):
            continue
        rec: Dict[str, Any] = {"t": 0.0, "flows": [], "queues": {}, "marks": {}}
        k = 2
        try:
            rec["t"] = float(tok[1]) if len(tok) > 1 else float("nan")
            while k < len(tok):
                if tok[k] == "F":
                    n = len(flow_counters)
                    vals = tok[k + 1:k + 1 + n]
                    if len(vals) != n:
                        raise ValueError(line)
                    rec["flows"].append({c: float(v) for c, v in zip(flow_counters, vals)})
                    k += 1 + n
                elif tok[k] == "Q":
                    vals = tok[k + 2:k + 5]
                    if len(vals) != 3:
                        raise ValueError(line)
                    rec["queues"][int(tok[k + 1])] = tuple(float(v) for v in vals)
                    k += 5
                elif tok[k] == "M":
                    rec["marks"][int(tok[k + 1])] = float(tok[k + 2])
                    k += 3
                else:
                    raise ValueError(tok[k])
        except (ValueError, IndexError):
            raise CrosscheckError(field, line[:80], f"the report lines {printer} prints") from None
        got[tok[0]] = rec
    if "E" not in got:
        raise CrosscheckError(field, text.strip().splitlines()[-1][:200] if text.strip() else "(empty)",
                              f"a run that reaches its end (see {printer})")
    return got
