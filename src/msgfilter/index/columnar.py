"""`SubscriptionIndex.match_table`: (row, key) pairs for an Arrow table.

Rows become messages by the rules of `msgfilter.tables.Layout`, exactly as
`msgfilter.arrow.messages` makes them; the index gives each row's candidates. A filter
that has many candidate rows in the batch and an Arrow plan is evaluated once over those
rows with the Arrow backend; the others are checked row by row.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any

from ..tables import Layout
from .entries import Entry

if TYPE_CHECKING:
    import pyarrow as pa

#: What the index gives for one message: the entries that may match, and whether every
#: one of them must be verified.
Candidates = Callable[[Any], tuple[Iterable[Entry], bool]]

#: From this many candidate rows on, a filter is evaluated with Arrow kernels at once.
COLUMNAR_ROWS = 4096


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


def match_table(
    table: Any,
    layout: Layout,
    candidates: Candidates,
    matches_all: list[Entry],
    all_keys: list[Hashable],
    order: dict[Hashable, int],
    names: frozenset[str] | None = None,
    columnar_rows: int = COLUMNAR_ROWS,
) -> pa.Table:
    """The (row, key) table of `SubscriptionIndex.match_table`: `candidates` gives each
    row's entries, `matches_all` the entries that match every message, `order` each key's
    insertion rank, `names` what the filters read (None: every property) (the caller
    holds the index's lock)."""
    import pyarrow as pa

    if not isinstance(table, pa.Table | pa.RecordBatch):
        raise TypeError(f"expected a pyarrow Table or RecordBatch, not {type(table).__name__}")
    ktype = key_type(all_keys)
    rows = row_messages(table, layout, names)
    # For each row: the entries decided (exact hits) and the entries still to verify.
    pending: dict[int, list[int]] = {}
    pending_entry: dict[int, Entry] = {}
    found: list[list[Hashable]] = [[] for _ in rows]
    for row, message in enumerate(rows):
        maybe, verify_all = candidates(message)
        keys = found[row]
        for entry in maybe:
            if entry.plan.exact and not verify_all:
                keys.extend(entry.keys)
            else:
                pending.setdefault(entry.number, []).append(row)
                pending_entry[entry.number] = entry
        if not verify_all:
            for entry in matches_all:
                keys.extend(entry.keys)
    for number, at in pending.items():
        entry = pending_entry[number]
        for row in _verified(entry, table, layout, rows, at, columnar_rows):
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


def row_messages(table: Any, layout: Layout, names: frozenset[str] | None) -> list[Any]:
    """Each row as the message `msgfilter.arrow.messages` gives, as a plain dict: the
    properties, then `TAGS` and `KEYS` where the row has no property of that name (what a
    `Message`'s view holds, read through the filters' fast path)."""
    from ..backends.arrow import message_rows
    from ..message import KEYS_PROPERTY, TAGS_PROPERTY

    out: list[Any] = []
    for properties, tag, keys in message_rows(table, layout, names):
        if tag is not None:
            properties.setdefault(TAGS_PROPERTY, tag)
        if keys:
            properties.setdefault(KEYS_PROPERTY, " ".join(keys))
        out.append(properties)
    return out


def _verified(
    entry: Entry, table: Any, layout: Layout, rows: list[Any], at: list[int], columnar_rows: int
) -> list[int]:
    """The rows among `at` whose message the entry's filter matches."""
    import pyarrow as pa

    from .. import arrow
    from ..backends.arrow import LOWERINGS

    f = entry.filter
    if len(at) >= columnar_rows and f.model in LOWERINGS:
        taken = table.take(pa.array(at, pa.int64()))
        mask = arrow.matches(f, taken, layout).to_pylist()
        return [row for row, hit in zip(at, mask, strict=True) if hit]
    matches = f.matches
    return [row for row in at if matches(rows[row])]
