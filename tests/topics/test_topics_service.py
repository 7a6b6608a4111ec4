"""TopicListService: listings, hashes, watchers, queues, connections, thread safety."""

from __future__ import annotations

import logging
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from msgfilter.topics import (
    EMPTY_HASH,
    GetTopicsResult,
    Mode,
    TopicListConfig,
    TopicListNotAllowedError,
    TopicListService,
    TopicListUpdate,
    TopicNameError,
    TopicPatternError,
    TopicsPattern,
    UnknownWatcherError,
    WatchResult,
    topics_hash,
)

NS = "my-property/my-ns"
T1 = "persistent://my-property/my-ns/pattern-topic-1"
T2 = "persistent://my-property/my-ns/pattern-topic-2"
T3 = "persistent://my-property/my-ns/hello-3"
T4 = "non-persistent://my-property/my-ns/hello-4"
SYSTEM = "persistent://my-property/my-ns/__change_events"
PATTERN = "persistent://my-property/my-ns/pattern-topic.*"


@pytest.fixture
def service() -> TopicListService:
    service = TopicListService()
    assert service.topics_created([T1, T2, T3, T4, SYSTEM]) == 4  # the system topic is ignored
    return service


# --- GetTopicsOfNamespace --------------------------------------------------------------


def test_filtered_listing_with_the_spec_hash(service: TopicListService) -> None:
    result = service.get_topics(NS, PATTERN)
    assert result == GetTopicsResult((T1, T2), True, "a70f7073", True)
    topics, filtered, topics_hash_, changed = result
    assert (topics, filtered, topics_hash_, changed) == ((T1, T2), True, "a70f7073", True)


def test_matching_client_hash_gives_an_empty_unchanged_answer(service: TopicListService) -> None:
    assert service.get_topics(NS, PATTERN, "a70f7073") == GetTopicsResult(
        (), True, "a70f7073", False
    )
    stale = service.get_topics(NS, PATTERN, "fd59a01d")
    assert stale.changed and stale.topics == (T1, T2)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (Mode.PERSISTENT, (T3, T1, T2)),
        (Mode.NON_PERSISTENT, (T4,)),
        (Mode.ALL, (T4, T3, T1, T2)),
        ("all", (T4, T3, T1, T2)),
    ],
)
def test_modes_without_pattern(
    service: TopicListService, mode: Mode | str, expected: tuple[str, ...]
) -> None:
    result = service.get_topics(NS, mode=mode)
    assert result == GetTopicsResult(expected, False, topics_hash(expected), True)


def test_the_pattern_domain_is_ignored_and_mode_decides(service: TopicListService) -> None:
    # As in Pulsar's testFilterTopics, a persistent:// pattern also selects non-persistent
    # names; which domains are listed is the mode's business.
    result = service.get_topics(NS, "persistent://my-property/my-ns/hello.*", mode=Mode.ALL)
    assert result.topics == (T4, T3)
    result = service.get_topics(NS, "non-persistent://my-property/my-ns/hello.*")
    assert result.topics == (T3,)


def test_unknown_namespace_is_empty(service: TopicListService) -> None:
    assert service.get_topics("other/ns") == GetTopicsResult((), False, EMPTY_HASH, True)
    assert service.get_topics("other/ns", None, EMPTY_HASH).changed is False


def test_too_long_or_disabled_pattern_gives_the_unfiltered_list() -> None:
    long_pattern = PATTERN + "x" * (51 - len(PATTERN))
    for config, pattern in [
        (TopicListConfig(), long_pattern),
        (TopicListConfig(enable_broker_side_subscription_pattern_evaluation=False), PATTERN),
    ]:
        service = TopicListService(config)
        service.topics_created([T1, T2, T3, SYSTEM])
        result = service.get_topics(NS, pattern)
        assert result == GetTopicsResult((T3, T1, T2), False, topics_hash([T1, T2, T3]), True)


