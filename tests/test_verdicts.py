"""The verdict logic of the reproduction (cclab.experiments.verdicts): each check type with an
input that must match and one that must not, ablations, uninformative checks, generated reasons."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from cclab.experiments import VERDICTS, claim, compare, model
from cclab.experiments.verdicts import EXPLAINED_SHARE, printed_precision


@pytest.mark.parametrize(
    "printed, precision",
    [("0.83", 0.005), ("60", 0.5), ("38.943", 0.0005), ("1.2e-3", 0.00005), ("97.5%", 0.0005), ("100", 0.5)],
)
def test_the_precision_of_a_printed_number_is_half_its_last_digit(printed, precision):
    assert printed_precision(printed) == pytest.approx(precision)


def test_compare_with_a_printed_number_uses_its_precision_only():
    assert compare("u", "0.83", 0.834, quote="q").kind == "matches"
    assert compare("u", "0.83", 0.836).kind == "differs-unexplained"
    assert compare("u", "0.83", 0.8249).kind == "differs-unexplained"
    # the spread over seeds widens it, and only by itself
    assert compare("u", "0.83", 0.84, spread=0.006).kind == "matches"
    assert compare("u", "0.83", 0.842, spread=0.006).kind == "differs-unexplained"


def test_a_percentage_as_printed_is_a_share():
    c = compare("utilization", "97.5%", 0.9752)
    assert c.published == pytest.approx(0.975) and c.kind == "matches"
    assert compare("utilization", "97.5%", 0.970).kind == "differs-unexplained"


def test_a_number_read_off_a_figure_needs_its_reading_precision():
    with pytest.raises(ValueError, match="reading precision"):
        compare("t", 60.0, 59.0)
    assert compare("t", 60.0, 64.0, 5.0).kind == "matches"
    assert compare("t", 60.0, 66.0, 5.0).kind == "differs-unexplained"
    assert compare("x", 100.0, 109.0, 0.1, relative=True).kind == "matches"
    assert compare("x", 100.0, 111.0, 0.1, relative=True).kind == "differs-unexplained"


def test_nan_never_matches():
    c = compare("x", "1.0", float("nan"))
    assert not c.holds and math.isinf(c.excess)


def test_a_check_the_alternative_also_passes_is_uninformative():
    c = compare("utilization of gHSTCP", "0.99", 0.992, against={"HSTCP": 0.991})
    assert c.kind == "uninformative" and "HSTCP 0.991" in c.reason
    c = compare("utilization of gHSTCP", "0.99", 0.992, against={"HSTCP": 0.80})
    assert c.kind == "matches"
    # a failing check is a difference, whatever the alternative gives
    assert compare("u", "0.99", 0.90, against={"HSTCP": 0.90}).kind == "differs-unexplained"
    assert claim("no drop", True, "0", informative=False, why_uninformative="Reno drops none too").kind == (
        "uninformative")
    assert claim("no drop", False, "3", informative=False, why_uninformative="x").kind == "differs-unexplained"
    with pytest.raises(ValueError, match="why"):
        claim("no drop", True, "0", informative=False)


def test_claims():
    assert claim("no drop", True, "0 drops").kind == "matches"
    c = claim("no drop", False, "27 drops", reason="slow start overshoots")
    assert c.kind == "differs-unexplained" and "not proven" in c.reason and "slow start" in c.reason


def test_an_ablation_that_passes_explains_and_one_that_does_not_leaves_it_unexplained():
    base = claim("HRF keeps 100 Mbit/s at every RTT", False, "timeouts at 120 ms")
    fixed = claim("HRF keeps 100 Mbit/s at every RTT", True, "no timeout")
    e = base.explained_by(fixed, "NewReno recovery times out on burst losses", 'recovery = "sack"')
    assert e.kind == "differs-explained" and e.ablation.closed == 1.0
    assert "NewReno recovery" in e.reason and 'recovery = "sack"' in e.reason and "passes" in e.reason
    not_fixed = base.explained_by(base, "a wrong cause", "x = 1")
    assert not_fixed.kind == "differs-unexplained" and "closes 0%" in not_fixed.reason


def test_the_share_of_the_gap_an_ablation_closes():
    c = compare("u", "0.90", 0.60)  # 0.295 outside the tolerance
    half = compare("u", "0.90", 0.78)
    e = c.explained_by(half, "cause", "change")
    assert e.ablation.closed == pytest.approx(1 - (0.90 - 0.78 - 0.005) / (0.90 - 0.60 - 0.005))
    assert e.ablation.closed >= EXPLAINED_SHARE and e.kind == "differs-explained"
    little = c.explained_by(compare("u", "0.90", 0.65), "cause", "change")
    assert little.ablation.closed < EXPLAINED_SHARE and little.kind == "differs-unexplained"
    worse = c.explained_by(compare("u", "0.90", 0.50), "cause", "change")
    assert worse.ablation.closed < 0 and worse.kind == "differs-unexplained"


def test_a_passing_check_keeps_no_ablation():
    c = compare("u", "0.90", 0.90)
    assert c.explained_by(compare("u", "0.90", 0.5), "c", "x") is c


def test_a_model_check_is_labelled_as_cclabs_evaluation():
    c = model("t2 of CR at 80 ms", "eq. (12)", 7.46, 7.72, 0.05, relative=True)
    assert "eq. (12), cclab's evaluation" in c.published and c.kind == "matches"
    assert model("t", "eq. (6)", 10.0, 12.0, 0.05, relative=True).kind == "differs-unexplained"


def test_every_verdict_is_one_of_five():
    checks = [compare("a", "1", 1.0), compare("a", "1", 3.0), claim("b", True, ""),
              compare("a", "1", 1.0, against={"x": 1.0}), replace(claim("b", False, ""), not_computed="1 run")]
    assert [c.kind for c in checks] == ["matches", "differs-unexplained", "matches", "uninformative", "not-computed"]
    assert set(VERDICTS) == {c.kind for c in checks} | {"differs-explained"} and len(VERDICTS) == 5


def test_a_claim_over_many_cells_counts_the_gap_in_cells():
    c = claim("gARED above ARED in every cell", False, "0 of 18", shortfall=18)
    most = claim("gARED above ARED in every cell", False, "14 of 18", shortfall=4)
    e = c.explained_by(most, "gARED's max_p stays at its initial 0.1", "initial max_p = 0.001")
    assert e.ablation.closed == pytest.approx(1 - 4 / 18) and e.kind == "differs-explained"
    few = claim("gARED above ARED in every cell", False, "3 of 18", shortfall=15)
    assert c.explained_by(few, "x", "y").kind == "differs-unexplained"
    assert claim("x", True, "", shortfall=5).excess == 0.0


def test_a_difference_without_cause_or_suspicion_carries_no_reason_text():
    c = compare("u", "0.9", 0.5)
    assert c.reason == "" and c.cause == "" and c.verdict == "differs-unexplained"


def test_a_cause_shared_by_several_checks_is_stated_once_with_each_checks_numbers():
    from cclab.experiments.verdicts import checks_table

    cause = "the 10-epoch local minimum RTT of eq. (5) absorbs a growing queue"
    a = compare("Jain, 10 ms", "0.98", 0.72).explained_by(compare("Jain, 10 ms", "0.98", 0.93), cause, "rtt_min = 1000")
    b = compare("Jain, 20 ms", "0.92", 0.67).explained_by(compare("Jain, 20 ms", "0.92", 0.92), cause, "rtt_min = 1000")
    s = claim("no drop", False, "3 drops", reason="slow start overshoots")
    s2 = claim("no drop at 50 ms", False, "5 drops", reason="slow start overshoots")
    t = compare("Jain, 30 ms", "0.88", 0.60).explained_by(compare("Jain, 30 ms", "0.88", 0.55), cause, "rtt_min = 1000")
    table = checks_table([a, b, s, s2, t, compare("u", "0.5", 0.1)])
    rows, causes = table.split("Causes of the differences")
    # The cause, its ablation and the words around the numbers appear once, in the cause's entry ...
    for once in (cause, "slow start overshoots", "rtt_min = 1000", "of the gap", "without the cause"):
        assert table.count(once) == 1, once
    # ... which gives every check it explains with its value as run and without the cause.
    assert ("Jain, 10 ms 0.72 → 0.93 (82%); Jain, 20 ms 0.67 → 0.92 (passes). "
            "It does not explain: Jain, 30 ms 0.6 → 0.55 (-18%).") in causes
    assert "Suspected, not proven by a run, for: no drop; no drop at 50 ms." in causes
    # The table's cells only point at it.
    assert rows.count("| differs-explained (a) |") == 2 and rows.count("| differs-unexplained (b, suspected) |") == 2
    assert "| differs-unexplained |" in rows and rows.count("| differs-unexplained (a, tried) |") == 1


def _web_rows(loss):
    """Rows of 004 fig10's loss table: ``loss(buffer, flows, proto, seed)`` at every point, seeds 1-10."""
    import pandas as pd

    return pd.DataFrame([{"variant": "no-jitter", "rate_mbps": 1000.0, "buffer": b, "flows": n, "proto": p,
                          "seed": s, "loss_rate": loss(b, n, p, s)}
                         for b in (5000, 500) for n in (5, 10, 20) for p in ("HSTCP", "gHSTCP")
                         for s in range(1, 11)])


