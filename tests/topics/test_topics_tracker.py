"""PatternTopicsTracker: polling, watcher updates, missed-update detection, old brokers."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from msgfilter.topics import (
    GetTopicsResult,
    PatternTopicsTracker,
    TopicListConfig,
    TopicListService,
    TopicListUpdate,
    TopicsChange,
    WatchResult,
    topics_hash,
)

A = "persistent://t/ns/orders-a"
B = "persistent://t/ns/orders-b"
C = "persistent://t/ns/orders-c"
PAYMENTS = "persistent://t/ns/payments"
SYSTEM = "persistent://t/ns/__change_events"
PATTERN = "persistent://t/ns/orders-.*"


def test_poll_then_poll_again_with_the_hash() -> None:
    service = TopicListService()
    service.topics_created([A, B, PAYMENTS])
    sent: list[str | None] = []

    def fetch(client_hash: str | None) -> GetTopicsResult:
        sent.append(client_hash)
        return service.get_topics("t/ns", PATTERN, client_hash)

    tracker = PatternTopicsTracker(PATTERN, fetch)
    assert tracker.poll() == TopicsChange((A, B), ())
    assert tracker.topics == {A, B}
    assert tracker.poll() == TopicsChange()  # unchanged: nothing to do
    service.topic_created(C)
    service.topic_deleted(A)
    assert tracker.poll() == TopicsChange((C,), (A,))
    assert sent == [None, topics_hash([A, B]), topics_hash([A, B])]
    assert tracker.request_hash == tracker.topics_hash == topics_hash([B, C])
    assert tracker.sorted_topics() == (B, C)


def test_old_broker_without_hash_is_filtered_locally() -> None:
    tracker = PatternTopicsTracker(PATTERN)
    # A pre-PIP-145 broker: every topic, no hash, filtered defaults to false.
    old = GetTopicsResult(
        (A, PAYMENTS, SYSTEM, "non-persistent://t/ns/orders-np"), False, None, True
    )
    change = tracker.apply_listing(old)
    assert change == TopicsChange(("non-persistent://t/ns/orders-np", A), ())
    assert tracker.request_hash is None  # nothing to send back


def test_unfiltered_answer_keeps_the_broker_hash_for_the_next_poll() -> None:
    tracker = PatternTopicsTracker(PATTERN)
    unfiltered = GetTopicsResult((A, PAYMENTS), False, topics_hash([A, PAYMENTS]), True)
    tracker.apply_listing(unfiltered)
    assert tracker.topics == {A}
    # The broker compares with the hash of its unfiltered list, so that is what goes back.
    assert tracker.request_hash == topics_hash([A, PAYMENTS])
    assert tracker.topics_hash == topics_hash([A])
    assert (
        tracker.apply_listing(GetTopicsResult((), False, tracker.request_hash, False))
        == TopicsChange()
    )


def test_watch_success_with_the_current_hash_changes_nothing() -> None:
    tracker = PatternTopicsTracker(PATTERN)
    tracker.apply_watch_success(WatchResult(1, (A, B), topics_hash([A, B])))
    assert tracker.apply_watch_success(WatchResult(2, (), topics_hash([A, B]))) == TopicsChange()
    assert tracker.topics == {A, B}
    # An empty set has the empty hash and really is empty.
    assert tracker.apply_watch_success(WatchResult(3, (), "00000000")) == TopicsChange((), (A, B))


def test_missed_update_without_fetch_raises_the_flag() -> None:
    tracker = PatternTopicsTracker(PATTERN)
    tracker.apply_watch_success(WatchResult(1, (A,), topics_hash([A])))
    # The update adding B was lost; this one adds C and carries the hash of {A, B, C}.
    change = tracker.apply_update(TopicListUpdate(1, (C,), (), topics_hash([A, B, C])))
    assert change == TopicsChange((C,), ())
    assert tracker.needs_resync and tracker.missed_updates == 1
    with pytest.raises(RuntimeError, match="no fetch"):
        tracker.resync()
    tracker.apply_listing(GetTopicsResult((A, B, C), True, topics_hash([A, B, C]), True))
    assert not tracker.needs_resync
    assert tracker.topics == {A, B, C}


def test_missed_update_with_fetch_resyncs_and_reports_the_net_change() -> None:
    service = TopicListService()
    service.topics_created([A, B, C])
    tracker = PatternTopicsTracker(PATTERN, lambda h: service.get_topics("t/ns", PATTERN, h))
    tracker.apply_watch_success(WatchResult(1, (A,), topics_hash([A])))
    change = tracker.apply_update(TopicListUpdate(1, (C,), (), topics_hash([A, B, C])))
    assert change == TopicsChange((B, C), (), resynced=True)
    assert tracker.topics == {A, B, C} and tracker.missed_updates == 1


@dataclass(frozen=True)
class OwnUpdate:
    """A caller's own update type: the tracker only needs the three attributes."""

    new_topics: list[str]
    deleted_topics: list[str]
    topics_hash: str | None


