"""The clause tables of one value model, and the look-up of one message's candidates.

Clauses alike (the same identifiers, filed the same way: their `signature`) share one
`Cluster` (`clusters`), looked up through a `ClusterLookup` that visits only the
clusters of the identifiers a message carries. This module keeps the clusters in step
with the filters, turns a message's values into keys the way the model compares them,
and reads its numbers for the bounds. Clauses made only of bounds share one `RangeTable`
per model; `<>` strike-outs are applied after the look-up.

Every look-up returns entry numbers in two sets: `decided` (an exact clause hit: the
filter is TRUE) and `verify` (the filter's evaluator decides).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from .. import java
from ..semantics import amqp
from ..semantics.model import ValueModel
from . import canonical as c
from .bounds import AS_DOUBLE, AS_INT, AS_LONG, HIGH_ELSE, LOW_ELSE, PRESENCE, ident_of
from .clauses import EQ, NE, NOT_EQ, PREFIX, PRESENT, Clause
from .clusters import Bucket, Cluster, ClusterLookup, Component, Member
from .range_table import RangeMember, RangeTable


def _parsed(text: str, parse: Callable[[str], float]) -> float | None:
    """`parse` (a Java valueOf) of a RocketMQ property's string: None when it fails (the
    broker's comparison would throw: never TRUE), NaN, which Double.compare puts above
    everything, as +inf."""
    try:
        x = float(parse(text))
    except java.JavaNumberFormatError:
        return None
    return math.inf if x != x else x


def _parse_int(text: str) -> float:
    return java.parse_integer(text, 32)


def _parse_long(text: str) -> float:
    return java.parse_integer(text, 64)


def _java_reader(parse: Callable[[str], float]) -> Callable[[Any], float | None]:
    """A RocketMQ property read as `parse` reads its string (None: it has none)."""
    def read(value: Any) -> float | None:
        text = c.rocketmq_text(value)
        return None if text is None else _parsed(text, parse)
    return read


_as_int = _java_reader(_parse_int)
_as_long = _java_reader(_parse_long)
_as_double = _java_reader(java.parse_double)


def rocketmq_number(value: Any) -> float | None:
    """A RocketMQ property among wide numeric bounds: its string as Long.valueOf or else
    Double.valueOf reads it, None when neither does."""
    text = c.rocketmq_text(value)
    if text is None:
        return None
    x = _parsed(text, _parse_long)
    return _parsed(text, java.parse_double) if x is None else x


def number(value: Any) -> float | None:
    """A message value among numeric bounds, as the jms evaluator compares it: an int
    as its double (an int beyond the double range raises OverflowError, which sends the
    message to the careful path), a float itself, NaN and anything else nowhere."""
    cls = type(value)
    if cls is float:
        return value if value == value else None
    if cls is int:
        return float(value)
    return None


def amqp_number(value: Any) -> float | None:
    """An application property among numeric bounds: `number` of the value amqp-sql
    reads (`value_of`: a table's opaque value unwrapped, a timestamp in milliseconds,
    infinities and NaN absent)."""
    return number(amqp.value_of(value))


def _number_else(default: float) -> Callable[[Any], float | None]:
    def read(value: Any) -> float | None:
        if value is None:
            return None
        x = number(value)
        return default if x is None else x
    return read


def _present(value: Any) -> float | None:
    return None if value is None else 0.0


#: How a marked bound name (`bounds.ident_of`) says to read the value: present (0.0,
#: which any bound admits) or not; a RocketMQ string as the broker converts it for the
#: literal's type; a JMS value under a negated comparison, a non-number at one end.
_READERS: dict[str, Callable[[Any], float | None]] = {
    PRESENCE: _present, AS_INT: _as_int, AS_LONG: _as_long, AS_DOUBLE: _as_double,
    LOW_ELSE: _number_else(-math.inf), HIGH_ELSE: _number_else(math.inf)}


class Numbers(dict[str, float | None]):
    """One message's values among numeric bounds, each read once, by name: `number` (or
    `rocketmq_number`) of the value, on first use; for a marked name, as its mark says
    (`_READERS`)."""

    __slots__ = ("message", "number")

    def __init__(self, message: Mapping[str, object],
                 number: Callable[[Any], float | None]) -> None:
        super().__init__()
        self.message = message
        self.number = number

    def __missing__(self, name: str) -> float | None:
        read = _READERS.get(name[0])
        if read is None:
            x = self[name] = self.number(self.message.get(name))
        else:
            x = self[name] = read(self.message.get(name[1:]))
        return x


def read_number(name: str, value: object, number: Callable[[Any], float | None]) -> float | None:
    """One value as `Numbers` reads it for the bound name `name` (marked or not)."""
    return Numbers({ident_of(name): value}, number)[name]


class ClauseStore:
    """The clauses of one SQL value model's filters, and their look-up."""

    def __init__(self, model: ValueModel) -> None:
        self.model = model
        self.clusters: dict[tuple[tuple[Component, ...], tuple[str, ...]], Cluster] = {}
        self.lookup = ClusterLookup(self)
        self.ranges = RangeTable()
        self.idents: Counter[str] = Counter()
        self.kinds: dict[str, Counter[str]] = {}
        self.lengths: dict[str, Counter[int]] = {}
        self.sorted_lengths: dict[str, tuple[int, ...]] = {}
        self.size = 0
        self._value = c.equality_key(model)
        self._text = c.prefix_text(model)
        #: Entries (counted) whose one clause holds `ident <> key`, by (ident, key): a
        #: message whose value there is the key strikes them out.
        self.excluded: dict[tuple[str, object], Counter[int]] = {}
        self.unequal: Counter[str] = Counter()
        self._rocketmq = model is ValueModel.ROCKETMQ
        amqp_model = model in c.AMQP_MODELS
        self._number = rocketmq_number if self._rocketmq else (
            amqp_number if amqp_model else number)
        #: How the store reads a message (None: `message.as_mapping`, the view where a
        #: header wins over a property): AMQP filters read application properties alone.
        self.reader: Callable[[Any], Mapping[str, object]] | None = (
            amqp.application_properties if amqp_model else None)
        self._present = c.amqp_present if amqp_model else _true
        #: RocketMQ entries whose exact hits hold only for a message whose values at
        #: these marked names convert (`ClausePlan.guards`, `throws`).
        self.guards: dict[int, frozenset[str]] = {}

    def __bool__(self) -> bool:
        return self.size > 0

    # -- changes -------------------------------------------------------------------------

    def add(self, clause: Clause, member_id: int, entry: int) -> None:
        self._exclude(clause, entry, 1)
        if _ranged(clause):
            self.ranges.add(member_id, _bounds_of(entry, clause))
            self.size += 1
            self._count(clause, 1)
            return
        cluster = self._cluster(clause, create=True)
        member: Member = (entry, clause.exact, _flat(clause))
        for key in cluster.keys_of(clause):
            bucket = cluster.buckets.get(key)
            if bucket is None:
                bucket = cluster.buckets[key] = Bucket()
            bucket.add(member_id, member, cluster.dims)
        cluster.size += 1
        self.size += 1
        self._count(clause, 1)

    def remove(self, clause: Clause, member_id: int, entry: int) -> None:
        self._exclude(clause, entry, -1)
        if _ranged(clause):
            self.ranges.remove(member_id, _bounds_of(entry, clause))
            self.size -= 1
            self._count(clause, -1)
            return
        cluster = self._cluster(clause, create=False)
        member: Member = (entry, clause.exact, _flat(clause))
        for key in cluster.keys_of(clause):
            bucket = cluster.buckets[key]
            bucket.remove(member_id, member, cluster.dims)
            if not bucket:
                del cluster.buckets[key]
        cluster.size -= 1
        self.size -= 1
        if not cluster.size:
            del self.clusters[(cluster.components, cluster.dims)]
            self.lookup.remove(cluster)
        self._count(clause, -1)

    def guard(self, entry: int, names: frozenset[str]) -> None:
        """Keep `entry`'s exact hits for messages none of whose `names` fails to
        convert (empty `names`: forget the entry)."""
        if names:
            self.guards[entry] = names
        else:
            self.guards.pop(entry, None)

    def _exclude(self, clause: Clause, entry: int, step: int) -> None:
        for atom in clause.atoms:
            if atom.kind == NE or atom.kind == NOT_EQ:
                for key in atom.keys:
                    counts = self.excluded.setdefault((atom.ident, key), Counter())
                    _step(counts, entry, step)
                    if not counts:
                        del self.excluded[(atom.ident, key)]

    def _cluster(self, clause: Clause, *, create: bool) -> Cluster:
        signature = clause.signature
        cluster = self.clusters.get(signature)
        if cluster is None:
            if not create:  # pragma: no cover - a clause is removed as it was added
                raise KeyError(signature)
            cluster = self.clusters[signature] = Cluster(*signature)
            self.lookup.add(cluster)
        return cluster

    def _count(self, clause: Clause, step: int) -> None:
        for atom in clause.atoms:
            _step(self.idents, atom.ident, step)
            if atom.kind == NE or atom.kind == NOT_EQ:
                _step(self.unequal, atom.ident, step)
            if atom.kind == EQ and self._rocketmq:
                kinds = self.kinds.setdefault(atom.ident, Counter())
                for kind in set(atom.kinds):
                    _step(kinds, kind, step)
                if not kinds:
                    del self.kinds[atom.ident]
            elif atom.kind == PREFIX:
                lengths = self.lengths.setdefault(atom.ident, Counter())
                _step(lengths, _length(atom.keys[0]), step)
                if lengths:
                    self.sorted_lengths[atom.ident] = tuple(sorted(lengths))
                else:
                    del self.lengths[atom.ident], self.sorted_lengths[atom.ident]
        for bound in clause.bounds:
            _step(self.idents, ident_of(bound.ident), step)

    # -- look-up -------------------------------------------------------------------------

    def candidates(self, view: Mapping[str, object], decided: set[int],
                   verify: set[int]) -> None:
        """Add to `decided` the entries an exact clause proves TRUE for `view`, and to
        `verify` those whose evaluator must decide."""
        idents = self.idents
        get = view.get
        values: dict[str, object] = {}
        if len(view) < len(idents) and type(view) is dict:
            for name in view:
                if name in idents:
                    value = get(name)
                    if value is not None:
                        values[name] = value
        else:
            for name in idents:
                value = get(name)
                if value is not None:
                    values[name] = value
        if not values:
            return
        numbers = Numbers(values, self._number)
        if self.ranges:
            self.ranges.hits(numbers, decided, verify)
        self.lookup.hits(values, numbers, decided, verify)
        for ident in self.unequal:
            struck = self.struck(ident, values.get(ident))
            if struck:
                _strike(decided, struck)
                _strike(verify, struck)
        if self.guards and decided:
            self._unguarded(view, decided, verify)

    def _unguarded(self, view: Mapping[str, object], decided: set[int],
                   verify: set[int]) -> None:
        """Move to `verify` the decided entries whose guards the message's values fail
        (a conversion the broker may meet before the TRUE branch would throw)."""
        guards = self.guards
        failed: dict[str, bool] = {}
        moved = []
        for entry in decided if len(decided) <= len(guards) else guards:
            names = guards.get(entry)
            if names is None or entry not in decided:
                continue
            for name in names:
                bad = failed.get(name)
                if bad is None:
                    bad = failed[name] = self.poisoned(name, view.get(ident_of(name)))
                if bad:
                    moved.append(entry)
                    break
        if moved:
            decided.difference_update(moved)
            verify.update(moved)

    def poisoned(self, name: str, value: object) -> bool:
        """Whether `value`, present, fails the conversion the guard name `name` marks
        (a `PRESENCE` name: whether it is present at all)."""
        if value is None:
            return False
        return name[0] == PRESENCE or read_number(name, value, self._number) is None

    def number_of(self, name: str, value: object) -> float | None:
        """Where `value` (of the identifier the bound name `name` reads) sits among the
        bounds on `name`, as a message's look-up reads it (None: nowhere)."""
        return read_number(name, value, self._number)

    def struck(self, ident: str, value: object) -> Counter[int] | None:
        """The entries a message whose `ident` is `value` strikes out (`<>` of it)."""
        text = None if value is None else self._text(value)
        return None if text is None else self.excluded.get((ident, text))

    def keys(self, component: Component, values: Mapping[str, object]) -> list[object]:
        """The keys of a message's value for one component (empty: it cannot hit)."""
        ident, kind = component
        value = values.get(ident)
        if value is None:
            return []
        if kind == EQ:
            if self._rocketmq:
                text = c.rocketmq_text(value)
                kinds = self.kinds.get(ident)
                if text is None or not kinds:
                    return []
                return c.rocketmq_values(text, frozenset(kinds))
            key = self._value(value)
            return [] if key is None else [key]
        if kind == PREFIX:
            head = self._text(value)
            if head is None:
                return []
            size = len(head)
            return [head[:n] for n in self.sorted_lengths.get(ident, ()) if n <= size]
        if kind == NE and not self._rocketmq and type(value) is not str:
            return []  # JMS: `<>` of a string is TRUE for strings only
        if kind == PRESENT:
            return [] if self._present(value) is None else [True]
        return [True]

    def single_key(self, component: Component) -> Callable[[Any], object] | None:
        """value -> its one key (None: no key) for a component whose values have at most
        one; None for prefixes and RocketMQ equalities, which may have several."""
        kind = component[1]
        if kind == PREFIX or (kind == EQ and self._rocketmq):
            return None
        if kind == EQ:
            return self._value
        if kind == NE and not self._rocketmq:
            return _true_if_string  # JMS: `<>` of a string is TRUE for strings only
        return self._present if kind == PRESENT else _true


