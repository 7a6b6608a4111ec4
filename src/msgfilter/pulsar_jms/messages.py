"""`msgfilter.Message` objects for Pulsar messages as pulsar-jms reads them: the metadata
fields it shows as JMS headers go into `Message.headers`."""

from __future__ import annotations

from collections.abc import Mapping

from ..message import Message


def pulsar_message(
    properties: Mapping[str, str],
    *,
    partition_key: str | None = None,
    event_time: int | None = None,
    sequence_id: int | None = None,
) -> Message:
    """A `msgfilter.Message` for one Pulsar message (a whole entry or one of a batch).

    `properties` are kept as they are (undecoded strings). The metadata fields that
    pulsar-jms shows as JMS headers go into `Message.headers` under those names:
    ``JMSXGroupID`` = `partition_key`, ``JMSTimestamp`` = `event_time` (Pulsar leaves 0
    or no value when unset), ``JMSXGroupSeq`` = `sequence_id` as text. The partition key
    is also the message's key.
    """
    return adopted_pulsar_message(dict(properties), partition_key, event_time, sequence_id)


def adopted_pulsar_message(
    properties: dict[str, object],
    partition_key: str | None,
    event_time: int | None,
    sequence_id: int | None,
) -> Message:
    """`pulsar_message` taking `properties`, a dict its caller has just built and hands
    over (not copied: decoding a stored entry builds one per message)."""
    heads: dict[str, object] = {}
    if partition_key is not None:
        heads["JMSXGroupID"] = partition_key
    if event_time:
        heads["JMSTimestamp"] = event_time
    if sequence_id is not None:
        heads["JMSXGroupSeq"] = str(sequence_id)
    return Message.adopt(
        properties, heads, () if partition_key is None else (partition_key,)
    )
