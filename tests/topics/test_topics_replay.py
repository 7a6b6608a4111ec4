"""A realistic session replayed step by step, every update and hash checked.

Broker: namespace acme/orders, queues of 2 updates per watcher. Client A is a pattern consumer
on `persistent://acme/orders/order-.*` that polls, then watches, loses its connection,
reconnects with a stale hash. Client B watches the same pattern but reads its updates late,
so its queue overflows and it must resync.
"""

from __future__ import annotations

from msgfilter.topics import (
    GetTopicsResult,
    Mode,
    PatternTopicsTracker,
    TopicListConfig,
    TopicListService,
    TopicListUpdate,
    TopicsChange,
    WatchResult,
    topics_hash,
)

NS = "acme/orders"
PATTERN = "persistent://acme/orders/order-.*"
P = "persistent://acme/orders/"


def test_replay() -> None:
    service = TopicListService(TopicListConfig(watcher_queue_size=2))

    # 1. The namespace as the broker starts: user topics, a system topic, a non-persistent one.
    service.topics_created(
        [
            P + "order-eu",
            P + "order-us",
            P + "payments",
            P + "__change_events",
            "non-persistent://acme/orders/order-tmp",
        ]
    )
    h_eu_us = topics_hash([P + "order-eu", P + "order-us"])

    # 2. Client A lists the namespace: filtered by the broker, system topic gone.
    fetched: list[str | None] = []

    def fetch_a(client_hash: str | None) -> GetTopicsResult:
        fetched.append(client_hash)
        return service.get_topics(NS, PATTERN, client_hash)

    a = PatternTopicsTracker(PATTERN, fetch_a)
    assert a.poll() == TopicsChange((P + "order-eu", P + "order-us"), ())
    assert a.request_hash == h_eu_us

    # 3. A watches with its hash: the broker has nothing new to send.
    watch_a = service.watch(NS, PATTERN, a.request_hash, connection="conn-a")
    assert watch_a == WatchResult(watch_a.watcher_id, (), h_eu_us)
    assert a.apply_watch_success(watch_a) == TopicsChange()
    wa = watch_a.watcher_id

    def deliver_a() -> list[TopicListUpdate]:
        updates = service.poll_updates(wa)
        for update in updates:
            a.apply_update(update)
        return updates

    # 4. A partitioned topic appears, one partition at a time (A reads promptly).
    apac = [P + f"order-apac-partition-{i}" for i in range(3)]
    expected_set = {P + "order-eu", P + "order-us"}
    for partition in apac:
        assert service.topic_created(partition)
        expected_set.add(partition)
        assert deliver_a() == [TopicListUpdate(wa, (partition,), (), topics_hash(expected_set))]

    # 5. Changes that must not reach A: another topic, a duplicate, a non-persistent topic,
    #    a system topic, a topic of another namespace.
    assert service.topic_created(P + "payments-v2")
    assert not service.topic_created(P + "order-eu")
    assert service.topic_created("non-persistent://acme/orders/order-x")
    assert not service.topic_created(P + "order-eu-sub__transaction_pending_ack")
    assert service.topic_created("persistent://acme/billing/order-eu")
    assert deliver_a() == []
    # ...though a listing of every domain shows the non-persistent one.
    everything = service.get_topics(NS, PATTERN, mode=Mode.ALL).topics
    assert everything == (
        "non-persistent://acme/orders/order-tmp",
        "non-persistent://acme/orders/order-x",
        *apac,
        P + "order-eu",
        P + "order-us",
    )

    # 6. A deletion.
    assert service.topic_deleted(P + "order-us")
    expected_set.discard(P + "order-us")
    assert deliver_a() == [TopicListUpdate(wa, (), (P + "order-us",), topics_hash(expected_set))]
    assert a.topics == expected_set
    assert a.topics_hash == topics_hash(expected_set)
    assert a.missed_updates == 0

    # 7. A's connection drops; the broker closes its watcher. Changes happen meanwhile.
    stale_hash = a.request_hash
    assert service.close_connection("conn-a") == 1
    assert service.watcher_ids() == ()
    assert service.topic_created(P + "order-latam")
    assert service.topic_deleted(apac[2])
    expected_set |= {P + "order-latam"}
    expected_set -= {apac[2]}

    # 8. A reconnects with its stale hash and gets the full list back.
    watch_a = service.watch(NS, PATTERN, stale_hash, connection="conn-a2")
    assert stale_hash != topics_hash(expected_set)
    assert watch_a.topics == (apac[0], apac[1], P + "order-eu", P + "order-latam")
    assert watch_a.topics_hash == topics_hash(expected_set)
    assert a.apply_watch_success(watch_a) == TopicsChange((P + "order-latam",), (apac[2],))
    assert a.topics == expected_set
    wa = watch_a.watcher_id

    # 9. Client B watches, then reads nothing while a burst arrives: 2 updates fit the queue.
    b_fetches: list[str | None] = []

    def fetch_b(client_hash: str | None) -> GetTopicsResult:
        b_fetches.append(client_hash)
        return service.get_topics(NS, PATTERN, client_hash)

    b = PatternTopicsTracker(PATTERN, fetch_b)
    watch_b = service.watch(NS, PATTERN, connection="conn-b")
    b.apply_watch_success(watch_b)
    assert b.topics == expected_set
    wb = watch_b.watcher_id
    burst = [P + f"order-new-{i}" for i in range(4)]
    hashes = []
    for name in burst:
        service.topic_created(name)
        expected_set.add(name)
        hashes.append(topics_hash(expected_set))
        deliver_a()  # A keeps up and never overflows
    info = service.watcher_info(wb)
    assert (info.queued_updates, info.dropped_updates, info.needs_resync) == (2, 2, True)

    # 10. B drains: the 2 queued updates, then the resync beacon with the current hash.
    updates_b = service.poll_updates(wb)
    assert updates_b == [
        TopicListUpdate(wb, (burst[0],), (), hashes[0]),
        TopicListUpdate(wb, (burst[1],), (), hashes[1]),
        TopicListUpdate(wb, (), (), hashes[3]),
    ]
    assert b.apply_update(updates_b[0]) == TopicsChange((burst[0],), ())
    assert b.apply_update(updates_b[1]) == TopicsChange((burst[1],), ())
    assert b.missed_updates == 0
    # The beacon's hash is not B's: B resyncs with a full listing (no hash sent).
    assert b.apply_update(updates_b[2]) == TopicsChange((burst[2], burst[3]), (), resynced=True)
    assert b_fetches == [None]
    assert b.missed_updates == 1
    assert b.topics == expected_set

    # 11. Both clients agree with the broker, by set and by hash.
    final = service.get_topics(NS, PATTERN)
    assert set(final.topics) == expected_set
    assert a.topics == b.topics == expected_set
    assert a.topics_hash == b.topics_hash == final.topics_hash
    assert a.missed_updates == 0
    # A final poll with the current hash is answered without topics.
    assert a.poll() == TopicsChange()
    assert fetched[-1] == final.topics_hash

    # 12. Everyone leaves; nothing is left behind.
    assert service.close_connection("conn-a2") == 1
    assert service.close_connection("conn-b") == 1
    assert service.watcher_ids() == ()