def test_004_web_loss_ten_seeds_separate_a_point_three_seeds_leave_alike():
    from cclab.experiments.paper004_fig_web import _loss_checks

    # gHSTCP's loss rate over seeds 1-10 at the (5000, 5) point, against HSTCP's 1: three seeds straddle it.
    f = (0.7, 1.25, 0.8, 0.8, 0.85, 0.9, 0.8, 0.85, 0.8, 0.9)

    def loss(b, n, p, s):  # elsewhere gHSTCP 10 % lower, the same for every seed
        base = 1e-4 * n / 5 * (2.0 if b == 500 else 1.0)
        if p == "HSTCP":
            return base
        return base * (f[s - 1] if (b, n) == (5000, 5) else 0.9)

    rows = _web_rows(loss)
    every = "gHSTCP gives a lower loss rate than HSTCP in every setting (buffer, flows)"
    three = {c.what: c for c in _loss_checks(rows[rows.seed <= 3])}[every]
    ten = {c.what: c for c in _loss_checks(rows)}[every]
    assert "lower in 5 of 6" in three.measured and three.kind == "differs-unexplained"
    assert "lower in 6 of 6" in ten.measured and ten.kind == "matches"


def test_004_web_loss_ten_seeds_that_do_not_separate_leave_it_a_difference():
    from cclab.experiments.paper004_fig_web import _loss_checks

    def loss(b, n, p, s):  # gHSTCP the same as HSTCP at (500, 20), lower elsewhere
        g = p == "gHSTCP" and (b, n) != (500, 20)
        return 1e-4 * n * (0.8 if g else 1.0) * (1 + 0.01 * ((s * 7) % 5)) * (1.0 + (b == 500))

    every = {c.what: c for c in _loss_checks(_web_rows(loss))}[
        "gHSTCP gives a lower loss rate than HSTCP in every setting (buffer, flows)"]
    assert every.kind == "differs-unexplained" and "lower in 5 of 6" in every.measured