def test_listing_cache_follows_changes(service: TopicListService) -> None:
    before = service.get_topics(NS, PATTERN)
    all_before = service.get_topics(NS, mode=Mode.ALL)
    non_persistent_before = service.get_topics(NS, mode=Mode.NON_PERSISTENT)
    t5 = "persistent://my-property/my-ns/pattern-topic-5"
    assert service.topic_created(t5)
    after = service.get_topics(NS, PATTERN, before.topics_hash)
    assert after.changed and after.topics == (T1, T2, t5)
    assert after.topics_hash == topics_hash([T1, T2, t5])
    assert service.get_topics(NS, mode=Mode.ALL).topics == (*all_before.topics, t5)
    # A persistent change leaves the non-persistent listing as it was.
    assert not service.get_topics(
        NS, None, non_persistent_before.topics_hash, "NON_PERSISTENT"
    ).changed
    assert service.topic_deleted(t5)
    assert not service.get_topics(NS, PATTERN, before.topics_hash).changed


def test_invalid_inputs(service: TopicListService) -> None:
    with pytest.raises(TopicNameError):
        service.get_topics("not a namespace")
    with pytest.raises(TopicPatternError):
        service.get_topics(NS, "my-property/my-ns/(")
    with pytest.raises(TopicNameError):
        service.topics_created(["persistent://t/ns/fine", "bogus://x"])
    # The batch was checked before anything changed.
    assert service.get_topics("t/ns").topics == ()


# --- watchers ------------------------------------------------------------------------


def test_watch_returns_the_matching_persistent_topics(service: TopicListService) -> None:
    result = service.watch(NS, "persistent://my-property/my-ns/.*")
    assert result.topics == (T3, T1, T2)  # persistent only, system topic left out
    assert result.topics_hash == topics_hash([T1, T2, T3])
    watcher_id, topics, topics_hash_ = result
    assert (watcher_id, topics, topics_hash_) == (
        result.watcher_id,
        result.topics,
        result.topics_hash,
    )


def test_watch_with_the_current_hash_sends_no_topics(service: TopicListService) -> None:
    assert service.watch(NS, PATTERN, "a70f7073").topics == ()
    stale = service.watch(NS, PATTERN, "00000000")
    assert stale == WatchResult(stale.watcher_id, (T1, T2), "a70f7073")


def test_watch_refused_when_disabled() -> None:
    service = TopicListService(
        TopicListConfig(enable_broker_side_subscription_pattern_evaluation=False)
    )
    with pytest.raises(
        TopicListNotAllowedError, match="Evaluating subscription patterns is disabled"
    ):
        service.watch(NS, PATTERN)


def test_watch_length_is_measured_without_the_scheme() -> None:
    service = TopicListService()
    service.topics_created([T1])
    pattern = "persistent://my-property/my-ns/pattern-topic-1(x)?(y)?"
    # At most 50 characters without the scheme: a watcher is allowed...
    stripped = pattern.removeprefix("persistent://")
    assert len(stripped) <= 50 < len(pattern)
    assert service.watch(NS, pattern).topics == (T1,)
    # ...while a listing measures the pattern as sent, so the same one is not applied there.
    assert service.get_topics(NS, pattern).filtered is False
    with pytest.raises(TopicListNotAllowedError, match="Pattern longer than maximum: 50"):
        service.watch(NS, "persistent://my-property/my-ns/" + "a" * 40)


def test_updates_only_for_matching_watchers_and_real_changes(service: TopicListService) -> None:
    narrow = service.watch(NS, PATTERN).watcher_id
    hello = service.watch(NS, "my-property/my-ns/hello-.*").watcher_id
    t5 = "persistent://my-property/my-ns/pattern-topic-5"
    assert service.topic_created(t5)
    assert not service.topic_created(t5)  # already there: nobody hears of it again
    assert not service.topic_deleted("persistent://my-property/my-ns/pattern-topic-9")
    service.topic_created("non-persistent://my-property/my-ns/pattern-topic-np")  # not watched
    service.topic_created("persistent://my-property/my-ns/pattern-topic-x/__change_events")
    service.topic_created("persistent://other/ns/pattern-topic-6")  # another namespace
    assert service.topic_deleted(T1)
    assert service.poll_updates(narrow) == [
        TopicListUpdate(narrow, (t5,), (), topics_hash([T1, T2, t5])),
        TopicListUpdate(narrow, (), (T1,), topics_hash([T2, t5])),
    ]
    assert service.poll_updates(hello) == []


