"""The runner's memory plan (cclab/memory_plan.py): which run starts next, at which budget."""

from cclab.memory_plan import BESIDE, BIG, SPARE, WHOLE, MemoryPlan


def start_all(plan, queue, cap):
    started = []
    while len(plan.running) < cap:
        nxt = plan.next(queue)
        if nxt is None:
            break
        queue.remove(nxt[0])
        plan.start(*nxt)
        started.append(nxt)
    return started


def test_the_levels_of_two_workers_in_bytes():
    plan = MemoryPlan(2, 800)
    assert [plan.limit(lv) for lv in (SPARE, BESIDE, BIG, WHOLE)] == [100, 400, 700, 800]
    assert [MemoryPlan(4, 1600).limit(lv) for lv in (SPARE, BESIDE, BIG, WHOLE)] == [100, 400, 1300, 1600]


def test_every_run_starts_at_its_share_and_two_per_worker_are_in_flight():
    plan = MemoryPlan(2, 800)
    queue = [0, 1, 2, 3, 4]
    assert start_all(plan, queue, 4) == [(0, BESIDE), (1, BESIDE), (2, BESIDE), (3, BESIDE)]


def test_a_run_stopped_at_its_share_goes_on_at_big_while_the_other_worker_runs_spares():
    plan = MemoryPlan(2, 800)
    queue = [0, 1, 2, 3, 4, 5, 6]
    start_all(plan, queue, 2)  # 0 and 1 at their share
    assert plan.stopped_for_memory(0, plan.end(0))
    queue.insert(0, 0)
    # 1 holds its share: 0 cannot have 700 yet; runs that leave it room start meanwhile.
    assert start_all(plan, queue, 4) == [(2, SPARE), (3, SPARE), (4, SPARE)]
    plan.end(1)
    assert start_all(plan, queue, 4) == [(0, BIG)]
    plan.end(2)
    assert start_all(plan, queue, 4) == [(5, SPARE)]  # beside BIG, only a spare
    for i in (0, 3, 4):
        plan.end(i)
    assert start_all(plan, queue, 4) == [(6, BESIDE)]  # BIG done: shares again


def test_a_spare_that_stops_for_memory_waits_for_its_share():
    plan = MemoryPlan(2, 800)
    plan.floor[0] = BIG
    plan.start(0, BIG)
    plan.start(1, SPARE)
    assert plan.stopped_for_memory(1, plan.end(1))
    queue = [1, 2]
    assert start_all(plan, queue, 4) == [(2, SPARE)]  # 1 needs a share: not beside BIG
    plan.end(0)
    assert start_all(plan, queue, 4) == [(1, BESIDE)]


def test_big_then_whole_alone_then_reported():
    plan = MemoryPlan(2, 800)
    assert plan.stopped_for_memory(0, BESIDE) and plan.floor[0] == BIG
    assert plan.stopped_for_memory(0, BIG) and plan.floor[0] == WHOLE
    plan.start(1, SPARE)
    queue = [0, 2]
    assert plan.next(queue) is None  # waits for the whole budget, and nothing starts meanwhile
    plan.end(1)
    assert start_all(plan, queue, 4) == [(0, WHOLE)]
    assert not plan.stopped_for_memory(0, plan.end(0))


def test_one_worker_has_no_larger_budget_to_offer():
    plan = MemoryPlan(1, 800)
    assert plan.limit(BESIDE) == 800
    assert not plan.stopped_for_memory(0, BESIDE)
    assert plan.worker_died(0, BESIDE) and plan.floor[0] == WHOLE
    assert not plan.worker_died(0, WHOLE)


def test_without_a_known_budget_a_run_stopped_beside_others_is_tried_once_alone():
    plan = MemoryPlan(2, None)
    assert plan.limit(BESIDE) is None and plan.limit(WHOLE) is None
    assert plan.stopped_for_memory(0, BESIDE) and plan.floor[0] == WHOLE
    assert not plan.stopped_for_memory(0, WHOLE)


def test_runs_in_flight_when_a_worker_died_run_again_one_at_a_time():
    plan = MemoryPlan(2, 800)
    queue = [0, 1, 2]
    start_all(plan, queue, 2)
    for i in (1, 0):
        assert plan.worker_died(i, plan.end(i))
        queue.insert(0, i)
    assert start_all(plan, queue, 4) == [(0, WHOLE)]
    assert not plan.worker_died(0, plan.end(0))  # alone: the culprit
    assert start_all(plan, queue, 4) == [(1, WHOLE)]
