"""`SubscriptionIndex.match_table`: (row, key) pairs for an Arrow table.

Rows become messages by the rules of `msgfilter.tables.Layout`, exactly as
`msgfilter.arrow.messages` makes them; the index gives each row's candidates. A filter
that has many candidate rows in the batch and an Arrow plan is evaluated once over those
rows with the Arrow backend; the others are checked row by row.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from ..tables import Layout

if TYPE_CHECKING:
    import pyarrow as pa

    from .subscriptions import Entry, SubscriptionIndex

#: From this many candidate rows on, a filter is evaluated with Arrow kernels at once.
COLUMNAR_ROWS = 256


def key_type(keys: list[Hashable]) -> pa.DataType:
    """The Arrow type of the `key` column, inferred from every subscribed key."""
    import pyarrow as pa

    if not keys:
        return pa.null()
    try:
        return pa.array(keys).type
    except (pa.ArrowException, TypeError, ValueError) as error:
        kinds = sorted({type(k).__name__ for k in keys})
        raise TypeError(
            f"match_table needs subscription keys Arrow can hold in one column (all str, "
            f"all int, ...); these are {', '.join(kinds)}: use match()/match_many(), or "
            f"subscribe with str or int keys (e.g. str(key)) ({error})"
        ) from None


def match_table(index: SubscriptionIndex, table: Any, layout: Layout) -> pa.Table:
    """The (row, key) table of `index.match_table` (the caller holds the index's lock)."""
    import pyarrow as pa

    from .. import arrow

    if not isinstance(table, pa.Table | pa.RecordBatch):
        raise TypeError(f"expected a pyarrow Table or RecordBatch, not {type(table).__name__}")
    all_keys = list(index._keys)
    ktype = key_type(all_keys)
    order = index._order
    rows = arrow.messages(table, layout)
    # For each row: the entries decided (exact hits) and the entries still to verify.
    pending: dict[int, list[int]] = {}
    pending_entry: dict[int, Entry] = {}
    found: list[list[Hashable]] = [[] for _ in rows]
    for row, message in enumerate(rows):
        candidates, verify_all = index._entry_candidates(message)
        keys = found[row]
        for entry in candidates:
            if entry.plan.exact and not verify_all:
                keys.extend(entry.keys)
            else:
                pending.setdefault(entry.number, []).append(row)
                pending_entry[entry.number] = entry
        if not verify_all:
            for entry in index._matches_all.values():
                keys.extend(entry.keys)
    for number, at in pending.items():
        entry = pending_entry[number]
        for row in _verified(entry, table, layout, rows, at):
            found[row].extend(entry.keys)
    out_rows: list[int] = []
    out_keys: list[Hashable] = []
    for row, keys in enumerate(found):
        if not keys:
            continue
        for key in sorted(set(keys), key=order.__getitem__):
            out_rows.append(row)
            out_keys.append(key)
    return pa.table({
        "row": pa.array(out_rows, pa.int64()),
        "key": pa.array(out_keys, ktype),
    })


def _verified(
    entry: Entry, table: Any, layout: Layout, rows: list[Any], at: list[int]
) -> list[int]:
    """The rows among `at` whose message the entry's filter matches."""
    import pyarrow as pa

    from .. import arrow
    from ..backends.arrow import LOWERINGS

    f = entry.filter
    if len(at) >= COLUMNAR_ROWS and f.model in LOWERINGS:
        taken = table.take(pa.array(at, pa.int64()))
        mask = arrow.matches(f, taken, layout).to_pylist()
        return [row for row, hit in zip(at, mask, strict=True) if hit]
    matches = f.matches
    return [row for row in at if matches(rows[row])]
