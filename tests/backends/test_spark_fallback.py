"""The Spark fallback (`msgfilter.spark.filter_udf`, and the whole-filter UDF `to_column`
falls back to): each Arrow batch evaluated by the Arrow backend's kernels, tag filters by
backends/arrow/tags.py, and what no kernel evaluates by `Filter.evaluate` once per
distinct tuple of the values read. The per-message backend is the reference: on the
shared corpora, on Hypothesis cases of every dialect (many selectors over one frame per
example), and directly on Arrow batches for the kernels and the distinct-tuple path."""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import msgfilter  # noqa: E402
import msgfilter.arrow as ma  # noqa: E402
from msgfilter import jtypes  # noqa: E402
from msgfilter.backends.arrow.tags import compile_tags  # noqa: E402
from msgfilter.filter import Filter  # noqa: E402
from msgfilter.layout import Layout  # noqa: E402
from msgfilter.tags.pulsar import PulsarTagFilter  # noqa: E402
from msgfilter.testing.strategies import selector_cases  # noqa: E402

# -- tag kernels on Arrow tables: the per-message backend on the Arrow backend's rows -------

TAG_VALUES = ["red", "blue", "eu", "a b", "ß", ""]
MAP_KEYS = ["tag1", "tag2", "tag", "tags", "Tag1", "xtag", "color", "TAGS", "tagN"]


def _maybe(strategy: Any) -> Any:
    return st.one_of(st.none(), strategy)


@st.composite
def _tag_tables(draw: st.DrawFn) -> tuple[pa.Table, Layout]:
    size = draw(st.integers(1, 6))
    column = st.lists(_maybe(st.sampled_from(TAG_VALUES)), min_size=size, max_size=size)
    entries = st.lists(st.tuples(st.sampled_from(MAP_KEYS), _maybe(st.sampled_from(TAG_VALUES))),
                       max_size=5)  # keys may repeat: the last entry is the value
    table = pa.table({
        "properties": pa.array(draw(st.lists(_maybe(entries), min_size=size, max_size=size)),
                               pa.map_(pa.string(), pa.string())),
        "tags": pa.array(draw(column), pa.string()),
        "tag1": pa.array(draw(column), pa.large_string()),  # a string column: tags too
        "tagN": pa.array(draw(st.lists(_maybe(st.integers(0, 3)), min_size=size,
                                       max_size=size)), pa.int64()),  # shadows, no tags
    })
    start = draw(st.integers(0, size - 1))
    layout = draw(st.sampled_from([Layout(), Layout(typed=False), Layout(tags_column=None)]))
    return table.slice(start), layout


_tag_sets = st.lists(st.sampled_from(TAG_VALUES[:-1]), max_size=3)
_tag_filters = st.one_of(
    st.builds(lambda a, b: PulsarTagFilter(any_tags=a, all_tags=b), _tag_sets,
              _tag_sets),
    st.lists(st.sampled_from(["red", "blue", "eu", "ß", "*"]), max_size=3).map(
        lambda tags: msgfilter.compile(" || ".join(tags), "rocketmq-tag")),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tag_tables(), st.lists(_tag_filters, min_size=1, max_size=4))
def test_tag_kernels_agree_with_the_per_message_backend(
    data: tuple[pa.Table, Layout], filters: list[Filter]
) -> None:
    table, layout = data
    messages = ma.messages(table, layout)
    for f in filters:
        got = compile_tags(f, table.schema, layout)(table)
        assert got.null_count == 0
        assert got.to_pylist() == [f.evaluate(m) for m in messages], (f, layout)


# -- the distinct-tuple path: exact keys, Java classes ----------------------------------------


