"""Several threads match while one adds and removes: every answer equals the naive loop
over the subscriptions before or after some change, never a mix."""

from __future__ import annotations

import functools
import threading
from collections.abc import Hashable
from typing import Any

import msgfilter
from msgfilter import Filter, SubscriptionIndex

MESSAGES: list[dict[str, Any]] = [
    {"tenant": f"t{i % 7}", "region": f"r{i % 3}", "amount": i % 50} for i in range(40)
]


def selector(i: int) -> str:
    shapes = (
        f"tenant = 't{i % 7}' AND region = 'r{i % 3}'",
        f"tenant IN ('t{i % 7}', 't{(i + 1) % 7}')",
        f"amount > {i % 50}",
        f"NOT (region = 'r{i % 3}')",
        f"tenant LIKE 't{i % 7}%' AND amount BETWEEN {i % 20} AND {i % 20 + 10}",
    )
    return shapes[i % len(shapes)]


def naive(subs: dict[Hashable, Filter], message: Any) -> frozenset[Hashable]:
    return frozenset(k for k, f in subs.items() if f.matches(message))


def test_matches_see_whole_states() -> None:
    idx = SubscriptionIndex()
    subs: dict[Hashable, Filter] = {}
    for i in range(60):
        idx.add(i, selector(i))
        subs[i] = msgfilter.compile(selector(i))
    # Every state the writer publishes, as (key -> filter) snapshots; a matcher's answer
    # must be the naive answer over one of them.
    states: list[dict[Hashable, Filter]] = [dict(subs)]
    states_lock = threading.Lock()
    answers: list[tuple[int, int, int, frozenset[Hashable]]] = []
    stop = threading.Event()

    def writer() -> None:
        for step in range(300):
            key = step % 90
            if key in subs and step % 3 == 0:
                del subs[key]
                change = functools.partial(idx.remove, key)
            else:
                text = selector(step * 7 + 3)
                subs[key] = msgfilter.compile(text)
                change = functools.partial(idx.add, key, text)
            snapshot = dict(subs)
            with states_lock:
                # The new state is recorded before it is published, so a reader that
                # sees it finds it in the list.
                states.append(snapshot)
            change()
        stop.set()

    errors: list[BaseException] = []

    def reader(seed: int) -> None:
        try:
            read(seed)
        except BaseException as error:  # a thread's exception would not fail the test
            errors.append(error)

    def read(seed: int) -> None:
        i = seed
        while not stop.is_set():
            at = i % len(MESSAGES)
            with states_lock:
                first = len(states) - 1
            got = idx.match(MESSAGES[at])
            with states_lock:
                last = len(states)
            answers.append((first, last, at, got))
            i += 1

    threads = [threading.Thread(target=reader, args=(s,)) for s in range(3)]
    threads.append(threading.Thread(target=writer))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(answers) > 100
    # The index was in one of the states recorded while the match ran (a state is
    # recorded just before it is published).
    for first, last, at, got in answers:
        window = states[max(0, first - 1):last]
        assert any(got == naive(state, MESSAGES[at]) for state in window)
    assert set(idx.keys()) == set(subs)
    for m in MESSAGES:
        assert idx.match(m) == naive(subs, m)
