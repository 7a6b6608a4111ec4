"""match_table equals per-row match on the same data: typed columns, the properties
map, the tags column, and the Arrow path for filters with many candidate rows."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from index_generators import sql_selectors

pa = pytest.importorskip("pyarrow")

import msgfilter.arrow  # noqa: E402
from msgfilter import SubscriptionIndex  # noqa: E402
from msgfilter.index.columnar import IndexState, match_table  # noqa: E402
from msgfilter.layout import DEFAULT_LAYOUT, Layout  # noqa: E402

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
        state = idx._table_state()
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


# -- columnar look-up: every kind of column, every dialect ------------------------------

MIXED: list[tuple[Hashable, str, str]] = [
    ("i5", "i = 5", "jms"),
    ("i5.0", "i = 5.0", "jms"),
    ("i-range", "i BETWEEN 3 AND 6", "jms"),
    ("i-in-r", "i IN ('5', '7')", "rocketmq"),
    ("i-r", "i = 5", "rocketmq"),
    ("f", "f = 1.100000023841858", "jms"),
    ("f-gt", "f > 1", "jms"),
    ("z", "d = 0", "jms"),
    ("z-r", "d = -0.0", "rocketmq"),
    ("z-r0", "d = 0.0", "rocketmq"),
    ("nan-r", "d = 'NaN'", "rocketmq"),
    ("u", "u = 5", "jms"),
    ("u-big", "u > 100", "jms"),
    ("u-nn", "u IS NOT NULL", "jms"),
    ("b", "b", "jms"),
    ("b-r", "b = TRUE", "rocketmq"),
    ("b-s", "b = 'true'", "rocketmq"),
    ("s", "s = 'x'", "jms"),
    ("s-pre", "s LIKE 'x%'", "jms"),
    ("s-sw", "s STARTSWITH 'x'", "rocketmq"),
    ("s-amq", "s = 'x'", "activemq"),
    ("s-amq-in", "s IN ('y', 'x')", "activemq"),
    ("dict", "c = 'eu' AND i = 5", "jms"),
    ("pair", "c = 'eu' AND s = 'x'", "jms"),
    ("pair-r", "c = 'eu' AND i = 5", "rocketmq"),
    ("map", "p = 'v1'", "jms"),
    ("map-num", "p = 1", "jms"),
    ("map-num-r", "p = 1", "rocketmq"),
    ("map-nn", "p IS NOT NULL", "jms"),
    ("opaque-nn", "o IS NOT NULL", "jms"),
    ("opaque-eq", "o = 'x'", "jms"),
    ("opaque-r", "o = 'x'", "rocketmq"),
    ("missing", "nothere = 1", "jms"),
    ("missing-nn", "nothere IS NOT NULL", "jms"),
    ("or", "s = 'x' OR c = 'us'", "jms"),
    ("not", "NOT (c = 'eu')", "jms"),
    ("ne", "i <> 5", "jms"),
    ("tags", "TagA || TagB", "rocketmq-tag"),
    ("tag-sql", "TAGS = 'TagA'", "rocketmq"),
    ("all-tags", "*", "rocketmq-tag"),
    ("keys", "KEYS = 'k1 k2'", "rocketmq"),
    ("empty", "", "jms"),
    ("i5-dup", "i = 5", "jms"),
]


def mixed_table(rows: int = 48) -> Any:
    """Columns of each type class, with NULLs, edge values and values of no selector type."""
    def pick(values: list[Any]) -> list[Any]:
        return [values[i % len(values)] for i in range(rows)]

    return pa.table({
        "i": pa.array(pick([5, 3, None, 7, 6, 2**31 - 1]), pa.int32()),
        "f": pa.array(pick([1.1, None, 0.5, 2.0, float("nan")]), pa.float32()),
        "d": pa.array(pick([0.0, -0.0, None, float("nan"), 1.0, 5.0]), pa.float64()),
        "u": pa.array(pick([5, 2**64 - 1, None, 101]), pa.uint64()),
        "b": pick([True, False, None]),
        "s": pa.array(pick(["x", "xy", None, "y", "\u0665"]), pa.large_string()),
        "c": pa.array(pick(["eu", "us", None, "eu", "eu"])).dictionary_encode(),
        "o": pa.array(pick([b"x", None, b"y"]), pa.binary()),
        "properties": pa.array(
            pick([[("p", "v1"), ("q", "1")], [("p", "1")], None, [], [("p", None)],
                  [("TAGS", "TagB"), ("KEYS", "k9")]]),
            pa.map_(pa.string(), pa.string()),
        ),
        "tags": pick(["TagA", "TagB", None, "TagC"]),
        "keys": pa.array(pick([["k1", "k2"], [], None, ["k1"]]), pa.list_(pa.string())),
    })


def build_mixed(subscriptions: list[tuple[Hashable, str, str]]) -> SubscriptionIndex:
    idx = SubscriptionIndex()
    for key, text, dialect in subscriptions:
        idx.add(key, text, dialect=dialect)
    return idx


def pairs_of(got: Any) -> list[tuple[int, Hashable]]:
    return list(zip(got.column("row").to_pylist(), got.column("key").to_pylist(), strict=True))


def per_row(idx: SubscriptionIndex, data: Any, layout: Layout) -> list[tuple[int, Hashable]]:
    """The answer of per-row `idx.match`, in the output's order."""
    order = {k: n for n, k in enumerate(idx.keys())}
    return [
        (row, key)
        for row, message in enumerate(msgfilter.arrow.messages(data, layout))
        for key in sorted(idx.match(message), key=order.__getitem__)
    ]


