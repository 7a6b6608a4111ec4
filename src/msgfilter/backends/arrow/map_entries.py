"""A map column's entries grouped by key, for reading many keys of one batch.

`pyarrow.compute.map_lookup` scans every row's entries for the one key it is given, so
reading k keys costs k passes over all the entries. The index's `match_table` reads every
name its subscriptions test, and those names grow with the subscriptions (a property per
tenant, per device): on a batch whose map holds hundreds of names, those passes were
the most of its time. `MapEntries` flattens the map once, sorts its entries by key (one
dictionary encoding, one stable sort) and answers each key from its own entries.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


class MapEntries:
    """The entries of one map column (an Array or ChunkedArray of a map type), by key.
    `lookup(key)` is `pc.map_lookup(column, key, "last")`: per row, the item of the
    row's last entry with that key, null where the row has none or its map is null."""

    def __init__(self, column: Any) -> None:
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
        self.length = len(column)
        # As a list of entries: the list kernels (and a slice's offsets) apply, where a
        # map's own `keys` and `items` are every entry of its buffers.
        dtype = column.type
        as_list = column.cast(pa.list_(pa.struct([dtype.key_field, dtype.item_field])))
        entries = pc.list_flatten(as_list)
        self.items: pa.Array = entries.field(1)
        self.parents = np.asarray(pc.list_parent_indices(as_list), np.int64)
        encoded = pc.dictionary_encode(entries.field(0))
        codes = np.asarray(encoded.indices, np.int64)
        #: Entry positions sorted by key, row order kept within a key (stable sort).
        self.order = np.argsort(codes, kind="stable")
        names = encoded.dictionary.to_pylist()
        bounds = np.searchsorted(codes[self.order], np.arange(len(names) + 1), "left")
        self.span = {name: (int(bounds[i]), int(bounds[i + 1])) for i, name in enumerate(names)}

    def lookup(self, key: str) -> pa.Array:
        """The item of `key` per row (see the class)."""
        found = self.span.get(key)
        if found is None:
            return pa.nulls(self.length, self.items.type)
        positions = self.order[found[0]:found[1]]
        rows = self.parents[positions]
        # Row order within a key: a row's entries of one key are adjacent, its last wins.
        last = np.ones(len(rows), bool)
        last[:-1] = rows[1:] != rows[:-1]
        take = np.full(self.length, -1, np.int64)
        take[rows[last]] = positions[last]
        return self.items.take(pa.array(take, mask=take < 0))


__all__ = ["MapEntries"]
