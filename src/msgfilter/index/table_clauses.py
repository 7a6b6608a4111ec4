"""Candidate (row, entry) pairs of a whole Arrow batch from the clause tables: every
keyable conjunct prunes, as in `match`, but a batch at a time.

Each identifier is dictionary-encoded once (`table_candidates.Lookup.column`), and each
DISTINCT value goes through the per-message rules themselves (`ClauseStore.keys`,
`number_of`, `struck`), so the keys and numbers are exactly a message's. Then:

- a cluster is looked up once per distinct combination of its identifiers' values in the
  batch; a bucket's clauses without bounds give their pairs for every row of that
  combination, its clauses with bounds are tested with numpy over those rows;
- clauses made only of bounds are tested per clause over the rows its most selective
  bound admits (a slice of the rows sorted by that identifier's number);
- pairs of entries a row's value strikes out (`<>`) are dropped;
- exact pairs of RocketMQ entries whose guards a row's value fails (`throws`) are
  verified;
- rows whose value the rules cannot read (they raise) go to the caller's per-row path.

Each pair says whether its clause is exact (the entry matches) or its filter decides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import product
from typing import TYPE_CHECKING, Any

from .bounds import ident_of
from .clause_store import ClauseStore
from .clusters import Bucket, Cluster, Component, Member

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from .table_candidates import Encoded, Lookup

    Ints = NDArray[np.int64]
    Bools = NDArray[np.bool_]
    Floats = NDArray[np.float64]

#: Bounds tested at once: clauses x rows x dimensions, in one numpy expression.
CHUNK = 1 << 22


@dataclass(slots=True)
class Found:
    """Pairs found so far, exact and not, in parallel lists of arrays."""

    rows: list[Ints]
    entries: list[Ints]
    exact: list[Bools]

    def add(self, rows: Ints, entries: Ints, exact: Bools | bool) -> None:
        import numpy as np

        if len(rows):
            self.rows.append(rows)
            self.entries.append(entries)
            self.exact.append(np.broadcast_to(np.asarray(exact, bool), rows.shape))


class _Reader:
    """One store's view of a batch: per identifier its encoding, per distinct value its
    keys and numbers (computed once), and the rows whose values the rules cannot read."""

    def __init__(self, lookup: Lookup, store: ClauseStore) -> None:
        self.lookup = lookup
        self.store = store
        self._keys: dict[Component, list[list[object]]] = {}
        self._numbers: dict[str, Floats] = {}

    def column(self, ident: str) -> Encoded:
        return self.lookup.column(ident)

    def each(self, ident: str, read: Callable[[object], Any], failed: Any) -> list[Any]:
        """`read` of each distinct value of `ident`; `failed` where it raises (the rows
        holding that value are marked for the per-row path)."""
        encoded = self.column(ident)
        out = []
        for code, value in enumerate(encoded.values):
            try:
                out.append(read(value))
            except Exception:  # the per-row path decides what an odd value does
                self.lookup.failed(encoded, code)
                out.append(failed)
        return out

    def keys(self, component: Component) -> list[list[object]]:
        """Per distinct value of the component's identifier, its keys."""
        found = self._keys.get(component)
        if found is None:
            ident = component[0]
            keys = self.store.keys
            found = self._keys[component] = self.each(
                ident, lambda value: keys(component, {ident: value}), [])
        return found

    def numbers(self, name: str) -> Floats:
        """Per row, its number on the bound name `name` (NaN: none)."""
        import numpy as np

        found = self._numbers.get(name)
        if found is None:
            encoded = self.column(ident_of(name))
            number_of = self.store.number_of
            xs = self.each(ident_of(name), lambda value: number_of(name, value), None)
            per_code = np.array([np.nan if x is None else x for x in xs] + [np.nan], float)
            found = self._numbers[name] = per_code[encoded.codes]  # code -1: the NaN
        return found


