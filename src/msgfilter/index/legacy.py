"""The single-probe postings `match_table` reads: each filter filed under the one probe
set of its `keys.plan`, built from the index's entries when a table is first matched and
kept in step with every change after that (an index that never matches a table never
pays for them)."""

from __future__ import annotations

from ..semantics.model import ValueModel
from .entries import Entry
from .keys import plan, static_estimate
from .store import SelectorStore


class TablePostings:
    """Per value model `SelectorStore`s of the entries' single-probe plans."""

    def __init__(self, entries: list[Entry]) -> None:
        self.stores: dict[ValueModel, SelectorStore] = {}
        self.everything: dict[int, Entry] = {}
        self.matches_all: dict[int, Entry] = {}
        for entry in entries:
            self.attach(entry)

    def attach(self, entry: Entry) -> None:
        if entry.plan is None:
            store = self.stores.get(entry.filter.model)
            entry.plan = plan(
                entry.filter, store.estimate if store is not None else static_estimate)
            entry.exact = entry.plan.exact
        p = entry.plan
        if p.never:
            return
        if p.everything:
            (self.matches_all if p.exact else self.everything)[entry.number] = entry
            return
        if entry.clauses.tags:
            return  # the index's own TagStore holds them
        for probe in p.probes:
            store = self.stores.get(entry.filter.model)
            if store is None:
                store = self.stores[entry.filter.model] = SelectorStore(entry.filter.model)
            store.add(probe, entry.number)

    def detach(self, entry: Entry) -> None:
        p = entry.plan
        self.everything.pop(entry.number, None)
        self.matches_all.pop(entry.number, None)
        if p is None or p.never or p.everything or entry.clauses.tags:
            return
        for probe in p.probes:
            store = self.stores[entry.filter.model]
            store.remove(probe, entry.number)
            if not store:
                del self.stores[entry.filter.model]