def _batch(columns: dict[str, pa.Array]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pydict(columns)


def test_distinct_tuples_keep_apart_values_a_selector_tells_apart() -> None:
    from msgfilter.backends.spark.rowwise import evaluate_distinct

    d = [0.0, -0.0, math.nan, -math.nan, 0.0, None, -0.0]
    dec = [Decimal("1.50"), Decimal("1.5"), Decimal("1.50"), None, Decimal("1.5"), None, None]
    batch = _batch({
        "d": pa.array(d, pa.float64()), "dec": pa.array(dec, pa.decimal128(4, 2)),
        "i": pa.array([1, 1, 2, None, 1, 1, 2], pa.int32()),
        "properties": pa.array([[("m", "x")], [], None, [("m", None)], [("m", "x")], [], []],
                               pa.map_(pa.string(), pa.string())),
    })
    texts = [("'x' + d = 'x-0.0'", "jms"), ("d = d", "jms"), ("'x' + d = 'x0.0'", "activemq"),
             ("dec = dec", "activemq"), ("'x' + dec = 'x1.50'", "activemq"),
             ("i + 2147483647 < 0", "activemq"), ("m = 'x' OR i = 2", "activemq")]
    rows = batch.to_pylist()
    for text, dialect in texts:
        f = msgfilter.compile(text, dialect)
        got = evaluate_distinct(f, batch, Layout()).to_pylist()
        want = []
        for row in rows:
            message = {k: v for k, v in row.items() if k != "properties"}
            message.update(dict(row["properties"] or []))
            if dialect == "activemq" and message["i"] is not None:
                message["i"] = jtypes.Int(message["i"])  # an int32 column: Integers
            if dialect == "activemq" and message["d"] is not None:
                message["d"] = jtypes.Double(message["d"])
            want.append(f.evaluate(message))
        assert got == want, text
    # The answers the rules give, written out: -0.0 is not 0.0 as text; an int column
    # holds Integers, which wrap at 32 bits in ActiveMQ.
    dash = msgfilter.compile("'x' + d = 'x-0.0'")
    assert evaluate_distinct(dash, batch, Layout()).to_pylist()[:2] == [False, True]
    wrap = msgfilter.compile("i + 2147483647 < 0", "activemq")
    assert evaluate_distinct(wrap, batch, Layout()).to_pylist()[:3] == [True, True, True]


# -- Spark: the shared corpora and Hypothesis cases through filter_udf ------------------------

pytest.importorskip("pyspark")
from pyspark.sql import types as T  # noqa: E402
from pyspark.sql.pandas.types import to_arrow_schema  # noqa: E402

import msgfilter.spark as ms  # noqa: E402
from test_conformance import SPARK_SAMPLES, run_spark  # noqa: E402

from conformance import CORPORA, corpus  # noqa: E402

#: The corpora through the fallback, sampled as (every n-th selector, every m-th case): the
#: jms fallback runs the Arrow backend's kernels, which test_conformance checks on every
#: case, and 150 Arrow UDFs in one frame cost Spark ~1.5 min per 2,500 selectors; the
#: activemq fallback (the distinct-tuples path) is sampled more densely than its native
#: columns. Everything with MSGFILTER_CONFORMANCE_FULL=1.
FALLBACK_SAMPLES = {
    **SPARK_SAMPLES,
    "jms:activemq-corpus-seed1": (4, 1),
    "activemq:activemq-corpus-seed1": (8, 1),
}


@pytest.mark.spark
@pytest.mark.parametrize("name", list(CORPORA))
def test_corpus_through_the_fallback(name: str, spark: Any) -> None:
    wrong = run_spark(name, corpus(name), spark, udf=True, samples=FALLBACK_SAMPLES)
    assert wrong == [], f"{len(wrong)} wrong:\n" + "\n".join(wrong[:20])


STRING_MAP = T.MapType(T.StringType(), T.StringType())
SCHEMA = T.StructType([
    T.StructField("a", T.LongType()), T.StructField("b", T.DoubleType()),
    T.StructField("s", T.StringType()), T.StructField("t", T.BooleanType()),
    T.StructField("i", T.IntegerType()), T.StructField("fl", T.FloatType()),
    T.StructField("tags", T.StringType()), T.StructField("tag1", T.StringType()),
    T.StructField("properties", STRING_MAP),
])
TYPES = {"a": "long", "b": "double", "s": "string", "t": "boolean"}
#: Strings as brokers carry them, around Java's parsers (the rocketmq conversions).
TEXTS = ["3", "-3", "007", "3.5", "1e3", "NaN", "true", "abc", "", " 4 ", "2147483648", "red"]


def frame(spark: Any, rows: Sequence[dict[str, object]]) -> Any:
    table = pa.Table.from_pylist(
        [{name: row.get(name) for name in SCHEMA.names} for row in rows],
        schema=to_arrow_schema(SCHEMA, timezone="UTC"),
    )
    return spark.createDataFrame(table)


def _message(row: dict[str, object], dialect: str) -> dict[str, object]:
    """A row as the message the default layout describes (Java classes for activemq)."""
    message: dict[str, object] = dict(row.get("properties") or {})  # type: ignore[call-overload]
    for name in ("a", "b", "s", "t", "i", "fl", "tag1"):
        message[name] = row.get(name)
    if dialect == "activemq":
        for name, cls in (("a", jtypes.Long), ("b", jtypes.Double), ("i", jtypes.Int),
                          ("fl", jtypes.Float)):
            if message[name] is not None:
                message[name] = cls(message[name])
    message.setdefault("TAGS", row.get("tags"))
    return message


def _row(message: dict[str, object], extra: dict[str, object]) -> dict[str, object]:
    row = {k: message.get(k) for k in TYPES}
    row.update(extra)
    return row


_extras = st.fixed_dictionaries({
    "i": _maybe(st.sampled_from([0, 1, -1, 2**31 - 1, -(2**31)])),
    "fl": _maybe(st.sampled_from([0.5, -0.0, 1.100000023841858, math.inf])),
    "tags": _maybe(st.sampled_from(["red", "TagA", ""])),
    "tag1": _maybe(st.sampled_from(["red", "eu"])),
    "properties": _maybe(st.dictionaries(st.sampled_from(["c", "x", "tag2", "TAGS", "s"]),
                                         _maybe(st.sampled_from(TEXTS)), max_size=3)),
})


def _cases() -> Any:
    return selector_cases(identifiers=tuple(TYPES), types=TYPES, max_messages=3)


def _compile_all(texts: Sequence[str]) -> list[Filter]:
    """Each jms selector in every dialect whose grammar takes it: jms, activemq, rocketmq."""
    filters = []
    for text in texts:
        for dialect in ("jms", "activemq", "rocketmq"):
            try:
                filters.append(msgfilter.compile(text, dialect))
            except msgfilter.FilterError:
                continue
    return filters


@pytest.mark.spark
@settings(max_examples=4, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(st.deferred(_cases), min_size=10, max_size=10),
       st.lists(_extras, min_size=30, max_size=30),
       st.lists(_tag_filters, min_size=4, max_size=4),
       st.lists(st.sampled_from(["c = 3", "c > 2.5 AND TAGS = 'red'", "x CONTAINS 'e'",
                                 "c BETWEEN 1 AND 4", "x IN ('abc', 'true')", "c <> 'abc'",
                                 "s = 3", "TAGS STARTSWITH 'T'", "x IS NULL OR c < 0"]),
                min_size=3, max_size=3))
def test_hypothesis_cases_of_every_dialect_through_the_fallback(
    spark: Any, cases: list[tuple[str, list[dict[str, object]]]], extras: list[dict[str, Any]],
    tag_filters: list[Filter], rocketmq: list[str],
) -> None:
    filters = _compile_all([text for text, _ in cases]) + tag_filters
    filters += [msgfilter.compile(text, "rocketmq") for text in rocketmq]
    messages = [m for _, found in cases for m in found]
    rows = [_row(m, extras[r % len(extras)]) for r, m in enumerate(messages)]
    df = frame(spark, rows)
    columns = [ms.filter_udf(f, df).alias(f"u{i}") for i, f in enumerate(filters)]
    answers = [list(row) for row in df.select(*columns).collect()]
    wrong = [
        (f.dialect, f.text, rows[r], answers[r][i])
        for r in range(len(rows)) for i, f in enumerate(filters)
        if answers[r][i] != f.evaluate(_message(rows[r], f.dialect))
    ]
    assert not wrong, wrong[:5]


@pytest.mark.spark
def test_rocketmq_falls_back_to_kernels_and_opaque_values_to_python(spark: Any) -> None:
    import datetime

    from msgfilter.backends.spark.fallback import batch_plan

    f = msgfilter.compile("c > 2 AND x = 'red'", "rocketmq")
    schema = pa.schema([("properties", pa.map_(pa.string(), pa.string())),
                        ("ts", pa.timestamp("us", "UTC"))])
    assert batch_plan(f, schema, Layout()) is not None
    # Two values of no selector type: the kernels call them unlike, `evaluate` compares
    # the Python objects (docs/arrow.md), so the fallback takes the Python path.
    g = msgfilter.compile("ts = ts", "rocketmq")
    assert batch_plan(g, schema, Layout()) is None
    when = datetime.datetime(2024, 1, 2, tzinfo=datetime.UTC)
    df = spark.createDataFrame(pa.table({"ts": pa.array([when, None], schema.field(1).type)}))
    assert [r[0] for r in df.select(ms.filter_udf(g, df)).collect()] == [True, True]


@pytest.mark.spark
def test_tags_entry_or_column_reaches_the_udf_as_one_string(spark: Any) -> None:
    # The map's TAGS entry wins where the map has the key, even with a NULL value (which
    # hides the tags column); else the tags column; a NULL map reads the column.
    rows = [
        {"properties": {"TAGS": "red"}, "tags": "blue"},
        {"properties": {"TAGS": None}, "tags": "red"},
        {"properties": {"x": "1"}, "tags": "red"},
        {"properties": {}, "tags": None},
        {"properties": None, "tags": "red"},
        {"properties": {"TAGS": ""}, "tags": "red"},
    ]
    df = frame(spark, rows)
    filters = [msgfilter.compile("red || blue", "rocketmq-tag"),
               msgfilter.compile("*", "rocketmq-tag"),
               msgfilter.compile("TAGS = 'red' OR TAGS IS NULL", "jms")]
    columns = [ms.filter_udf(f, df).alias(f"u{i}") for i, f in enumerate(filters)]
    answers = [list(row) for row in df.select(*columns).collect()]
    expected = [[f.evaluate(_message(row, f.dialect)) for f in filters] for row in rows]
    assert answers == expected
    assert [a[0] for a in answers[:5]] == [True, False, True, False, True]


@pytest.mark.spark
def test_a_pulsar_tag_filter_gets_its_tags_only(spark: Any) -> None:
    # The UDF gets the values of the map's `tag*` entries (not the map) and the `tag1`
    # column: the answers are those of the whole message, whatever else the map holds;
    # the column counts, and hides the map's entry of its name even when NULL.
    rows = [
        {"properties": {"tag2": "red", "x": "blue"}},
        {"properties": {"x": "red", "s": "eu"}},
        {"properties": {"tagz": "blue", "tag2": None}, "tag1": "eu"},
        {"properties": {}, "tag1": "red"},
        {"properties": None},
        {"properties": {"TAG2": "red", "atag": "red"}},
        {"properties": {"tag1": "blue"}, "tag1": "eu"},
        {"properties": {"tag1": "red", "tag3": None}, "tag1": None},
    ]
    df = frame(spark, rows)
    filters = [msgfilter.compile("anytag: red, blue", "pulsar-tag"),
               msgfilter.compile("alltag: blue, eu", "pulsar-tag")]
    columns = [ms.filter_udf(f, df).alias(f"u{i}") for i, f in enumerate(filters)]
    answers = [list(row) for row in df.select(*columns).collect()]
    expected = [[f.evaluate(_message(row, f.dialect)) for f in filters] for row in rows]
    assert answers == expected
    assert [a[0] for a in answers] == [True, False, True, True, False, False, False, False]
    assert [a[1] for a in answers] == [False, False, True, False, False, False, False, False]