def store_pairs(lookup: Lookup, store: ClauseStore, found: Found) -> None:
    """The candidate pairs of one value model's clause tables over `lookup`'s batch."""
    import numpy as np

    reader = _Reader(lookup, store)
    mine = Found([], [], [])
    for cluster in store.clusters.values():
        _cluster_pairs(reader, cluster, mine)
    if store.ranges:
        members = list(store.ranges.members.values())
        _bounded_pairs(reader, members, np.arange(lookup.data.num_rows, dtype=np.int64), mine)
    if not mine.rows:
        return
    rows, entries = np.concatenate(mine.rows), np.concatenate(mine.entries)
    exact = np.concatenate(mine.exact)
    keep = _unstruck(reader, rows, entries)
    rows, entries, exact = rows[keep], entries[keep], exact[keep]
    if store.guards and exact.any():
        exact = exact & ~_unguarded(reader, rows, entries)
    found.add(rows, entries, exact)


def _cluster_pairs(reader: _Reader, cluster: Cluster, found: Found) -> None:
    import numpy as np

    from .table_candidates import spread

    idents = list(dict.fromkeys(ident for ident, _ in cluster.components))
    columns = [reader.column(ident) for ident in idents]
    keys = [reader.keys(component) for component in cluster.components]
    length = len(columns[0].codes)
    valid = np.ones(length, bool)
    for component, per_code in zip(cluster.components, keys, strict=True):
        has = np.array([bool(k) for k in per_code] + [False], bool)
        valid &= has[reader.column(component[0]).codes]
    for dim in cluster.dims:
        valid &= ~np.isnan(reader.numbers(dim))
    row_ids = np.flatnonzero(valid).astype(np.int64)
    if not len(row_ids):
        return
    first, inverse = _combinations(columns, row_ids)
    # Per component, the code of its identifier's value in each combination.
    place = {ident: i for i, ident in enumerate(idents)}
    codes = [columns[place[ident]].codes[first].tolist() for ident, _ in cluster.components]
    hits: list[list[tuple[int, int]]] = [[], []]  # (combo, entry): inexact, exact
    bounded: list[tuple[int, Bucket]] = []
    get = cluster.buckets.get
    if len(keys) == 1:
        per_code = keys[0]
        found_keys: Any = ((combo, per_code[code]) for combo, code in enumerate(codes[0]))
    else:
        found_keys = (
            (combo, product(*[per_code[code] for per_code, code in zip(keys, at, strict=True)]))
            for combo, at in enumerate(zip(*codes, strict=True)))
    for combo, combo_keys in found_keys:
        for key in combo_keys:
            bucket = get(key)
            if bucket is None:
                continue
            if bucket.exact:
                hits[1].extend((combo, entry) for entry in bucket.exact)
            if bucket.inexact:
                hits[0].extend((combo, entry) for entry in bucket.inexact)
            if bucket.members:
                bounded.append((combo, bucket))
    for exact in (False, True):
        if hits[exact]:
            at = np.array(hits[exact], np.int64)
            rows, entries = spread(inverse, row_ids, at[:, 0], at[:, 1])
            found.add(rows, entries, exact)
    if bounded:
        _bucket_bounds(reader, cluster, bounded, inverse, row_ids, found)


def _combinations(columns: Sequence[Encoded], row_ids: Ints) -> tuple[Ints, Ints]:
    """The distinct combinations of the columns' codes over `row_ids`: one row of each
    (a row number), and each of `row_ids`' combination number."""
    from .table_candidates import dense

    combined = columns[0].codes[row_ids]
    for encoded in columns[1:]:
        width = max(len(encoded.values), 1)
        if int(combined.max()) + 1 >= 2**62 // width:
            combined = dense(combined)[1]
        combined = combined * width + encoded.codes[row_ids]
    first, inverse = dense(combined)
    return row_ids[first], inverse


def _bucket_bounds(reader: _Reader, cluster: Cluster, bounded: list[tuple[int, Bucket]],
                   inverse: Ints, row_ids: Ints, found: Found) -> None:
    """The bounded clauses of each (combination, bucket) hit, over its rows."""
    import numpy as np

    from .table_candidates import sorted_order

    order = sorted_order(inverse)
    ordered = inverse[order]
    combos = np.array([combo for combo, _ in bounded], np.int64)
    starts = np.searchsorted(ordered, combos, "left")
    stops = np.searchsorted(ordered, combos, "right")
    xs = np.stack([reader.numbers(dim) for dim in cluster.dims])
    for (_, bucket), start, stop in zip(bounded, starts.tolist(), stops.tolist(), strict=True):
        assert bucket.members is not None
        rows = row_ids[order[start:stop]]
        _test(list(bucket.members.values()), xs[:, rows], rows, found)


