"""`SubscriptionIndex.match_table`: (row, key) pairs for an Arrow table, columnar.

Rows are messages by the rules of `msgfilter.layout.Layout`, exactly as
`msgfilter.arrow.messages` makes them. Candidates come per batch from the distinct
values of each indexed identifier, never row by row: from the same clause tables
`match` reads, so every keyable conjunct prunes (`table_clauses`), and from the tag
postings (`table_candidates`). A (row, entry) pair an exact clause or tag decides is a
match directly; any other candidate filter is evaluated
once per batch with the Arrow backend over its candidate rows (over the whole batch when
most rows are candidates), and always-checked filters once over the whole batch. Only
filters without an Arrow plan (activemq, Pulsar alltags), tiny candidate sets, and rows
whose indexed values have no selector type are checked row by row with `matches`.
Arrow plans are cached per filter and schema here (an index has thousands of filters,
more than `msgfilter.arrow`'s cache keeps), so the first batch of a schema pays for them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..layout import Layout
from ..semantics.model import ValueModel
from .entries import Entry
from .store import TagStore

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from numpy.typing import NDArray

    from ..filter import Filter
    from .clause_store import ClauseStore
    from .table_clauses import Found

    Ints = NDArray[np.int64]
    Bools = NDArray[np.bool_]

#: What the index gives for one message: the entries that match it (the index decided
#: them), and those whose filter must decide.
Candidates = Callable[[Any], tuple[Iterable[Entry], Iterable[Entry]]]

#: From this many candidate rows on, a filter with an Arrow plan is evaluated with Arrow
#: kernels (one plan call costs about as much as this many `matches` calls).
COLUMNAR_ROWS = 32
#: The same, per value model where a plan call costs much more: rocketmq's plans convert
#: strings with Java's rules (a few ms a call, where `matches` takes a few µs a row).
COLUMNAR_ROWS_BY_MODEL: dict[ValueModel, int] = {ValueModel.ROCKETMQ: 512}


@dataclass(frozen=True, slots=True)
class IndexState:
    """What `match_table` reads of a `SubscriptionIndex` (under its lock)."""

    candidates: Candidates
    stores: Mapping[ValueModel, ClauseStore]
    tags: TagStore
    entries: Mapping[int, Entry]
    everything: list[Entry]
    matches_all: list[Entry]
    keys: list[Hashable]
    #: Every name the filters read; None when one reads names not known in advance.
    names: frozenset[str] | None


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
    table: Any, layout: Layout, state: IndexState, columnar_rows: int | None = None
) -> pa.Table:
    """The (row, key) table of `SubscriptionIndex.match_table` (the caller holds the
    index's lock)."""
    import numpy as np
    import pyarrow as pa

    from ..backends.arrow.columns import check_layout
    from .table_candidates import tag_lookup
    from .table_clauses import Found, store_pairs

    if not isinstance(table, pa.Table | pa.RecordBatch):
        raise TypeError(f"expected a pyarrow Table or RecordBatch, not {type(table).__name__}")
    ktype = key_type(state.keys)
    check_layout(table.schema, layout)
    if isinstance(table, pa.Table):
        table = table.combine_chunks()
    length = table.num_rows
    batch = _Batch(table, layout, state.names, columnar_rows)
    tag_messages = batch.messages(np.arange(length)) if state.tags.pulsar else None
    found = tag_lookup(table, layout, state.tags, tag_messages)
    odd = found.pairs.odd
    pairs = Found([], [], [])
    for store in state.stores.values():
        store_pairs(found, store, pairs)
    for rows, numbers in zip(found.pairs.rows, found.pairs.entries, strict=True):
        pairs.add(rows, numbers, _tags_exact(numbers, state.entries))
    rows, numbers, exact = _by_entry(pairs)
    if odd.any():
        keep = ~odd[rows]
        rows, numbers, exact = rows[keep], numbers[keep], exact[keep]
    matched: list[tuple[Ints, Entry]] = []
    to_verify: list[tuple[bytes, Ints, Entry]] = []
    bounds = np.flatnonzero(np.diff(numbers)) + 1 if len(numbers) else np.zeros(0, np.int64)
    for start, stop in zip(
        [0, *bounds.tolist()], [*bounds.tolist(), len(numbers)], strict=True
    ):
        if start == stop:
            continue
        entry = state.entries[int(numbers[start])]
        at, sure = rows[start:stop], exact[start:stop]
        if sure.any():
            matched.append((at[sure], entry))
            at = at[~sure]
        if len(at):
            to_verify.append((at.tobytes(), at, entry))
    # Filters found by one posting have the same candidate rows (`amount > x AND
    # region = 'r1'` for many x): taken from the batch once, one after the other.
    to_verify.sort(key=lambda item: item[0])
    # Pruned candidate sets are mostly small: their rows become messages in one pass.
    small = [at for _, at, entry in to_verify if len(at) < batch.threshold(entry.filter)]
    if small:
        batch.prefetch(np.unique(np.concatenate(small)))
    for i, (shared, at, entry) in enumerate(to_verify):
        again = i + 1 < len(to_verify) and to_verify[i + 1][0] == shared
        matched.append((batch.verified(entry.filter, at, shared, again), entry))
    regular = np.flatnonzero(~odd)
    for entry in state.everything:
        matched.append((batch.verified(entry.filter, regular), entry))
    for entry in state.matches_all:
        matched.append((regular, entry))
    if odd.any():
        matched.extend(_row_by_row(batch, np.flatnonzero(odd), state))
    return _pairs(matched, state.keys, ktype)


def _by_entry(pairs: Found) -> tuple[Ints, Ints, Bools]:
    """The pairs (rows, entries, exact) grouped by entry, each (entry, row) once: exact
    when any of its pairs is."""
    import numpy as np

    if not pairs.rows:
        empty = np.zeros(0, np.int64)
        return empty, empty, np.zeros(0, bool)
    rows, numbers = np.concatenate(pairs.rows), np.concatenate(pairs.entries)
    exact = np.concatenate(pairs.exact)
    order = np.lexsort((~exact, rows, numbers))  # by entry, row, the exact pair first
    rows, numbers, exact = rows[order], numbers[order], exact[order]
    first = np.ones(len(rows), bool)
    first[1:] = (rows[1:] != rows[:-1]) | (numbers[1:] != numbers[:-1])
    return rows[first], numbers[first], exact[first]


def _tags_exact(numbers: Ints, entries: Mapping[int, Entry]) -> Bools:
    """Whether a tag hit decides each entry alone."""
    import numpy as np

    distinct, inverse = np.unique(numbers, return_inverse=True)
    exact = np.array([entries[int(n)].clauses.tags_exact for n in distinct.tolist()], bool)
    return exact[inverse]


class _Batch:
    """One batch and the ways of evaluating a filter over some of its rows."""

    def __init__(
        self, table: Any, layout: Layout, names: frozenset[str] | None,
        columnar_rows: int | None,
    ) -> None:
        self.table = table
        self.layout = layout
        self.names = names
        self.columnar_rows = columnar_rows
        #: The rows last taken for several filters, by their bytes.
        self._taken: tuple[bytes, Any] = (b"", None)
        #: Rows made messages ahead (`prefetch`), by row number.
        self._messages: dict[int, Any] = {}

    def threshold(self, f: Filter) -> int:
        """From how many rows on `f` is evaluated with its Arrow plan."""
        if self.columnar_rows is not None:
            return self.columnar_rows
        return COLUMNAR_ROWS_BY_MODEL.get(f.model, COLUMNAR_ROWS)

    def prefetch(self, at: Ints) -> None:
        """Make the rows `at` messages now, in one pass, for the `messages` calls after."""
        self._messages.update(zip(at.tolist(), self.messages(at), strict=True))

    def messages(self, at: Ints) -> list[Any]:
        """The rows `at` as the messages the per-message backend takes (plain dicts)."""
        import pyarrow as pa

        known = self._messages
        if known and len(at) <= len(known):
            rows = at.tolist()
            if all(row in known for row in rows):
                return [known[row] for row in rows]
        if len(at) == self.table.num_rows:
            taken = self.table
        else:
            taken = self.table.take(pa.array(at, pa.int64()))
        return row_messages(taken, self.layout, self.names)

    def verified(self, f: Filter, at: Ints, shared: bytes = b"", keep: bool = False) -> Ints:
        """The rows among `at` whose message `f` matches. `shared` names the row set
        (its bytes), `keep` says the next call takes the same rows."""
        import numpy as np

        if not len(at):
            return at
        if len(at) >= self.threshold(f):
            mask = self._arrow_mask(f, at, shared, keep)
            if mask is not None:
                chosen: NDArray[np.bool_] = np.asarray(mask, bool)
                return at[chosen]
        matches = f.matches
        hits: NDArray[np.bool_] = np.asarray([matches(m) for m in self.messages(at)], bool)
        return at[hits]

    def _arrow_mask(self, f: Filter, at: Ints, shared: bytes, keep: bool) -> Any:
        """Which rows of `at` `f` matches, by its Arrow plan (None: no plan, or it failed
        on this data)."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        from ..backends.arrow.plans import RowwiseFallbackWarning

        whole = 2 * len(at) >= self.table.num_rows
        reuse = bool(shared) and not whole and (keep or shared == self._taken[0])
        # Rows taken for several filters are taken with every column.
        data = self.table if reuse else self._columns_of(f)
        plan = _plan(f, data.schema, self.layout)
        if plan is None:
            return None
        if reuse:
            if shared != self._taken[0]:
                self._taken = (shared, data.take(pa.array(at, pa.int64())))
            data = self._taken[1]
            if not keep:
                self._taken = (b"", None)
        elif not whole:
            data = data.take(pa.array(at, pa.int64()))
        try:
            result = plan(data)
        except (pa.ArrowException, ArithmeticError, TypeError, ValueError) as error:
            warnings.warn(
                f"{f!r}: vector evaluation failed ({error}); evaluating row by row",
                RowwiseFallbackWarning, stacklevel=4,
            )
            return None
        mask = np.asarray(pc.fill_null(result, False).to_numpy(zero_copy_only=False), bool)
        return mask[at] if whole else mask

    def _columns_of(self, f: Filter) -> Any:
        """The table cut to the columns `f` can read: its identifiers' own columns and
        the layout's (each identifier resolves to the same source as in the whole
        table, and fewer columns are taken)."""
        wanted = set(f.identifiers) | self.layout.reserved()
        names = self.table.schema.names
        keep = [i for i, name in enumerate(names) if name in wanted]
        if len(keep) == len(names):
            return self.table
        return self.table.select(keep)


def _plan(f: Filter, schema: pa.Schema, layout: Layout) -> Any:
    """The Arrow plan of a filter over tables of `schema` (None: it runs row by row),
    from the one plan cache (`backends.arrow.plans`)."""
    from ..backends.arrow.plans import plan_of

    return plan_of(f, schema, layout)


def _row_by_row(batch: _Batch, at: Ints, state: IndexState) -> list[tuple[Ints, Entry]]:
    """Matches of the rows `at` by the per-message path (values of no selector type)."""
    import numpy as np

    found: dict[int, list[int]] = {}
    by_number: dict[int, Entry] = {}
    for row, message in zip(at.tolist(), batch.messages(at), strict=True):
        decided, verify = state.candidates(message)
        for entry in decided:
            found.setdefault(entry.number, []).append(row)
            by_number[entry.number] = entry
        for entry in verify:
            if entry.matches(message):
                found.setdefault(entry.number, []).append(row)
                by_number[entry.number] = entry
    return [(np.asarray(rows, np.int64), by_number[n]) for n, rows in found.items()]


def _pairs(matched: list[tuple[Ints, Entry]], keys: list[Hashable], ktype: pa.DataType) -> Any:
    """The output table: each matched row with each key of the entry, sorted by row
    then by the keys' insertion order (`keys` is in that order)."""
    import numpy as np
    import pyarrow as pa

    position = {key: i for i, key in enumerate(keys)}
    out_rows: list[Ints] = []
    out_keys: list[Ints] = []
    for rows, entry in matched:
        if not len(rows):
            continue
        for key in entry.keys:
            out_rows.append(rows)
            out_keys.append(np.full(len(rows), position[key], np.int64))
    if not out_rows:
        return pa.table({"row": pa.array([], pa.int64()), "key": pa.array([], ktype)})
    rows = np.concatenate(out_rows)
    ranks = np.concatenate(out_keys)
    order = np.lexsort((ranks, rows))
    return pa.table({
        "row": pa.array(rows[order], pa.int64()),
        "key": pa.array(keys, ktype).take(pa.array(ranks[order], pa.int64())),
    })


def row_messages(table: Any, layout: Layout, names: frozenset[str] | None) -> list[Any]:
    """Each row as the message `msgfilter.arrow.messages` gives, as a plain dict: the
    properties, then `TAGS` and `KEYS` where the row has no property of that name (what a
    `Message`'s view holds, read through the filters' fast path); a `Message` where the
    table has columns of AMQP fields (its headers)."""
    from ..backends.arrow import message_rows
    from ..backends.arrow import row_messages as full_messages
    from ..message import KEYS_PROPERTY, TAGS_PROPERTY

    fields = layout.field_columns(table.schema.names)
    if any(names is None or column in names for column, _ in fields):
        # AMQP fields are a message's headers: no plain dict holds them.
        return full_messages(table, layout, names)
    rows = message_rows(table, layout, names)
    out: list[Any] = []
    for properties, tag, keys in rows:
        if tag is not None:
            properties.setdefault(TAGS_PROPERTY, tag)
        if keys:
            properties.setdefault(KEYS_PROPERTY, " ".join(keys))
        out.append(properties)
    return out