def test_updates_of_any_shape_and_without_hash() -> None:
    tracker = PatternTopicsTracker(PATTERN)
    assert tracker.apply_update(OwnUpdate([A], [], None)) == TopicsChange((A,), ())
    assert tracker.apply_update(OwnUpdate([], [A, B], topics_hash([]))) == TopicsChange((), (A,))
    assert tracker.missed_updates == 0


# --- property: the tracker always converges to the broker's set ---------------------------

NAMES = [
    *(f"persistent://t/ns/orders-{k}" for k in "abcd"),
    "persistent://t/ns/orders-p-partition-0",
    "persistent://t/ns/orders-p-partition-1",
    "persistent://t/ns/payments",
    "persistent://t/ns/__change_events",
    "non-persistent://t/ns/orders-np",
]


class TrackerFollowsService(RuleBasedStateMachine):
    """Random creations, deletions, bursts that overflow the watcher's queue (size 2), partial
    deliveries, reconnects with the tracker's hash, and polls. Whenever every queued update
    has been delivered, the tracker holds exactly the broker's matching set."""

    def __init__(self) -> None:
        super().__init__()
        self.service = TopicListService(TopicListConfig(watcher_queue_size=2))
        self.tracker = PatternTopicsTracker(
            PATTERN, lambda h: self.service.get_topics("t/ns", PATTERN, h)
        )
        self.watcher: int | None = None

    def expected(self) -> set[str]:
        return set(self.service.get_topics("t/ns", PATTERN).topics)

    @rule(name=st.sampled_from(NAMES))
    def create(self, name: str) -> None:
        self.service.topic_created(name)

    @rule(name=st.sampled_from(NAMES))
    def delete(self, name: str) -> None:
        self.service.topic_deleted(name)

    @rule(changes=st.lists(st.tuples(st.booleans(), st.sampled_from(NAMES)), max_size=8))
    def burst(self, changes: list[tuple[bool, str]]) -> None:
        for create, name in changes:
            if create:
                self.service.topic_created(name)
            else:
                self.service.topic_deleted(name)

    @rule()
    def connect(self) -> None:
        if self.watcher is not None:
            self.service.close_connection("conn")
        result = self.service.watch("t/ns", PATTERN, self.tracker.request_hash, connection="conn")
        self.watcher = result.watcher_id
        self.tracker.apply_watch_success(result)

    @precondition(lambda self: self.watcher is not None)
    @rule(count=st.integers(min_value=0, max_value=3))
    def deliver_some(self, count: int) -> None:
        assert self.watcher is not None
        for update in self.service.poll_updates(self.watcher, count):
            self.tracker.apply_update(update)

    @precondition(lambda self: self.watcher is not None)
    @rule()
    def deliver_all(self) -> None:
        self.check_converged()

    @rule()
    def poll(self) -> None:
        self.tracker.poll()
        assert self.tracker.topics == self.expected()

    def check_converged(self) -> None:
        if self.watcher is not None:
            for update in self.service.poll_updates(self.watcher):
                self.tracker.apply_update(update)
        else:
            self.tracker.poll()
        assert self.tracker.topics == self.expected()
        assert self.tracker.topics_hash == self.service.get_topics("t/ns", PATTERN).topics_hash

    def teardown(self) -> None:
        self.check_converged()


TrackerFollowsService.TestCase.settings = settings(
    max_examples=150, stateful_step_count=30, deadline=None
)
test_tracker_follows_the_service = TrackerFollowsService.TestCase