def _length(key: object) -> int:
    """The length of a prefix key (a str; AMQP's: bytes)."""
    assert isinstance(key, str | bytes)
    return len(key)


def _true(value: object) -> object:
    return True


def _true_if_string(value: object) -> object:
    return True if type(value) is str else None


def _ranged(clause: Clause) -> bool:
    """Whether the range table holds the clause: no hashed key narrows it (its atoms,
    if any, are presences, which would file all such clauses under one key; a not-eq
    is a presence whose keys are struck out after the look-up)."""
    return not clause.atoms or (bool(clause.bounds) and all(
        a.kind == PRESENT or a.kind == NOT_EQ for a in clause.atoms))


def _bounds_of(entry: int, clause: Clause) -> RangeMember:
    bounds = {b.ident: (b.low, b.high) for b in clause.bounds}
    for atom in clause.atoms:
        bounds[PRESENCE + atom.ident] = (-math.inf, math.inf)
    return entry, clause.exact, bounds


def _flat(clause: Clause) -> tuple[float, ...]:
    return tuple(x for b in clause.bounds for x in (b.low, b.high))


def _strike(found: set[int], struck: Counter[int]) -> None:
    """Take the struck-out entries from `found`, in time that follows the smaller: a
    common value (`status = 'ok'`) may strike out thousands of filters of which a
    message's look-up found a few."""
    if len(struck) <= len(found):
        found.difference_update(struck)
    elif found:
        found.difference_update([entry for entry in found if entry in struck])


def _step(counter: Counter[Any], key: object, step: int) -> None:
    counter[key] += step
    if not counter[key]:
        del counter[key]


__all__ = ["ClauseStore", "Numbers", "number"]