def state_of(idx: SubscriptionIndex) -> IndexState:
    return idx._table_state()


LAYOUTS = [
    DEFAULT_LAYOUT,
    Layout(typed=False),
    Layout(keys_column="keys"),
    Layout(properties_column=None, tags_column=None),
    Layout(exclude=frozenset({"i", "s"})),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("columnar_rows", [1, 32, 10**9])
def test_mixed_columns_equal_per_row_match(layout: Layout, columnar_rows: int) -> None:
    idx = build_mixed(MIXED)
    data = mixed_table()
    want = per_row(idx, data, layout)
    with idx._lock:
        got = match_table(data, layout, state_of(idx), columnar_rows=columnar_rows)
    assert pairs_of(got) == want
    if layout == DEFAULT_LAYOUT:
        found = {k for _, k in want}
        # The look-ups each kind of column takes all find something.
        assert found >= {"i5", "i5.0", "i-r", "i-in-r", "f", "z", "z-r", "z-r0", "u", "u-big",
                         "b", "b-r", "b-s", "s-pre", "s-amq", "dict", "pair-r", "map",
                         "map-num-r", "opaque-nn", "tags", "tag-sql", "empty", "i5-dup"}
        assert not found & {"missing", "missing-nn", "opaque-eq", "map-num"}


def test_mixed_table_in_chunks_and_batches() -> None:
    idx = build_mixed(MIXED)
    data = mixed_table()
    chunked = pa.concat_tables([data.slice(0, 10), data.slice(10, 25), data.slice(35)])
    want = idx.match_table(data)
    assert idx.match_table(chunked).equals(want)
    batch = data.to_batches()[0]
    assert idx.match_table(batch).equals(want)
    # A slice of a batch: rows are numbered from the slice's start.
    part = batch.slice(7, 20)
    assert pairs_of(idx.match_table(part)) == per_row(idx, part, DEFAULT_LAYOUT)


def test_pulsar_tags_read_row_by_row() -> None:
    idx = SubscriptionIndex("pulsar-tag")
    idx.add("a", "anytag: x, y")
    idx.add("all", "alltag: x, y")
    idx.add("none", "")
    idx.add("sql", "tenant = 't1'", dialect="jms")
    data = pa.table({
        "tenant": ["t1", None, "t2", "t1"],
        "properties": pa.array(
            [[("tag1", "x"), ("tag2", "y")], [("tag", "y")], None, [("tagz", "q")]],
            pa.map_(pa.string(), pa.string()),
        ),
    })
    got = idx.match_table(data)
    assert pairs_of(got) == per_row(idx, data, DEFAULT_LAYOUT)
    assert (0, "all") in pairs_of(got) and (1, "all") not in pairs_of(got)


def test_no_rows_and_no_indexed_columns() -> None:
    idx = build_mixed(MIXED)
    empty = mixed_table().slice(0, 0)
    got = idx.match_table(empty)
    assert got.num_rows == 0 and got.schema.field("key").type == pa.string()
    bare = pa.table({"other": [1, 2, 3]})
    assert pairs_of(idx.match_table(bare)) == per_row(idx, bare, DEFAULT_LAYOUT)


def test_bad_properties_column() -> None:
    idx = build_mixed(MIXED)
    with pytest.raises(msgfilter.arrow.LayoutError):
        idx.match_table(pa.table({"properties": ["not a map"]}))


def test_realistic_workload_equals_per_row_match() -> None:
    from index_generators import realistic_messages, realistic_selectors

    idx = SubscriptionIndex()
    for i, text in enumerate(realistic_selectors(600, seed=3)):
        idx.add(f"s{i}", text)
    idx.add("r", "tenant = 't3' AND priority = '4'", dialect="rocketmq")
    idx.add("amq", "region = 'r2'", dialect="activemq")
    msgs = realistic_messages(400, 600, seed=4)
    columns: dict[str, list[Any]] = {
        name: [m.get(name) for m in msgs] for name in ("tenant", "region", "type", "sku")
    }
    columns["amount"] = [float(m["amount"]) if "amount" in m else None for m in msgs]
    columns["customer"] = [m.get("customer") for m in msgs]
    # Mixed-type values travel as strings in the map, as brokers carry them.
    props = [
        [(k, str(v)) for k, v in m.items() if k in ("priority", "owner", "score", "flag")]
        for m in msgs
    ]
    columns["properties"] = pa.array(props, pa.map_(pa.string(), pa.string()))
    data = pa.table(columns)
    for columnar_rows in (1, 32):
        with idx._lock:
            got = match_table(data, DEFAULT_LAYOUT, state_of(idx), columnar_rows=columnar_rows)
        assert pairs_of(got) == per_row(idx, data, DEFAULT_LAYOUT)


@pytest.mark.parametrize("spread_out", [1, 10**9])
def test_dense_codes(spread_out: int) -> None:
    """Combinations are numbered by counting (small codes) or by sorting (sparse ones);
    both give each position its combination and one position of each."""
    np = pytest.importorskip("numpy")
    from msgfilter.index.table_candidates import dense

    codes = np.array([7, 3, 7, 0, 3, 9, 9, 9], np.int64) * spread_out
    first, inverse = dense(codes)
    assert sorted(set(inverse.tolist())) == list(range(4))
    assert (codes[first[inverse]] == codes).all()
    assert [codes[i] for i in first] == sorted({*codes.tolist()})


# -- random subscriptions over typed columns: the clause look-up agrees with per-row match --

_INTS = st.one_of(st.none(), st.sampled_from([5, 0, -5, 10, 3, 2**53 + 1, 2**31]))
_FLOATS = st.one_of(st.none(), st.sampled_from(
    [5.0, -0.0, 0.0, 3.5, 9.5, float("nan"), float("inf"), 1e300]))
_TEXTS = st.one_of(st.none(), st.sampled_from(
    ["eu", "EU", "", "ab", "abc", "abcd", "5", "x%", "true", "TagA", "\u0665", "a", "5.0"]))


#: Bounds beside hashed atoms and alone, met exactly by the values above.
_AT_BOUNDS = [
    "c = 'eu' AND a BETWEEN 3 AND 5", "c LIKE 'ab%' AND b >= 3.5", "c = 'abc' AND b <= 9.5",
    "a >= 5 AND b < 9.5", "a > -5 AND a <= 10", "c IS NOT NULL AND a >= 0",
    "c <> 'eu' AND a < 10",
]


@pytest.mark.parametrize("dialect", ["jms", "rocketmq", "activemq"])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_random_subscriptions_equal_per_row_match(dialect: str, data: st.DataObject) -> None:
    texts = data.draw(st.lists(sql_selectors(dialect), min_size=1, max_size=12)) + _AT_BOUNDS
    size = data.draw(st.integers(1, 40))
    table = pa.table({
        "a": pa.array(data.draw(st.lists(_INTS, min_size=size, max_size=size)), pa.int64()),
        "b": pa.array(data.draw(st.lists(_FLOATS, min_size=size, max_size=size)), pa.float64()),
        "c": pa.array(data.draw(st.lists(_TEXTS, min_size=size, max_size=size)), pa.string()),
    })
    idx = SubscriptionIndex(dialect=dialect)
    for i, text in enumerate(texts):
        try:
            idx.add(i, text)
        except msgfilter.FilterError:
            continue
    assert pairs_of(idx.match_table(table)) == per_row(idx, table, DEFAULT_LAYOUT), texts
