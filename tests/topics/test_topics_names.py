"""Topic names: parsing as Pulsar's TopicName does, partitions, domains, system topics."""

from __future__ import annotations

import pytest

from msgfilter.errors import FilterError
from msgfilter.topics import (
    Mode,
    TopicDomain,
    TopicNameError,
    is_system_topic,
    parse_topic_name,
    partition_index,
)


def test_complete_v2_name() -> None:
    topic = parse_topic_name("persistent://tenant/ns/orders-partition-3")
    assert topic.name == "persistent://tenant/ns/orders-partition-3"
    assert topic.domain is TopicDomain.PERSISTENT
    assert (topic.tenant, topic.cluster, topic.namespace_portion) == ("tenant", None, "ns")
    assert topic.namespace == "tenant/ns"
    assert topic.local_name == "orders-partition-3"
    assert topic.partition == 3
    assert topic.partitioned_topic_name == "persistent://tenant/ns/orders"
    assert topic.base_local_name == "orders"
    assert topic.pattern_subject == "tenant/ns/orders"
    assert str(topic) == topic.name


def test_legacy_name_with_cluster() -> None:
    topic = parse_topic_name("non-persistent://prop/us-west/ns/t")
    assert topic.domain is TopicDomain.NON_PERSISTENT
    assert not topic.is_persistent
    assert (topic.tenant, topic.cluster, topic.namespace_portion) == ("prop", "us-west", "ns")
    assert topic.namespace == "prop/us-west/ns"
    assert topic.pattern_subject == "prop/us-west/ns/t"


@pytest.mark.parametrize(
    ("short", "complete"),
    [
        ("my-topic", "persistent://public/default/my-topic"),
        ("tenant/ns/my-topic", "persistent://tenant/ns/my-topic"),
    ],
)
def test_short_names_are_completed(short: str, complete: str) -> None:
    assert parse_topic_name(short).name == complete


@pytest.mark.parametrize(
    "bad",
    [
        "foo://tenant/ns/t",  # unknown domain
        "tenant/t",  # two-part short name
        "persistent://tenant/t",  # no namespace
        "persistent://tenant//t",  # empty namespace
        "persistent://ten ant/ns/t",  # tenant outside [-=:.\w]
        "persistent://tenant/ns/   ",  # blank local name
        "",
    ],
)
def test_invalid_names(bad: str) -> None:
    with pytest.raises(TopicNameError) as info:
        parse_topic_name(bad)
    assert isinstance(info.value, FilterError)


@pytest.mark.parametrize(
    ("name", "index"),
    [
        ("persistent://t/ns/x-partition-0", 0),
        ("persistent://t/ns/x-partition-12", 12),
        ("persistent://t/ns/x-partition-2147483647", 2147483647),
        ("persistent://t/ns/x-partition-1-partition-2", 2),
        ("persistent://t/ns/x", None),
        ("persistent://t/ns/x-partition-", None),
        ("persistent://t/ns/x-partition-01", None),  # leading zero
        ("persistent://t/ns/x-partition--1", None),  # negative
        ("persistent://t/ns/x-partition-+1", None),  # sign
        ("persistent://t/ns/x-partition-2147483648", None),  # beyond Java int
        ("persistent://t/ns/x-partition-1a", None),
        ("persistent://t-partition-1/ns/x", None),  # the suffix must end the name
    ],
)
def test_partition_index_as_pulsar_parses_it(name: str, index: int | None) -> None:
    assert partition_index(name) == index
    assert parse_topic_name(name).partition == index


def test_nested_partition_suffix_strips_only_the_last() -> None:
    topic = parse_topic_name("persistent://t/ns/a-partition-1-partition-2")
    assert topic.partitioned_topic_name == "persistent://t/ns/a-partition-1"
    assert topic.pattern_subject == "t/ns/a-partition-1"


@pytest.mark.parametrize(
    "name",
    [
        "persistent://t/ns/__change_events",
        "persistent://t/ns/__change_events-partition-0",
        "persistent://t/ns/__transaction_buffer_snapshot",
        "persistent://t/ns/__transaction_buffer_snapshot_segments",
        "persistent://t/ns/__transaction_buffer_snapshot_indexes",
        "persistent://t/ns/orders-sub__transaction_pending_ack",
        "persistent://pulsar/system/transaction_coordinator_assign-partition-0",
        "persistent://pulsar/system/__transaction_log_0",
        "non-persistent://pulsar/system/resource-usage",
    ],
)
def test_system_topics(name: str) -> None:
    assert is_system_topic(name)
    assert is_system_topic(parse_topic_name(name))


@pytest.mark.parametrize(
    "name",
    [
        "persistent://t/ns/orders",
        "persistent://t/ns/__my_own_topic",  # Pulsar lists other __ names
        "persistent://t/ns/__change_events_archive",
        "persistent://pulsar/other/x",
        "persistent://pulsar/cluster/system/x",  # legacy namespace pulsar/cluster/system
    ],
)
def test_user_topics(name: str) -> None:
    assert not is_system_topic(name)


def test_mode() -> None:
    assert Mode.coerce("all") is Mode.ALL
    assert Mode.coerce("non-persistent") is Mode.NON_PERSISTENT
    assert Mode.coerce(0) is Mode.PERSISTENT
    assert Mode.coerce(Mode.ALL) is Mode.ALL
    with pytest.raises(ValueError):
        Mode.coerce("some")
    assert Mode.PERSISTENT.includes(TopicDomain.PERSISTENT)
    assert not Mode.PERSISTENT.includes(TopicDomain.NON_PERSISTENT)
    assert Mode.NON_PERSISTENT.includes(TopicDomain.NON_PERSISTENT)
    assert not Mode.NON_PERSISTENT.includes(TopicDomain.PERSISTENT)
    assert Mode.ALL.includes(TopicDomain.PERSISTENT)
    assert Mode.ALL.includes(TopicDomain.NON_PERSISTENT)
    assert [int(mode) for mode in Mode] == [0, 1, 2]  # the proto's numbers
