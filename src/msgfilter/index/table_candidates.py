"""An Arrow batch read for candidate look-ups, and the candidate pairs of its tags.

Each identifier is read where `msgfilter.layout` says (the Arrow backend's readers) and
dictionary-encoded per selector kind (`Lookup.column`), so each DISTINCT value is looked
up once, by the per-message rules themselves (the clause tables: `table_clauses`; the tag
postings: here), and its hits are spread over the rows holding it with numpy (`spread`).
Rows whose value has no selector type (`Opaque`) are left to the caller's per-row path.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Any

from ..layout import OTHER, Layout
from ..message import TAGS_PROPERTY
from .store import TagStore

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from ..backends.arrow.columns import Maps
    from ..backends.arrow.map_entries import MapEntries

    Ints = NDArray[np.int64]
    Bools = NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class Encoded:
    """One identifier over a batch: per row the index of its value in `values` (-1:
    NULL), and the rows whose value has no selector type (None: no such row)."""

    codes: Ints
    values: list[object]
    odd: Bools | None


@dataclass(slots=True)
class Pairs:
    """Candidate pairs found so far, and the rows the per-row path must take."""

    rows: list[Ints]
    entries: list[Ints]
    odd: Bools


def encode(data: Any, name: str, layout: Layout, maps: Maps | None = None) -> Encoded:
    """Identifier `name` over `data`, dictionary-encoded (one dictionary per kind); read
    from the properties map through `maps` where given (`columns.resolver`)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..backends.arrow.columns import resolver

    length = data.num_rows
    parts = resolver(name, data.schema, layout, maps=maps)(data)
    codes = np.full(length, -1, np.int64)
    values: list[object] = []
    odd: Bools | None = None
    for kind, datum in parts.items():
        if isinstance(datum, pa.Scalar):
            datum = pa.repeat(datum, length)
        if isinstance(datum, pa.ChunkedArray):
            datum = datum.combine_chunks()
        if kind == OTHER:
            odd = np.asarray(pc.fill_null(datum, False).to_numpy(zero_copy_only=False), bool)
            continue
        # Python values of each kind's part, exactly as `python_values` gives them
        # (dictionary encoding keeps -0.0 apart from 0.0).
        encoded = pc.dictionary_encode(datum)
        at = np.asarray(
            pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False), np.int64
        )
        present = at >= 0
        codes[present] = at[present] + len(values)
        values.extend(encoded.dictionary.to_pylist())
    return Encoded(codes, values, odd)


def spread(codes: Ints, row_ids: Ints, hit_codes: Ints, hit_entries: Ints) -> tuple[Ints, Ints]:
    """(rows, entries): each (code, entry) hit paired with every row whose code it is."""
    import numpy as np

    order = sorted_order(codes)
    ordered = codes[order]
    starts = np.searchsorted(ordered, hit_codes, "left")
    counts = np.searchsorted(ordered, hit_codes, "right") - starts
    total = int(counts.sum())
    # Position t of hit k's run is starts[k] + (t - first t of run k).
    shift = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    positions = shift + np.arange(total, dtype=np.int64)
    return row_ids[order[positions]], np.repeat(hit_entries, counts)


def sorted_order(codes: Ints) -> Ints:
    """A stable argsort of small non-negative-or--1 codes: in the narrowest unsigned type
    they fit, where numpy sorts by radix."""
    import numpy as np

    top = int(codes.max()) + 1 if len(codes) else 0
    if top < 2**16 - 1:
        return np.argsort((codes + 1).astype(np.uint16), kind="stable")
    return np.argsort(codes, kind="stable")