def test_004_figs_10_11_run_ten_seeds_of_the_default_variant_and_three_of_the_other():
    from cclab.experiments.paper004_fig_web import DEFAULT, Fig10

    seeds = {}
    for r in Fig10().runs(quick=False):
        seeds.setdefault(r.params["variant"], set()).add(r.seed)
    assert seeds[DEFAULT] == set(range(1, 11)) and seeds["jitter"] == {1, 2, 3}


def test_paper002_variants_blame_one_setting_with_one_cause_whatever_the_check():
    """Two checks fail in the default variant and pass without send jitter: both are explained by
    the same cause, in the same words, so the report lists it once; a check that fails in every
    variant stays unexplained."""
    from cclab.experiments.paper002 import DEFAULT_VARIANT, SETTING_CAUSES, VARIANTS
    from cclab.experiments.paper002_fig6_8 import variant_checks
    from cclab.experiments.verdicts import claim

    no_jitter = next(n for n, (j, t) in VARIANTS.items() if not j and t == VARIANTS[DEFAULT_VARIANT][1])

    def checks(name):
        passes = name != DEFAULT_VARIANT and name == no_jitter
        return {"sack_up": claim("SACK flows gain", passes, "x"), "equal": claim("about equal", passes, "y"),
                "never": claim("never holds", False, "z")}

    done = variant_checks({n: checks(n) for n in VARIANTS})[DEFAULT_VARIANT]
    gain, equal, never = done
    assert gain.ablation is not None and equal.ablation is not None and never.ablation is None
    assert gain.ablation.cause == equal.ablation.cause == SETTING_CAUSES["jitter"]