def _test(members: list[Member], xs: Floats, rows: Ints, found: Found) -> None:
    """Pairs of the members whose flattened bounds hold `xs` (dimensions x rows)."""
    import numpy as np

    dims = xs.shape[0]
    step = max(1, CHUNK // max(1, len(rows) * dims))
    for first in range(0, len(members), step):
        part = members[first:first + step]
        bounds = np.array([m[2] for m in part], float).reshape(len(part), dims, 2)
        inside = ((bounds[:, :, 0:1] <= xs[None]) & (xs[None] <= bounds[:, :, 1:2])).all(axis=1)
        which, at = np.nonzero(inside)
        if len(which):
            entries = np.array([m[0] for m in part], np.int64)
            exact = np.array([m[1] for m in part], bool)
            found.add(rows[at], entries[which], exact[which])


def _bounded_pairs(reader: _Reader, members: list[Any], rows: Ints, found: Found) -> None:
    """Clauses made only of bounds (entry, exact, bounds by name): each over the rows its
    most selective bound admits."""
    import numpy as np

    by_names: dict[tuple[str, ...], list[Any]] = {}
    for member in members:
        by_names.setdefault(tuple(sorted(member[2])), []).append(member)
    for names, group in by_names.items():
        xs = np.stack([reader.numbers(name) for name in names])
        orders = [np.argsort(x, kind="stable") for x in xs]  # NaN sorts last
        sorted_xs = [x[o] for x, o in zip(xs, orders, strict=True)]
        lows = np.array([[m[2][name][0] for name in names] for m in group], float)
        highs = np.array([[m[2][name][1] for name in names] for m in group], float)
        starts = np.stack([np.searchsorted(s, lows[:, d], "left")
                           for d, s in enumerate(sorted_xs)], axis=1)
        stops = np.stack([np.searchsorted(s, highs[:, d], "right")
                          for d, s in enumerate(sorted_xs)], axis=1)
        best = np.argmin(stops - starts, axis=1)
        for i, member in enumerate(group):
            d = int(best[i])
            start, stop = int(starts[i, d]), int(stops[i, d])
            if start >= stop:
                continue
            at = rows[orders[d][start:stop]]
            inside = np.ones(len(at), bool)
            for other in range(len(names)):
                if other != d:
                    x = xs[other][at]
                    inside &= (lows[i, other] <= x) & (x <= highs[i, other])
            at = at[inside]
            found.add(at, np.full(len(at), member[0], np.int64), bool(member[1]))


def _unguarded(reader: _Reader, rows: Ints, entries: Ints) -> Bools:
    """Which pairs have an entry whose guards their row's values fail (its exact hit
    is verified there, as `ClauseStore.candidates` does for one message)."""
    import numpy as np

    guards = reader.store.guards
    failed = np.zeros(len(rows), bool)
    names: dict[str, list[int]] = {}
    for entry in np.unique(entries).tolist():
        for name in guards.get(entry, ()):
            names.setdefault(name, []).append(entry)
    poisoned = reader.store.poisoned
    for name, guarded in names.items():
        ident = ident_of(name)
        encoded = reader.column(ident)
        bad = reader.each(ident, partial(poisoned, name), True)
        per_code = np.array([*bad, False], bool)  # code -1 (NULL): never
        failed |= per_code[encoded.codes[rows]] & np.isin(entries, guarded)
    return failed


def _unstruck(reader: _Reader, rows: Ints, entries: Ints) -> Bools:
    """Which pairs no `<>` of their row's value strikes out."""
    import numpy as np

    keep = np.ones(len(rows), bool)
    store = reader.store
    width = int(entries.max()) + 1 if len(entries) else 1
    for ident in list(store.unequal):
        encoded = reader.column(ident)
        struck = reader.each(ident, partial(store.struck, ident), None)
        pairs = [(code, entry) for code, counts in enumerate(struck) if counts
                 for entry in counts]
        if not pairs:
            continue
        gone = np.array([code * width + entry for code, entry in pairs if entry < width],
                        np.int64)
        codes = encoded.codes[rows]
        keep &= ~((codes >= 0) & np.isin(codes * width + entries, gone))
    return keep


__all__ = ["Found", "store_pairs"]
