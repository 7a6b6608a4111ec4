"""match_table equals per-row match on the same data: typed columns, the properties
map, the tags column, and the Arrow path for filters with many candidate rows."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")

import msgfilter.arrow  # noqa: E402
from msgfilter import SubscriptionIndex  # noqa: E402
from msgfilter.index.columnar import IndexState, match_table  # noqa: E402
from msgfilter.tables import DEFAULT_LAYOUT, Layout  # noqa: E402

SUBSCRIPTIONS: list[tuple[Hashable, str, str]] = [
    ("eu", "region = 'eu'", "jms"),
    ("eu-big", "region = 'eu' AND amount > 10", "jms"),
    ("t1", "tenant = 't1' AND n = 5", "jms"),
    ("n5", "n = 5.0", "jms"),
    ("a-str", "a = '5'", "jms"),
    ("a-num", "a = 5", "jms"),          # a map value is a string: FALSE in jms
    ("r-a5", "a = 5", "rocketmq"),       # ... and converted in rocketmq
    ("pre", "tenant LIKE 't%'", "jms"),
    ("not", "NOT (region = 'eu')", "jms"),
    ("flag", "flag", "jms"),
    ("tag", "TagA || TagB", "rocketmq-tag"),
    ("sql-tag", "TAGS = 'TagB'", "rocketmq"),
    ("all", "", "jms"),
]


def table() -> Any:
    rows = 60
    return pa.table({
        "tenant": [None if i % 7 == 0 else f"t{i % 3}" for i in range(rows)],
        "amount": [float(i % 20) if i % 5 else None for i in range(rows)],
        "n": pa.array([i % 6 for i in range(rows)], pa.int64()),
        "flag": [i % 4 == 0 for i in range(rows)],
        "properties": pa.array(
            [[("region", "eu" if i % 2 else "us"), ("a", str(i % 6))] if i % 9 else None
             for i in range(rows)],
            pa.map_(pa.string(), pa.string()),
        ),
        "tags": [["TagA", "TagB", None][i % 3] for i in range(rows)],
    })


def expected(idx: SubscriptionIndex, data: Any, layout: Layout) -> list[tuple[int, Hashable]]:
    order = {k: n for n, k in enumerate(idx.keys())}
    out = []
    for row, message in enumerate(msgfilter.arrow.messages(data, layout)):
        for key in sorted((k for k, f in idx.items() if f.matches(message)), key=order.__getitem__):
            out.append((row, key))
    return out


def build() -> SubscriptionIndex:
    idx = SubscriptionIndex()
    for key, text, dialect in SUBSCRIPTIONS:
        idx.add(key, text, dialect=dialect)
    return idx


@pytest.mark.parametrize("layout", [DEFAULT_LAYOUT, Layout(typed=False)])
def test_match_table_equals_per_row_match(layout: Layout) -> None:
    idx = build()
    data = table()
    got = idx.match_table(data, layout)
    assert got.schema.field("row").type == pa.int64()
    assert got.schema.field("key").type == pa.string()
    pairs = list(zip(got.column("row").to_pylist(), got.column("key").to_pylist(), strict=True))
    want = expected(idx, data, layout)
    assert pairs == want
    assert {k for _, k in pairs} >= {"eu", "r-a5", "tag", "sql-tag", "all"}
    # Per-row match agrees too, and a RecordBatch gives the same table.
    for row, message in enumerate(msgfilter.arrow.messages(data, layout)):
        assert idx.match(message) == {k for r, k in want if r == row}
    assert idx.match_table(data.to_batches()[0], layout).equals(got)


def test_arrow_path_for_many_candidate_rows() -> None:
    idx = build()
    data = table()
    with idx._lock:
        state = IndexState(
            idx._entry_candidates, idx._stores, idx._tags, idx._entries,
            list(idx._everything.values()), list(idx._matches_all.values()),
            list(idx._keys), None,
        )
        got = match_table(data, DEFAULT_LAYOUT, state, columnar_rows=1)
    pairs = list(zip(got.column("row").to_pylist(), got.column("key").to_pylist(), strict=True))
    assert pairs == expected(idx, data, DEFAULT_LAYOUT)


def test_key_types() -> None:
    idx = SubscriptionIndex()
    idx.add(1, "a = 1")
    idx.add(2, "a > 0")
    got = idx.match_table(pa.table({"a": [1, 2, None]}))
    assert got.schema.field("key").type == pa.int64()
    assert got.to_pydict() == {"row": [0, 0, 1], "key": [1, 2, 2]}
    idx.add("three", "a = 3")
    with pytest.raises(TypeError, match="str or int keys"):
        idx.match_table(pa.table({"a": [1]}))
    with pytest.raises(TypeError, match="Table or RecordBatch"):
        idx.match_table({"a": [1]})
    empty = SubscriptionIndex().match_table(pa.table({"a": [1]}))
    assert empty.num_rows == 0 and empty.column_names == ["row", "key"]