class Lookup:
    """The candidate pairs of one batch (the caller holds the index's lock)."""

    def __init__(self, data: Any, layout: Layout) -> None:
        import numpy as np

        self.data = data
        self.layout = layout
        self._encoded: dict[str, Encoded] = {}
        self._maps: dict[int, MapEntries] = {}
        self.pairs = Pairs([], [], np.zeros(data.num_rows, bool))

    def _map(self, data: Any, index: int) -> MapEntries:
        """The batch's map column `index` by key, made once: the names a batch is read
        for grow with the subscriptions, and a look-up per name scans every entry."""
        from ..backends.arrow.map_entries import MapEntries

        if data is not self.data:  # pragma: no cover - the readers read this batch
            return MapEntries(data.column(index))
        found = self._maps.get(index)
        if found is None:
            found = self._maps[index] = MapEntries(data.column(index))
        return found

    def column(self, name: str) -> Encoded:
        found = self._encoded.get(name)
        if found is None:
            found = self._encoded[name] = encode(self.data, name, self.layout, self._map)
            if found.odd is not None:
                self.pairs.odd |= found.odd
        return found

    def _add(self, codes: Ints, row_ids: Ints, hits: list[tuple[int, Collection[int]]]) -> None:
        import numpy as np

        if not hits:
            return
        # Duplicates (an entry hit by two probes) are dropped by the caller, once.
        counts = np.fromiter((len(n) for _, n in hits), np.int64, len(hits))
        hit_codes = np.repeat(np.fromiter((c for c, _ in hits), np.int64, len(hits)), counts)
        hit_entries = np.fromiter(
            chain.from_iterable(n for _, n in hits), np.int64, int(counts.sum())
        )
        rows, entries = spread(codes, row_ids, hit_codes, hit_entries)
        self.pairs.rows.append(rows)
        self.pairs.entries.append(entries)

    def failed(self, encoded: Encoded, code: int) -> None:
        """The per-message rules raised for this value: its rows take the per-row path."""
        self.pairs.odd |= encoded.codes == code

    def rocketmq_tags(self, tags: TagStore) -> None:
        """Pairs from the RocketMQ tag postings, by the distinct values of `TAGS`."""
        import numpy as np

        encoded = self.column(TAGS_PROPERTY)
        hits: list[tuple[int, Collection[int]]] = []
        for code, value in enumerate(encoded.values):
            found: list[Any] = []
            tags.candidates({TAGS_PROPERTY: value}, found)
            numbers = _union(found)
            if numbers:
                hits.append((code, numbers))
        self._add(encoded.codes, np.arange(self.data.num_rows, dtype=np.int64), hits)

    def rows_of(self, messages: list[Any], tags: TagStore) -> None:
        """Pairs from the tag postings, row by row (Pulsar tags are read from properties
        whose names are not known in advance)."""
        import numpy as np

        rows: list[int] = []
        entries: list[int] = []
        for row, message in enumerate(messages):
            found: list[Any] = []
            tags.candidates(message, found)
            for number in _union(found):
                rows.append(row)
                entries.append(number)
        if rows:
            self.pairs.rows.append(np.asarray(rows, np.int64))
            self.pairs.entries.append(np.asarray(entries, np.int64))


def dense(codes: Ints) -> tuple[Ints, Ints]:
    """(first, inverse): for each distinct code (ascending), the position of one
    occurrence, and each position's distinct code number. By sorting: numpy's hashing
    `unique` is many times slower on a million rows."""
    import numpy as np

    top = int(codes.max()) + 1 if len(codes) else 0
    if top <= max(4 * len(codes), 2**16):
        # Codes in a small range: count instead of sorting. Any occurrence will do as
        # the first one: the caller reads a combination's values from it.
        seen = np.zeros(top, bool)
        seen[codes] = True
        renumber = np.cumsum(seen) - 1
        inverse = renumber[codes].astype(np.int64)
        first = np.empty(int(seen.sum()), np.int64)
        first[inverse] = np.arange(len(codes), dtype=np.int64)
        return first, inverse
    order = np.argsort(codes, kind="stable")
    ordered = codes[order]
    starts = np.ones(len(ordered), bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    numbers = np.cumsum(starts) - 1
    inverse = np.empty(len(codes), np.int64)
    inverse[order] = numbers
    return order[starts].astype(np.int64), inverse


def _union(found: Iterable[Collection[int]]) -> Collection[int]:
    """The entry numbers of some postings, possibly repeated."""
    listed = list(found)
    if len(listed) == 1:
        return listed[0]
    return list(chain.from_iterable(listed))


def tag_lookup(data: Any, layout: Layout, tags: TagStore,
               tag_messages: list[Any] | None) -> Lookup:
    """The batch's encodings, with every candidate (row, entry) pair of the tag postings
    (duplicates possible) and the rows the per-row path must take. `tag_messages`: the
    rows as messages, when the tag postings must be read row by row."""
    found = Lookup(data, layout)
    if tag_messages is not None:
        found.rows_of(tag_messages, tags)
    elif tags.rocketmq:
        found.rocketmq_tags(tags)
    return found
