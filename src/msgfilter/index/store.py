"""Postings: the structures a value model's probes are filed in, and the look-up of one
message's candidates.

Postings hold entry numbers (small ints), never filters. Hash tables per identifier for
equalities, one table per identifier tuple for chained equalities, prefix tables (one
dict per identifier, probed once per distinct prefix length), sorted bounds for ranges
(one-sided ranges are a slice of a sorted list; two-sided ones a precomputed set per
elementary segment, rebuilt when they change), and sets for IS NOT NULL and tags.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort
from collections import Counter
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from ..message import as_mapping
from ..semantics.model import ValueModel
from ..tags import message_tag, message_tags
from . import canonical as c
from .keys import AnyTag, Compound, Eq, Prefix, Present, Probe, Range, Tag

Postings = dict[object, set[int]]


class Ranges:
    """Numeric intervals of one identifier, in double space."""

    def __init__(self) -> None:
        self.lows: list[tuple[float, int]] = []    # [low, +inf]: hit when low <= x
        self.highs: list[tuple[float, int]] = []   # [-inf, high]: hit when x <= high
        self.spans: dict[tuple[float, float], set[int]] = {}
        self._points: list[float] = []
        self._slots: list[tuple[int, ...]] = []
        self._dirty = False

    def __len__(self) -> int:
        return len(self.lows) + len(self.highs) + sum(map(len, self.spans.values()))

    def add(self, low: float, high: float, entry: int) -> None:
        if high == math.inf:
            insort(self.lows, (low, entry))
        elif low == -math.inf:
            insort(self.highs, (high, entry))
        else:
            self.spans.setdefault((low, high), set()).add(entry)
            self._dirty = True

    def remove(self, low: float, high: float, entry: int) -> None:
        if high == math.inf:
            _remove_sorted(self.lows, (low, entry))
        elif low == -math.inf:
            _remove_sorted(self.highs, (high, entry))
        else:
            members = self.spans[(low, high)]
            members.discard(entry)
            if not members:
                del self.spans[(low, high)]
            self._dirty = True

    def hits(self, x: float, out: list[Iterable[int]]) -> None:
        lows, highs = self.lows, self.highs
        if lows:
            at = bisect_right(lows, (x, math.inf))
            if at:
                out.append([e for _, e in lows[:at]])
        if highs:
            at = bisect_left(highs, (x, -1))
            if at < len(highs):
                out.append([e for _, e in highs[at:]])
        if self.spans:
            if self._dirty:
                self._rebuild()
            points = self._points
            at = bisect_left(points, x)
            slot = 2 * at + 1 if at < len(points) and points[at] == x else 2 * at
            found = self._slots[slot]
            if found:
                out.append(found)

    def _rebuild(self) -> None:
        points = sorted({p for span in self.spans for p in span})
        index = {p: i for i, p in enumerate(points)}
        slots: list[list[int]] = [[] for _ in range(2 * len(points) + 1)]
        for (low, high), members in self.spans.items():
            # Slot 2i+1 is the point i itself, slot 2i the gap before it.
            for slot in range(2 * index[low] + 1, 2 * index[high] + 2):
                slots[slot].extend(members)
        self._points = points
        self._slots = [tuple(s) for s in slots]
        self._dirty = False


def _remove_sorted(items: list[tuple[float, int]], item: tuple[float, int]) -> None:
    at = bisect_left(items, item)
    if at < len(items) and items[at] == item:
        del items[at]
    else:  # pragma: no cover - a plan is removed exactly as it was added
        raise KeyError(item)


class Prefixes:
    """Prefixes of one identifier: one dict, probed once per distinct prefix length."""

    def __init__(self) -> None:
        self.table: Postings = {}
        self.lengths: Counter[int] = Counter()
        self.sorted_lengths: tuple[int, ...] = ()

    def add(self, prefix: str, entry: int) -> None:
        members = self.table.setdefault(prefix, set())
        if entry not in members:
            members.add(entry)
            if len(members) == 1:
                self.lengths[len(prefix)] += 1
                self.sorted_lengths = tuple(sorted(self.lengths))

    def remove(self, prefix: str, entry: int) -> None:
        members = self.table[prefix]
        members.discard(entry)
        if not members:
            del self.table[prefix]
            self.lengths[len(prefix)] -= 1
            if not self.lengths[len(prefix)]:
                del self.lengths[len(prefix)]
            self.sorted_lengths = tuple(sorted(self.lengths))

    def hits(self, text: str, out: list[Iterable[int]]) -> None:
        table, size = self.table, len(text)
        for length in self.sorted_lengths:
            if length > size:
                break
            found = table.get(text[:length])
            if found:
                out.append(found)


def _discard(table: dict[Any, Any], key: object, entry: int) -> None:
    members = table[key]
    members.discard(entry)
    if not members:
        del table[key]


class SelectorStore:
    """The probes of one SQL value model's filters, and their look-up."""

    def __init__(self, model: ValueModel) -> None:
        self.model = model
        self.eq: dict[str, Postings] = {}
        self.kinds: dict[str, Counter[str]] = {}     # rocketmq: which conversions to try
        self.compound: dict[tuple[str, ...], Postings] = {}
        self.prefix: dict[str, Prefixes] = {}
        self.ranges: dict[str, Ranges] = {}
        self.present: dict[str, set[int]] = {}
        self.idents: Counter[str] = Counter()         # probes per identifier
        self.distinct: dict[str, Counter[object]] = {}  # equality keys per identifier
        self.compound_idents: Counter[str] = Counter()
        self._value = c.equality_key(model)
        self._text = c.prefix_text(model)
        self._rocketmq = model is ValueModel.ROCKETMQ

    def __bool__(self) -> bool:
        return bool(self.idents)

    # -- changes -------------------------------------------------------------------------

    def add(self, probe: Probe, entry: int) -> None:
        if isinstance(probe, Compound):
            self.compound.setdefault(probe.idents, {}).setdefault(probe.keys, set()).add(entry)
            for ident, key, kind in zip(probe.idents, probe.keys, probe.kinds, strict=True):
                self._count(ident, kind, 1)
                self._key_count(ident, key, 1)
            return
        if isinstance(probe, Eq):
            self.eq.setdefault(probe.ident, {}).setdefault(probe.key, set()).add(entry)
            self._count(probe.ident, probe.kind, 1)
            self._key_count(probe.ident, probe.key, 1)
        elif isinstance(probe, Prefix):
            self.prefix.setdefault(probe.ident, Prefixes()).add(probe.prefix, entry)
            self._count(probe.ident, "", 1)
        elif isinstance(probe, Range):
            self.ranges.setdefault(probe.ident, Ranges()).add(probe.low, probe.high, entry)
            self._count(probe.ident, "", 1)
        elif isinstance(probe, Present):
            self.present.setdefault(probe.ident, set()).add(entry)
            self._count(probe.ident, "", 1)
        else:  # pragma: no cover - tag probes go to the tag stores
            raise TypeError(probe)

    def remove(self, probe: Probe, entry: int) -> None:
        if isinstance(probe, Compound):
            table = self.compound[probe.idents]
            _discard(table, probe.keys, entry)
            if not table:
                del self.compound[probe.idents]
            for ident, key, kind in zip(probe.idents, probe.keys, probe.kinds, strict=True):
                self._count(ident, kind, -1)
                self._key_count(ident, key, -1)
            return
        if isinstance(probe, Eq):
            table = self.eq[probe.ident]
            _discard(table, probe.key, entry)
            if not table:
                del self.eq[probe.ident]
            self._count(probe.ident, probe.kind, -1)
            self._key_count(probe.ident, probe.key, -1)
        elif isinstance(probe, Prefix):
            prefixes = self.prefix[probe.ident]
            prefixes.remove(probe.prefix, entry)
            if not prefixes.table:
                del self.prefix[probe.ident]
            self._count(probe.ident, "", -1)
        elif isinstance(probe, Range):
            ranges = self.ranges[probe.ident]
            ranges.remove(probe.low, probe.high, entry)
            if not len(ranges):
                del self.ranges[probe.ident]
            self._count(probe.ident, "", -1)
        elif isinstance(probe, Present):
            _discard(self.present, probe.ident, entry)
            self._count(probe.ident, "", -1)

    def _key_count(self, ident: str, key: object, step: int) -> None:
        keys = self.distinct.setdefault(ident, Counter())
        keys[key] += step
        if not keys[key]:
            del keys[key]
        if not keys:
            del self.distinct[ident]

    def estimate(self, probes: tuple[Probe, ...]) -> float:
        """How likely a message is to hit `probes`, from the keys filed so far: an
        equality on an identifier with d distinct keys is hit by about 1/d of messages."""
        total = 0.0
        for probe in probes:
            if isinstance(probe, Eq):
                total += self._share(probe.ident)
            elif isinstance(probe, Compound):
                share = 1.0
                for ident in probe.idents:
                    share *= self._share(ident)
                total += share
            elif isinstance(probe, Prefix):
                prefixes = self.prefix.get(probe.ident)
                total += 1.0 / (2 + (len(prefixes.table) if prefixes else 0))
            elif isinstance(probe, Range):
                total += 0.3
            else:
                total += 0.9
        return total

    def _share(self, ident: str) -> float:
        return 1.0 / (2 + len(self.distinct.get(ident, ())))

    def _count(self, ident: str, kind: str, step: int) -> None:
        self.idents[ident] += step
        if not self.idents[ident]:
            del self.idents[ident]
        if kind:
            kinds = self.kinds.setdefault(ident, Counter())
            kinds[kind] += step
            if not kinds[kind]:
                del kinds[kind]
            if not kinds:
                del self.kinds[ident]

    # -- look-up -------------------------------------------------------------------------

    def candidates(self, view: Mapping[str, object], out: list[Iterable[int]]) -> None:
        """Append to `out` the postings `view` hits (entries that may match)."""
        idents = self.idents
        get = view.get
        names: Iterable[str]
        if len(view) < len(idents) and type(view) in _ITERABLE:
            names = [name for name in view if name in idents]
        else:
            names = idents
        eq, prefix, ranges, present = self.eq, self.prefix, self.ranges, self.present
        keys_of: dict[str, list[object]] | None = {} if self.compound else None
        rocketmq = self._rocketmq
        for name in names:
            value = get(name)
            if value is None:
                continue
            if name in present:
                out.append(present[name])
            table = eq.get(name)
            keys: list[object] | None = None
            if table is not None or (keys_of is not None and name in self.kinds):
                if rocketmq:
                    text = c.rocketmq_text(value)
                    kinds = self.kinds.get(name)
                    keys = [] if text is None or not kinds else c.rocketmq_values(
                        text, frozenset(kinds))
                else:
                    key = self._value(value)
                    keys = [] if key is None else [key]
                if table is not None:
                    for key in keys:
                        found = table.get(key)
                        if found:
                            out.append(found)
                if keys_of is not None:
                    keys_of[name] = keys
            if name in prefix:
                text = self._text(value)
                if text is not None:
                    prefix[name].hits(text, out)
            if name in ranges:
                number = c.jms_number(value)
                if number is not None:
                    ranges[name].hits(number, out)
        if keys_of:
            for chained, postings in self.compound.items():
                self._compound_hits(chained, postings, keys_of, out)

    @staticmethod
    def _compound_hits(
        idents: tuple[str, ...], postings: Postings, keys_of: dict[str, list[object]],
        out: list[Iterable[int]],
    ) -> None:
        combos: list[tuple[object, ...]] = [()]
        for ident in idents:
            keys = keys_of.get(ident)
            if not keys:
                return
            combos = [(*combo, key) for combo in combos for key in keys]
        for combo in combos:
            found = postings.get(combo)
            if found:
                out.append(found)


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
