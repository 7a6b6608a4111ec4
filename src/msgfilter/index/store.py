"""The tag postings (RocketMQ tags, Pulsar tags) and the look-up of one message's tag
candidates; `view_of`, how the index reads a message. Postings hold entry numbers (small
ints), never filters."""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType
from typing import Any

from ..message import as_mapping
from ..tags import message_tag, message_tags
from .keys import AnyTag, Probe, Tag

Postings = dict[object, set[int]]


def _discard(table: dict[Any, Any], key: object, entry: int) -> None:
    members = table[key]
    members.discard(entry)
    if not members:
        del table[key]


class TagStore:
    """RocketMQ tags (`Tag`) and Pulsar tags (`AnyTag`): one table each."""

    def __init__(self) -> None:
        self.rocketmq: Postings = {}
        self.pulsar: Postings = {}

    def __bool__(self) -> bool:
        return bool(self.rocketmq or self.pulsar)

    def add(self, probe: Probe, entry: int) -> None:
        table = self.rocketmq if isinstance(probe, Tag) else self.pulsar
        key = probe.tag if isinstance(probe, Tag | AnyTag) else None
        table.setdefault(key, set()).add(entry)

    def remove(self, probe: Probe, entry: int) -> None:
        table = self.rocketmq if isinstance(probe, Tag) else self.pulsar
        key = probe.tag if isinstance(probe, Tag | AnyTag) else None
        _discard(table, key, entry)

    def candidates(self, message: Any, out: list[Iterable[int]]) -> None:
        if self.rocketmq:
            tag = message_tag(message)
            if tag is not None:
                found = self.rocketmq.get(tag)
                if found:
                    out.append(found)
        if self.pulsar:
            table = self.pulsar
            for tag in message_tags(message):
                found = table.get(tag)
                if found:
                    out.append(found)


#: Views whose names are exactly what `get` answers for, so iterating them is safe.
_ITERABLE = (dict, MappingProxyType)


#: What the selector evaluators read a message through (`m.get`): `message.as_mapping`,
#: under the name the index's modules import it by.
view_of = as_mapping
