"""`SubscriptionIndex`: which of many subscriptions want one message."""

from __future__ import annotations

import copy
import threading
from collections.abc import Hashable, Iterable, Iterator, KeysView
from typing import TYPE_CHECKING, Any

from .. import dialects
from ..engine import compile as _compile
from ..errors import FilterError
from ..filter import Filter
from ..layout import DEFAULT_LAYOUT, Layout
from ..limits import DEFAULT_LIMITS, Limits
from ..semantics.model import ValueModel
from .clause_store import ClauseStore
from .clauses import ClausePlan, plan_clauses
from .collector import paused
from .columnar import IndexState, match_table
from .entries import Entry, identity
from .explain import explain
from .store import TagStore, view_of

if TYPE_CHECKING:
    import pyarrow as pa


class SubscriptionIndex:
    """Many subscriptions, and for a message the keys of those whose filter matches it.

    `match(message)` equals `frozenset(k for k, f in subscriptions if f.matches(message))`
    for every message; candidates come from per-identifier postings (see
    docs/subscriptions.md) and are verified by the compiled evaluator unless the index
    alone decides the filter. Safe to share between threads: every operation holds one
    lock while it reads or changes the structures, so a match sees the index before or
    after a change, never half of it (filters are compiled outside the lock).
    """

    def __init__(self, dialect: str = dialects.DEFAULT) -> None:
        self._dialect = dialects.get(dialect).name
        self._lock = threading.Lock()
        self._keys: dict[Hashable, Entry] = {}       # in insertion order
        self._entries: dict[int, Entry] = {}
        self._by_filter: dict[Hashable, Entry] = {}     # by `entries.identity`
        self._by_text: dict[str, Entry] = {}
        self._next = 0
        self._stores: dict[ValueModel, ClauseStore] = {}
        self._tags = TagStore()
        self._members = 0
        self._everything: dict[int, Entry] = {}      # no probe: checked per message
        self._matches_all: dict[int, Entry] = {}     # no probe, exact: every message

    @property
    def dialect(self) -> str:
        """The dialect `add` compiles in when it is given none."""
        return self._dialect

    # -- changes ---------------------------------------------------------------------------

    def add(self, key: Hashable, text: str, dialect: str | None = None) -> None:
        """Subscribe `key` with the selector `text` (in `dialect`, default the index's);
        re-adding a key replaces its filter. A bad selector raises the usual FilterError,
        its message naming the key, and leaves the index as it was."""
        hash(key)
        try:
            compiled = _compile(text, dialect or self._dialect)
        except FilterError as error:
            raise _naming(error, key) from None
        self.add_filter(key, compiled)

    def add_filter(self, key: Hashable, compiled: Filter) -> None:
        """Subscribe `key` with an already compiled filter."""
        hash(key)
        if not isinstance(compiled, Filter):
            raise TypeError(f"expected a compiled msgfilter.Filter, not {type(compiled).__name__}")
        # Planning runs outside the lock; the text finds most shared filters first (the
        # identity of a filter without a shape hashes its tree).
        with self._lock:
            entry = self._by_text_of(compiled)
        found: ClausePlan | None = None
        ident: Hashable = None
        if entry is None:
            ident = identity(compiled)
            with self._lock:
                entry = self._by_filter.get(ident)
            if entry is None:
                found = plan_clauses(compiled)
        with self._lock:
            self._file(key, compiled, ident, found)

    def add_filters(self, pairs: Iterable[tuple[Hashable, Filter]]) -> None:
        """`add_filter` of each (key, filter) pair, in order: what loading many does
        (`pickle`, snapshots). Python's cycle collector is paused meanwhile (each of its
        full collections would walk every filter already filed, for nothing). Not atomic:
        a match meanwhile may see the first pairs only; a pair whose filter is not a
        `Filter` raises TypeError, the pairs before it subscribed."""
        with paused():
            for key, compiled in pairs:
                self.add_filter(key, compiled)

    def remove(self, key: Hashable) -> None:
        """Unsubscribe `key`; KeyError if it is not subscribed."""
        with self._lock:
            if key not in self._keys:
                raise KeyError(key)
            self._detach(key)

    def _by_text_of(self, compiled: Filter) -> Entry | None:
        """The entry filed for `compiled`'s text, if it is of its dialect and type (with
        the lock held)."""
        entry = self._by_text.get(compiled.text)
        if entry is None:
            return None
        held = entry.filter
        if held.dialect != compiled.dialect or type(held) is not type(compiled):
            return None
        return entry

    def _file(self, key: Hashable, compiled: Filter, ident: Hashable,
              found: ClausePlan | None) -> None:
        """File `key` under `compiled`'s entry, made from `found` (its plan) if there is
        none yet (with the lock held). Another thread may have filed an equal filter
        since the caller looked."""
        entry = self._by_text_of(compiled)
        if entry is None:
            if ident is None:
                ident = identity(compiled)
            entry = self._by_filter.get(ident)
        if entry is not None and self._keys.get(key) is entry:
            return
        self._detach(key)
        if entry is None:
            entry = Entry(self._next, compiled, found or plan_clauses(compiled), ident)
            self._next += 1
            self._attach(entry)
        entry.add_key(key)
        self._keys[key] = entry

    def _attach(self, entry: Entry) -> None:
        self._entries[entry.number] = entry
        self._by_filter[entry.identity] = entry
        # One entry a text: the same text in another dialect is found by its identity.
        self._by_text.setdefault(entry.filter.text, entry)
        p = entry.clauses
        if p.never:
            return
        if p.everything:
            (self._matches_all if p.exact else self._everything)[entry.number] = entry
            return
        for probe in p.tags:
            self._tags.add(probe, entry.number)
        if p.clauses:
            store = self._stores.get(entry.filter.model)
            if store is None:
                store = self._stores[entry.filter.model] = ClauseStore(entry.filter.model)
            entry.first = self._members
            self._members += len(p.clauses)
            for member, clause in enumerate(p.clauses, entry.first):
                store.add(clause, member, entry.number)
            if p.guards:
                store.guard(entry.number, p.guards)

    def _detach(self, key: Hashable) -> None:
        entry = self._keys.pop(key, None)
        if entry is None:
            return
        entry.remove_key(key)
        if entry.keys:
            return
        del self._entries[entry.number]
        del self._by_filter[entry.identity]
        if self._by_text.get(entry.filter.text) is entry:
            del self._by_text[entry.filter.text]
        p = entry.clauses
        self._everything.pop(entry.number, None)
        self._matches_all.pop(entry.number, None)
        if p.never or p.everything:
            return
        for probe in p.tags:
            self._tags.remove(probe, entry.number)
        if p.clauses:
            store = self._stores[entry.filter.model]
            for member, clause in enumerate(p.clauses, entry.first):
                store.remove(clause, member, entry.number)
            store.guard(entry.number, frozenset())
            if not store:
                del self._stores[entry.filter.model]

    # -- questions -------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        try:
            return key in self._keys
        except TypeError:
            return False

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self.keys())

    def keys(self) -> KeysView[Hashable]:
        """The subscribed keys, in the order they were (last) added: a snapshot."""
        with self._lock:
            return dict.fromkeys(self._keys).keys()

    def filter_of(self, key: Hashable) -> Filter:
        """The compiled filter of `key` (KeyError if absent)."""
        with self._lock:
            return self._keys[key].filter

    def items(self) -> list[tuple[Hashable, Filter]]:
        """(key, filter) pairs in insertion order: a snapshot."""
        with self._lock:
            return [(k, e.filter) for k, e in self._keys.items()]

    def __reduce__(self) -> tuple[Any, ...]:
        # The structures hold a lock and are derived data: a pickle is the dialect, each
        # distinct filter once (as its text, dialect and limits where it pickles so, else
        # as itself), and the keys in insertion order with the number of their filter;
        # `_restore` compiles and files them with the cycle collector paused.
        filters: list[Filter | tuple[str, str, Limits | None]] = []
        numbers: dict[int, int] = {}
        keys: list[Hashable] = []
        order: list[int] = []
        with self._lock:
            for key, entry in self._keys.items():
                number = numbers.get(entry.number)
                if number is None:
                    number = numbers[entry.number] = len(filters)
                    f = entry.filter
                    filters.append(
                        (f.text, f.dialect, None if f.limits == DEFAULT_LIMITS else f.limits)
                        if type(f).__reduce__ is Filter.__reduce__ else f)
                keys.append(key)
                order.append(number)
        return (_restore, (self._dialect, filters, keys, order))

    def match(self, message: Any) -> frozenset[Hashable]:
        """The keys whose filter matches `message` (TRUE; UNKNOWN and failures are not)."""
        with self._lock:
            return frozenset(self._match_entries(message))

    def match_many(self, messages: Iterable[Any]) -> list[frozenset[Hashable]]:
        """`match` of each message, all against one state of the index."""
        with self._lock:
            return [frozenset(self._match_entries(m)) for m in messages]

    def match_table(self, table: Any, layout: Layout = DEFAULT_LAYOUT) -> pa.Table:
        """(row, key) pairs for the rows of an Arrow Table or RecordBatch whose message
        (by the rules of `layout`, as `msgfilter.arrow`) each key's filter matches:
        columns `row` (int64) and `key`, sorted by row then by the keys' insertion order."""
        with self._lock:
            return match_table(table, layout, self._table_state())

    def _table_state(self) -> IndexState:
        """What `match_table` reads (with the lock held): the tables `match` reads."""
        return IndexState(
            self._entry_candidates, self._stores, self._tags, self._entries,
            list(self._everything.values()), list(self._matches_all.values()),
            list(self._keys), self._names(),
        )

    def _names(self) -> frozenset[str] | None:
        """Every name the filters read; None when one reads names not known in advance
        (Pulsar's `tag*` properties)."""
        names: set[str] = set()
        for entry in self._entries.values():
            if hasattr(entry.filter, "reads_prefix"):
                return None
            names |= entry.filter.identifiers
        return frozenset(names)

    def explain(self) -> str:
        """How many subscriptions are indexed on what, which are always checked, why."""
        with self._lock:
            return explain(list(self._entries.values()), self._dialect)

    def _entry_candidates(self, message: Any) -> tuple[list[Entry], list[Entry]]:
        """The entries the index decides `message` matches, and those its filter must
        decide (with the lock held; `match_table`'s per-row path)."""
        entries = self._entries
        try:
            decided, verify = self._lookup(message)
        except Exception:  # an odd message (its get or items raised): check every filter
            return [], list(entries.values())
        verify -= decided
        verify.update(self._everything)
        decided.update(self._matches_all)
        return [entries[i] for i in decided], [entries[i] for i in verify]

    def _lookup(self, message: Any) -> tuple[set[int], set[int]]:
        """Entry numbers an exact clause or tag proves TRUE, and those to verify."""
        decided: set[int] = set()
        verify: set[int] = set()
        if self._stores:
            view = view_of(message)
            for store in self._stores.values():
                reader = store.reader
                store.candidates(view if reader is None else reader(message), decided, verify)
        if self._tags:
            found: list[Iterable[int]] = []
            self._tags.candidates(message, found)
            entries = self._entries
            for numbers in found:
                for number in numbers:
                    if entries[number].clauses.tags_exact:
                        decided.add(number)
                    else:
                        verify.add(number)
        return decided, verify

    def _match_entries(self, message: Any) -> list[Hashable]:
        """The keys matching `message` (with the lock held)."""
        entries = self._entries
        try:
            decided, verify = self._lookup(message)
        except Exception:  # an odd message (its get or items raised): check every filter
            return [k for e in list(entries.values()) if e.matches(message) for k in e.keys]
        keys: list[Hashable] = []
        for number in decided:
            keys.extend(entries[number].keys)
        for number in verify:
            if number not in decided:
                entry = entries[number]
                if entry.matches(message):
                    keys.extend(entry.keys)
        for entry in self._everything.values():
            if entry.matches(message):
                keys.extend(entry.keys)
        for entry in self._matches_all.values():
            keys.extend(entry.keys)
        return keys

    def __repr__(self) -> str:
        return (
            f"SubscriptionIndex(dialect={self._dialect!r}, subscriptions={len(self._keys)}, "
            f"filters={len(self._entries)})"
        )


def _naming(error: FilterError, key: Hashable) -> FilterError:
    """A copy of `error` whose message starts with the subscription key."""
    named = copy.copy(error)
    named.args = (f"subscription {key!r}: {error}",)
    return named


def _rebuild(dialect: str, items: list[tuple[Hashable, Filter]]) -> SubscriptionIndex:
    # The form pickles of msgfilter 0.x before `_restore` took.
    index = SubscriptionIndex(dialect)
    index.add_filters(items)
    return index


def _restore(dialect: str, filters: list[Filter | tuple[str, str, Limits | None]],
             keys: list[Hashable], order: list[int]) -> SubscriptionIndex:
    """The index `__reduce__` pickled."""
    index = SubscriptionIndex(dialect)
    with paused():
        compiled = [f if isinstance(f, Filter) else _compile(f[0], f[1], limits=f[2])
                    for f in filters]
        index.add_filters(zip(keys, (compiled[n] for n in order), strict=True))
    return index