def test_partitions_are_reported_one_by_one(service: TopicListService) -> None:
    watcher = service.watch(NS, "my-property/my-ns/orders").watcher_id
    partitions = [f"persistent://my-property/my-ns/orders-partition-{i}" for i in range(3)]
    service.topics_created(partitions)
    updates = service.poll_updates(watcher)
    assert [u.new_topics for u in updates] == [(p,) for p in partitions]
    assert [u.topics_hash for u in updates] == [topics_hash(partitions[: i + 1]) for i in range(3)]


def test_queue_overflow_drops_and_ends_with_a_resync_beacon() -> None:
    service = TopicListService(TopicListConfig(watcher_queue_size=2))
    watcher = service.watch("t/ns", "t/ns/.*").watcher_id
    names = [f"persistent://t/ns/n{i}" for i in range(5)]
    for name in names:
        service.topic_created(name)
    info = service.watcher_info(watcher)
    assert (info.queued_updates, info.dropped_updates, info.needs_resync) == (2, 3, True)
    first = service.poll_updates(watcher, max_updates=1)
    assert first == [TopicListUpdate(watcher, (names[0],), (), topics_hash(names[:1]))]
    # Still not drained: later updates keep being dropped, so none overtakes the beacon.
    service.topic_created("persistent://t/ns/n5")
    assert service.watcher_info(watcher).dropped_updates == 4
    rest = service.poll_updates(watcher)
    everything = [*names, "persistent://t/ns/n5"]
    assert rest == [
        TopicListUpdate(watcher, (names[1],), (), topics_hash(names[:2])),
        TopicListUpdate(watcher, (), (), topics_hash(everything)),
    ]
    assert not service.watcher_info(watcher).needs_resync
    service.topic_deleted(names[0])
    assert service.poll_updates(watcher) == [
        TopicListUpdate(watcher, (), (names[0],), topics_hash(everything[1:]))
    ]


def test_unwatch_and_connection_cleanup(service: TopicListService) -> None:
    a1 = service.watch(NS, PATTERN, connection="a").watcher_id
    a2 = service.watch(NS, "my-property/my-ns/.*", connection="a").watcher_id
    b1 = service.watch(NS, PATTERN, connection="b").watcher_id
    loose = service.watch(NS, PATTERN).watcher_id
    assert service.watcher_ids("a") == (a1, a2)
    assert service.watcher_ids() == (a1, a2, b1, loose)
    service.topic_created("persistent://my-property/my-ns/pattern-topic-7")
    assert service.close_connection("a") == 2
    assert service.close_connection("a") == 0
    assert service.watcher_ids("a") == ()
    for gone in (a1, a2):
        with pytest.raises(UnknownWatcherError):
            service.poll_updates(gone)
        with pytest.raises(UnknownWatcherError):
            service.watcher_info(gone)
    assert service.unwatch(b1)
    assert not service.unwatch(b1)
    assert service.watcher_ids() == (loose,)
    assert len(service.poll_updates(loose)) == 1
    assert service.unwatch(loose)
    service.topic_created("persistent://my-property/my-ns/pattern-topic-8")  # nobody left
    assert service.watcher_ids() == ()
    assert "no topic-list watcher with id" in str(UnknownWatcherError(a1))


def test_no_watcher_left_behind_after_closing_every_connection() -> None:
    service = TopicListService()
    for connection in range(5):
        for k in range(3):
            service.watch("t/ns", f"t/ns/c{connection}-{k}.*", connection=connection)
    for connection in range(5):
        service.close_connection(connection)
    assert service.watcher_ids() == ()
    assert service._namespaces == {}  # the per-namespace index went with the last watcher
    assert service._by_connection == {}


