"""Paper 000 (TCP-GT): what its experiments share — the open choices of TCP-GT swept as
variants, the ablation of eq. (5)'s 10-epoch local minimum, the paper's no-drop claim, and
the helper that runs a report's checks under every variant and gives the default's failing
checks their ablations.

Open choices (docs/algorithms/tcp-gt.md, "Choices where the paper is silent"):

- **start**: Algorithm 1 names no slow start; cclab's default starts it at the initial
  window (``slow_start = 0``); the ``slow-start`` variant doubles the window until the
  first decrease decision (``slow_start = 1``).
- **increase cap**: eq. (15) states no bound on ``p``; the ``p-cap`` variant caps it at one
  packet per acknowledged packet (``p_max = 1``, slow start's pace).

The ablation ``rtt_min-1000`` is not a reading of the paper: ``rtt_min`` over 1000 epochs
(near the global minimum that section III-C rejects) removes the creep of the 10-epoch
local minimum of eq. (5), to test whether that creep causes a difference.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

from .base import Check, Run, Variant, claim

#: name -> (cc_params, description). "paper" is the default.
VARIANTS: Dict[str, Tuple[Dict[str, float], str]] = {
    "paper": ({}, "Algorithm 1 and eq. (15) as printed: no slow start, p uncapped."),
    "slow-start": ({"slow_start": 1}, "slow start until the first decrease decision (tcp-gt slow_start = 1)."),
    "p-cap": ({"p_max": 1}, "p of eq. (15) capped at 1 packet per acknowledged packet (tcp-gt p_max = 1)."),
}
DEFAULT = "paper"
WHY_DEFAULT = ("Algorithm 1 and eq. (15) as the paper prints them (section III-E): it names no slow start and no "
               "bound on p; the runs of this setting are the ones cached before the two options existed")
#: The ablation of eq. (5)'s 10-epoch local minimum (not a variant: section III-C fixes 10 epochs).
EPOCHS = "rtt_min-1000"
ABLATIONS: Dict[str, Dict[str, float]] = {EPOCHS: {"rtt_min_epochs": 1000}}
CHANGE = {"slow-start": "tcp-gt slow_start = 1", "p-cap": "tcp-gt p_max = 1",
          EPOCHS: "tcp-gt rtt_min_epochs = 1000 (near-global minimum, ablation only)"}
#: What each ablation removes, in words (the check's own words are appended).
CAUSE = {
    "slow-start": "the window starting at 2 packets without slow start, where eq. (15)'s first increases are huge",
    "p-cap": "eq. (15)'s uncapped increase p = f^3 s^2 / cwnd^2 per acknowledged packet overrunning the buffer",
    EPOCHS: "the 10-epoch local minimum RTT of eq. (5) absorbing a slowly growing queue into rtt_min",
}

Q_NEVER = "The surprising result is that TCP-GT never dropped any packets in our simulations."
S_NEVER = "§I"


def with_params(sc: Mapping[str, Any], params: Mapping[str, float], overhead: str = "") -> Dict[str, Any]:
    """``sc`` with ``params`` added to the cc_params of every TCP-GT flow (unchanged when empty,
    so the default's scenarios stay those already run) and a send overhead if given."""
    out = copy.deepcopy(dict(sc))
    for f in out["flows"]:
        if f.get("cc") == "tcp-gt" and params:
            f["cc_params"] = {**f.get("cc_params", {}), **params}
        if overhead:
            f["overhead"] = overhead
    return out


def variant_runs(make: Callable[[Mapping[str, float]], Sequence[Run]], ablations: Sequence[str] = (EPOCHS,),
                 variants: Sequence[str] = tuple(VARIANTS)) -> List[Run]:
    """The runs of ``make(params)`` for every variant and ablation, keys prefixed and
    ``variant`` added to their params."""
    out: List[Run] = []
    for name in list(variants) + list(ablations):
        params = VARIANTS[name][0] if name in VARIANTS else ABLATIONS[name]
        for r in make(params):
            out.append(Run(f"{name}/{r.key}", with_params(r.scenario, params), r.seed,
                           {"variant": name, **dict(r.params)}))
    return out


def subset(data: Mapping[str, pd.DataFrame], variant: str) -> Dict[str, pd.DataFrame]:
    return {k: (v[v.variant == variant].drop(columns="variant") if "variant" in v.columns else v)
            for k, v in data.items()}


def no_drop(what: str, drops: int, runs: int, *, quote: str = Q_NEVER, section: str = S_NEVER,
            headline: bool = True) -> Check:
    """The paper's no-drop claim on ``runs`` runs of TCP-GT that dropped ``drops`` packets."""
    return claim(what, drops == 0, f"{drops} drops in {runs} run{'s' if runs != 1 else ''}", quote=quote,
                 section=section, headline=headline)


def variants_report(data: Mapping[str, pd.DataFrame], checks_of: Callable[[Dict[str, pd.DataFrame]], List[Check]],
                    suspects: Optional[Mapping[str, str]] = None,
                    explainers: Optional[Sequence[str]] = None) -> Tuple[List[Check], List[Variant]]:
    """``checks_of`` under every variant present in ``data``; the default's checks, each failing
    one with the first ablation (variant or ``ABLATIONS``; only ``explainers`` if given: the causes the
    experiment suspects, so that a variant's run-to-run noise is not taken for a cause) that explains it, else the
    suspected cause ``suspects[what]`` (or the best partial ablation when none is suspected)."""
    present = list(dict.fromkeys(data[next(iter(data))].variant)) if "variant" in data[next(iter(data))] else []
    by = {v: checks_of(subset(data, v)) for v in present}
    variants = [Variant(v, VARIANTS[v][1], by[v], default=v == DEFAULT, why=WHY_DEFAULT if v == DEFAULT else "")
                for v in VARIANTS if v in by]
    checks = []
    for c in by[DEFAULT]:
        if c.holds:
            checks.append(c)
            continue
        tried = []
        for v in [x for x in present if x != DEFAULT and (explainers is None or x in explainers)]:
            same = [a for a in by[v] if a.what == c.what]
            if same:
                tried.append((v, c.explained_by(same[0], CAUSE[v], CHANGE[v])))
        good = [t for _, t in tried if t.ablation is not None and t.ablation.explains]
        if good:
            checks.append(good[0])
        elif suspects and c.what in suspects:
            checks.append(c.suspected(suspects[c.what]))
        else:  # the best partial ablation tried, shown with the share of the gap it closes
            partial = [t for _, t in tried if t.ablation is not None]
            checks.append(max(partial, key=lambda t: t.ablation.closed) if partial else c)
    return checks, variants
