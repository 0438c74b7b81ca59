"""Writes cellular.trace: a synthetic, cellular-like link in Mahimahi's format (mm-link).

    python scenarios/links/make_cellular_trace.py      # rewrites cellular.trace, prints its mean

Not a measured carrier trace: a made-up rate that holds for a random 200 to 500 ms, then
jumps to a new rate drawn log-uniformly between 1 and 40 Mbit/s (so low rates, as at a cell
edge, are as common as high ones), for 60 s; the trace repeats after that, as mm-link's do.
Each rate becomes delivery opportunities: one line of the millisecond per 1500 bytes the rate
has carried by then (the remainder carried over to the next millisecond). Seeded: the file is
the same on every run.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 16
LENGTH_MS = 60_000
LOW_BPS, HIGH_BPS = 1e6, 40e6


def rates_per_ms(rng: random.Random) -> list[float]:
    """The rate (bit/s) in force during each millisecond 1..LENGTH_MS."""
    out: list[float] = []
    while len(out) < LENGTH_MS:
        hold = rng.randint(200, 500)
        rate = math.exp(rng.uniform(math.log(LOW_BPS), math.log(HIGH_BPS)))
        out.extend([rate] * hold)
    return out[:LENGTH_MS]


def opportunities(rates: list[float]) -> list[int]:
    lines: list[int] = []
    credit = 0.0
    for ms, rate in enumerate(rates, start=1):
        credit += rate / 8 / 1000
        while credit >= 1500:
            lines.append(ms)
            credit -= 1500
    if not lines or lines[-1] != LENGTH_MS:
        lines.append(LENGTH_MS)  # the period: the trace repeats after its last timestamp
    return lines


def main() -> None:
    rates = rates_per_ms(random.Random(SEED))
    lines = opportunities(rates)
    (HERE / "cellular.trace").write_text("".join(f"{ms}\n" for ms in lines))
    mean = len(lines) * 1500 * 8 / (lines[-1] / 1000)
    print(f"cellular.trace: {len(lines)} opportunities over {lines[-1]} ms, mean {mean / 1e6:.2f} Mbit/s, "
          f"rates {min(rates) / 1e6:.2f} to {max(rates) / 1e6:.2f} Mbit/s")


if __name__ == "__main__":
    main()