def test_on_update_runs_outside_the_lock(service: TopicListService) -> None:
    received: list[list[TopicListUpdate]] = []

    def deliver(watcher_id: int) -> None:
        # Calling back into the service would deadlock if the lock were held here.
        received.append(service.poll_updates(watcher_id))

    watcher = service.watch(NS, PATTERN, on_update=deliver).watcher_id
    t5 = "persistent://my-property/my-ns/pattern-topic-5"
    service.topic_created(t5)
    assert received == [[TopicListUpdate(watcher, (t5,), (), topics_hash([T1, T2, t5]))]]


def test_a_failing_callback_is_logged_not_raised(
    service: TopicListService, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(watcher_id: int) -> None:
        raise RuntimeError("listener down")

    calls: list[int] = []
    first = service.watch(NS, PATTERN, on_update=broken).watcher_id
    second = service.watch(NS, PATTERN, on_update=calls.append).watcher_id
    with caplog.at_level(logging.ERROR, logger="msgfilter.topics.service"):
        assert service.topic_created("persistent://my-property/my-ns/pattern-topic-5")
    assert calls == [second]
    assert f"watcher {first}" in caplog.text
    assert len(service.poll_updates(first)) == 1


PATTERN_POOL = [
    "t/ns/a.*",
    "t/ns/ab.*",
    "t/ns/a[0-9]+",
    "t/ns/b",
    "t/ns/.*-x",
    ".*",
    "t/ns/(a|b)c",
    "(?i)t/ns/A.*",
    "t/ns/a-partition-1",
]
NAME_POOL = [
    f"persistent://t/ns/{local}"
    for local in [
        "a",
        "ab",
        "abc",
        "a1",
        "a12",
        "b",
        "ac",
        "bc",
        "a-x",
        "b-x",
        "Ab",
        "a-partition-1",
        "ab-partition-0",
        "b-partition-3",
    ]
]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(PATTERN_POOL), min_size=1, max_size=6),
    st.lists(st.tuples(st.booleans(), st.sampled_from(NAME_POOL)), max_size=25),
)
def test_prefix_index_notifies_exactly_the_matching_watchers(
    patterns: list[str], operations: list[tuple[bool, str]]
) -> None:
    service = TopicListService()
    watchers = {service.watch("t/ns", p).watcher_id: TopicsPattern.compile(p) for p in patterns}
    present: set[str] = set()
    for create, name in operations:
        changed = service.topic_created(name) if create else service.topic_deleted(name)
        assert changed == ((name not in present) if create else (name in present))
        if create:
            present.add(name)
        else:
            present.discard(name)
        for watcher_id, pattern in watchers.items():
            expected = [] if not changed or not pattern.matches(name) else [name]
            updates = service.poll_updates(watcher_id)
            got = [t for u in updates for t in (u.new_topics if create else u.deleted_topics)]
            assert got == expected, (pattern.input_pattern, name)
            if updates:
                matching = [t for t in present if pattern.matches(t)]
                assert updates[-1].topics_hash == topics_hash(matching)


def test_concurrent_changes_keep_every_update_in_order() -> None:
    service = TopicListService()
    watcher = service.watch("t/ns", "t/ns/.*").watcher_id
    other = service.watch("t/ns", "t/ns/w1-.*").watcher_id

    def work(worker: int) -> None:
        for i in range(150):
            name = f"persistent://t/ns/w{worker}-{i % 40}"
            if i % 3 == 2:
                service.topic_deleted(name)
            else:
                service.topic_created(name)
            if i % 10 == 0:
                service.get_topics("t/ns", "t/ns/w.*")

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    final = service.get_topics("t/ns", "t/ns/.*")
    for watcher_id, pattern in ((watcher, "t/ns/.*"), (other, "t/ns/w1-.*")):
        replay: set[str] = set()
        for update in service.poll_updates(watcher_id):
            replay.difference_update(update.deleted_topics)
            replay.update(update.new_topics)
            # Each hash describes the set right after its own update: order was kept.
            assert update.topics_hash == topics_hash(replay)
        compiled = TopicsPattern.compile(pattern)
        assert replay == {t for t in final.topics if compiled.matches(t)}
