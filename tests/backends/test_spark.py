"""The Spark backend against the per-message backend: Hypothesis cases and the edge cases
where Spark's own operators differ from the dialect (the shared corpora run against Spark
in tests/test_conformance.py).

Spark's cost is per expression (building it over py4j, analysing, optimising,
compiling), so the tests evaluate many selectors in one `select` over a small frame
whose rows are the messages of cases that agree on column types, and compare the
whole grid of (selector, row) answers with `Filter.evaluate`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

pytest.importorskip("pyspark")
pa = pytest.importorskip("pyarrow")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pyspark.sql import types as T  # noqa: E402
from pyspark.sql.pandas.types import to_arrow_schema  # noqa: E402

import msgfilter  # noqa: E402
import msgfilter.spark as ms  # noqa: E402
from msgfilter.filter import Filter  # noqa: E402
from msgfilter.testing.strategies import selector_cases  # noqa: E402

from conformance import NO_LOCAL_RELATION, sql_conf  # noqa: E402

pytestmark = pytest.mark.spark

STRING_MAP = T.MapType(T.StringType(), T.StringType())
@contextmanager
def codegen(spark: Any) -> Iterator[None]:
    """Run queries over local data as real jobs with generated code, as over files.

    By default Spark evaluates a projection of in-memory rows in the driver with its
    interpreter while optimising (ConvertToLocalRelation)."""
    with sql_conf(spark, {"spark.sql.optimizer.excludedRules": NO_LOCAL_RELATION}):
        yield


def frame(spark: Any, schema: T.StructType, rows: Sequence[dict[str, object]]) -> Any:
    """A DataFrame of `rows` (dicts by column name; maps as dicts) with `schema`."""
    arrow_schema = to_arrow_schema(schema, timezone="UTC")
    table = pa.Table.from_pylist(
        [{name: row.get(name) for name in schema.names} for row in rows], schema=arrow_schema
    )
    return spark.createDataFrame(table)


def grid(
    df: Any, filters: Sequence[Filter], layout: ms.Layout = ms.DEFAULT_LAYOUT
) -> list[list[bool | None]]:
    """answers[row][i]: filter i on each row of `df`, all in one select."""
    columns = [ms.to_column(f, df.schema, layout).alias(f"r{i}") for i, f in enumerate(filters)]
    return [[row[i] for i in range(len(filters))] for row in df.select(*columns).collect()]


#: (filters, schema, layout) -> their Columns: a Column is an unresolved expression, the
#: same under every setting, and building one costs ~100 py4j round trips.
_COLUMNS: dict[tuple[object, ...], list[Any]] = {}


def both_ways(
    spark: Any, df: Any, filters: Sequence[Filter], layout: ms.Layout = ms.DEFAULT_LAYOUT
) -> tuple[list[list[bool | None]], list[list[bool | None]]]:
    """`grid` in Spark's interpreter and in generated code: the Columns built once per
    table (the ANSI variants share them) and the query analysed once (the settings
    in force decide its types); only the optimisation and the run are done twice."""
    key = (tuple(filters), df.schema.json(), layout)
    columns = _COLUMNS.get(key)
    if columns is None:
        columns = _COLUMNS[key] = [
            ms.to_column(f, df.schema, layout).alias(f"r{i}") for i, f in enumerate(filters)
        ]
    query = df.select(*columns)
    count = len(filters)
    interpreted = [[row[i] for i in range(count)] for row in query.collect()]
    with codegen(spark):
        # A new plan over the analysed one: optimised again, without the local relation.
        generated = [[row[i] for i in range(count)] for row in query.select("*").collect()]
    return interpreted, generated


# -- edge cases: where Spark's operators differ from the dialect -------------------------------

LONG_MAX, LONG_MIN = 2**63 - 1, -(2**63)

EDGE_SCHEMA = T.StructType(
    [
        T.StructField("l", T.LongType()), T.StructField("i", T.IntegerType()),
        T.StructField("sh", T.ShortType()), T.StructField("by", T.ByteType()),
        T.StructField("d", T.DoubleType()), T.StructField("fl", T.FloatType()),
        T.StructField("s", T.StringType()), T.StructField("t", T.StringType()),
        T.StructField("bo", T.BooleanType()), T.StructField("ts", T.TimestampType()),
        T.StructField("dec", T.DecimalType(10, 2)), T.StructField("bin", T.BinaryType()),
        T.StructField("arr", T.ArrayType(T.StringType())), T.StructField("nothing", T.NullType()),
        T.StructField("tags", T.StringType()), T.StructField("keys", T.ArrayType(T.StringType())),
        T.StructField("properties", STRING_MAP),
    ]
)
EDGE_LAYOUT = ms.Layout(keys_column="keys")


def _edge_rows() -> list[dict[str, object]]:
    import datetime
    from decimal import Decimal

    when = datetime.datetime(2024, 1, 2, 3, 4, 5)
    return [
        dict(l=LONG_MAX, i=2**31 - 1, sh=-2, by=3, d=math.nan, fl=0.5, s="\uffff", t="😀",
             bo=True, ts=when, dec=Decimal("1.50"), bin=b"x", arr=["a"], tags="TagA",
             keys=["k1", "k2"], properties={"m": "x", "n": "2"}),
        dict(l=LONG_MIN, i=-(2**31), sh=0, by=-128, d=-0.0, fl=-1.25, s="a\nb", t="a_b",
             bo=False, tags="TagA", keys=[], properties={"TAGS": "TagB", "KEYS": "K"}),
        dict(l=0, i=0, d=0.0, fl=0.0, s="12%3", t="x%y", bo=None, tags=None, keys=["k", None],
             properties={}),
        dict(l=-1, i=7, d=math.inf, fl=3.0, s="x!y", t="", tags="", properties=None),
        dict(l=7, i=-7, sh=2, by=-1, d=-math.inf, fl=-0.0, s="", t="\ud7ff",
             properties={"m": None, "TAGS": None}),
        dict(l=2**53 + 1, i=1, d=2.0**53, fl=2.5, s="A", t="a", bo=True, tags="TagB"),
        dict(l=-7, i=2, d=1e308, fl=1e30, s="abc", t="abd", bo=False, tags="T😀"),
        dict(),  # everything NULL
    ]


EDGE_SELECTORS = [
    # NaN (J26): Spark says NaN = NaN and NaN > everything.
    "d = d", "d <> d", "d > 1", "d >= d", "1 < d", "d <= d", "d < 1", "d = 0.0/0",
    "d BETWEEN 0 AND 1e309", "d NOT BETWEEN 0 AND 1", "0.0/0 = 0.0/0", "d * 0 = 0",
    # -0.0 and infinities
    "d = 0", "d < 0", "d = -0.0", "-d = 0", "fl = 0", "d > 1e308", "d = 1e308 * 10",
    # long arithmetic wraps at 64 bits (J23), division truncates, /0 is NULL (J30)
    "l + 1 < 0", "l - 1 > 0", "l * 2 = -2", "l * l = 1", "l * 3 = l + l + l", "-l = l",
    "l / -1 = l", "l / 0 IS NULL", "l / i IS NULL", "l / 2 = 3", "-7 / 2 = -3", "i / l = 0",
    "l % 2 = 1" if False else "i * i > 0", "i + 1 = 2147483648", "sh - by = -5",
    "by * 1.5 = -1.5", "l = 9007199254740993", "l = 9007199254740992.0", "l > d",
    # IEEE division by zero, signed zeros
    "d / 0 IS NULL", "i / 0.0 > 1e308", "i / -0.0 < -1e308", "i / d > 0", "d / 0.0 = d / 0.0",
    "fl / fl = 1", "fl / -0.0 < 0", "(i - i) / 0.0 <> 0", "1 / d = 0",
    # strings: UTF-16 order (J27), concatenation (J31)
    "s > t", "s < t", "s >= 'x' + ''", "t = 'a_b'", "s + t = 'AA'", "'n' + d = 'nNaN'",
    "'n' + fl = 'n0.5'", "'n' + l = 'n-1'", "'n' + bo = 'ntrue'", "'n' + ts IS NULL",
    "'' + d = '1.0E308'", "'x' + nothing IS NULL", "s + 1 = 'A1'", "1 + s IS NULL",
    # LIKE (J36, J37)
    "s LIKE 'a_b'", "s LIKE '12%3'", "s LIKE '12\\%3' ESCAPE '\\'", "s LIKE 'x!!y' ESCAPE '!'",
    "t LIKE '_'", "t LIKE '__'", "t LIKE 'a!_b' ESCAPE '!'", "l LIKE '%'", "l NOT LIKE '%'",
    "s NOT LIKE '%'", "(l > 0) LIKE 'x'", "s LIKE ''", "t LIKE '%y'", "t LIKE 'x%%' ESCAPE '%'",
    # IN (J34)
    "s IN ('abc', 'A')", "s NOT IN ('abc')", "l IN ('1')", "l NOT IN ('1')", "m IN ('x')",
    "nothing IN ('x')", "ts NOT IN ('x')",
    # types: unlike types FALSE (J24), no selector type (J21), bare identifiers (J39)
    "s = 1", "s <> 1", "bo = 'true'", "bo <> 1", "ts = ts", "dec = 1.5", "bin IS NULL",
    "arr <> 1", "bo", "NOT bo", "s", "NOT s", "ts", "nothing", "NOT nothing", "bo = (l > 0)",
    "bo > (i > 0)" if False else "(l > 0) = (i > 0)", "nothing IS NULL", "dec + 1 IS NULL",
    "-s IS NULL", "-bo IS NULL", "n = 2", "n = '2'", "m IS NULL", "missing IS NULL",
    # TAGS and KEYS from the map first, then the tags / keys columns
    "TAGS = 'TagA'", "TAGS IS NULL", "KEYS = 'k1 k2'", "KEYS IS NULL", "KEYS = 'K'",
    # logic (J39) and constants
    "bo AND l > 0", "bo OR l > 0", "NOT (bo AND missing > 1)", "TRUE", "NULL", "NOT NULL",
    "FALSE OR NULL", "1 + 2 = 3", "'a' + 1 = 'a1'", "7 / 0 IS NULL", "NULL IS NULL",
]


def _edge_message(row: dict[str, object]) -> dict[str, object]:
    """A row of EDGE_SCHEMA as the message EDGE_LAYOUT describes."""
    message: dict[str, object] = dict(row.get("properties") or {})  # type: ignore[call-overload]
    reserved = {"properties", "tags", "keys"}
    for name in EDGE_SCHEMA.names:
        if name not in reserved:
            message[name] = row.get(name)
    message.setdefault("TAGS", row.get("tags"))
    keys = row.get("keys")
    if "KEYS" not in message:
        ok = isinstance(keys, list) and keys and None not in keys
        message["KEYS"] = " ".join(keys) if ok else None  # type: ignore[arg-type]
    return message


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_edge_cases_agree_in_the_interpreter_and_in_generated_code(spark: Any, ansi: str) -> None:
    rows = _edge_rows()
    filters = [msgfilter.compile(text) for text in EDGE_SELECTORS]
    want = [[f.evaluate(_edge_message(row)) for f in filters] for row in rows]
    with sql_conf(spark, {"spark.sql.ansi.enabled": ansi}):
        interpreted, generated = both_ways(
            spark, frame(spark, EDGE_SCHEMA, rows), filters, EDGE_LAYOUT
        )
    for answers in (interpreted, generated):
        wrong = [
            (f.text, r, answers[r][i], want[r][i])
            for r in range(len(rows)) for i, f in enumerate(filters)
            if answers[r][i] != want[r][i]
        ]
        assert not wrong, wrong[:8]


def test_the_explicit_udf_agrees_on_the_edge_cases(spark: Any) -> None:
    # filter_udf rebuilds each row as a message from Arrow data: every column type of
    # EDGE_SCHEMA (timestamps, decimals, binary, arrays, NULL-typed) goes through it.
    rows = _edge_rows()
    filters = [msgfilter.compile(text) for text in EDGE_SELECTORS[::3]]
    df = frame(spark, EDGE_SCHEMA, rows)
    columns = [ms.filter_udf(f, df, EDGE_LAYOUT).alias(f"u{i}") for i, f in enumerate(filters)]
    got = [list(row) for row in df.select(*columns).collect()]
    want = [[f.evaluate(_edge_message(row)) for f in filters] for row in rows]
    assert got == want


def test_edge_answers_are_the_rules_themselves(spark: Any) -> None:
    # A few answers written out, so that the test does not only trust the reference.
    rows = _edge_rows()[:2]
    texts = ["d = d", "d <> d", "d > 1", "l + 1 < 0", "l / -1 = l", "s > t", "t LIKE '_'",
             "'n' + fl = 'n0.5'", "TAGS = 'TagB'", "KEYS = 'k1 k2'", "l IN ('1')", "-d = 0"]
    got = grid(frame(spark, EDGE_SCHEMA, rows), [msgfilter.compile(t) for t in texts],
               EDGE_LAYOUT)
    assert got[0] == [False, True, False, True, False, True, True, True, False, True, False,
                      False]
    assert got[1] == [True, False, False, True, True, False, False, False, True, False, False,
                      True]


# -- Hypothesis: random selectors and messages, generated code ---------------------------------

HYPOTHESIS_TYPES = {"a": "long", "b": "double", "s": "string", "t": "boolean", "über": "string"}
HYPOTHESIS_SCHEMA = T.StructType(
    [
        T.StructField("a", T.LongType()), T.StructField("b", T.DoubleType()),
        T.StructField("s", T.StringType()), T.StructField("t", T.BooleanType()),
        T.StructField("properties", STRING_MAP),  # "über" lives in the map
    ]
)


def _selector_cases() -> Any:

    return selector_cases(
        identifiers=tuple(HYPOTHESIS_TYPES), types=HYPOTHESIS_TYPES, max_messages=3
    )


@settings(max_examples=4, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(st.deferred(_selector_cases), min_size=12, max_size=12))
def test_hypothesis_selectors_agree_in_generated_code(
    spark: Any, cases: list[tuple[str, list[dict[str, object]]]]
) -> None:
    filters = [msgfilter.compile(text) for text, _ in cases]
    messages = [m for _, found in cases for m in found]
    rows = [
        {**{k: m.get(k) for k in ("a", "b", "s", "t")},
         "properties": {"über": m["über"]} if "über" in m else {}}
        for m in messages
    ]
    with codegen(spark):
        answers = grid(frame(spark, HYPOTHESIS_SCHEMA, rows), filters, ms.DEFAULT_LAYOUT)
    wrong = [
        (f.text, m, answers[r][i])
        for r, m in enumerate(messages) for i, f in enumerate(filters)
        if answers[r][i] != f.evaluate(m)
    ]
    assert not wrong, wrong[:5]


# -- API: explain, fallbacks, tag filters, layouts ---------------------------------------------

TAGS_SCHEMA = T.StructType(
    [
        T.StructField("priority", T.IntegerType()), T.StructField("tags", T.StringType()),
        T.StructField("tag_region", T.StringType()), T.StructField("properties", STRING_MAP),
    ]
)
TAGS_ROWS: list[dict[str, object]] = [
    dict(priority=5, tags="TagA", tag_region="west",
         properties={"tag1": "red", "tag2": "eu", "color": "red", "tag_region": "shadowed"}),
    dict(priority=1, tags="TagB", properties={"tag1": "blue", "TAGS": "TagC", "color": "blue"}),
    dict(priority=None, tags=None, tag_region="eu", properties={"tagX": "red", "xtag": "eu"}),
    dict(priority=9, tags="TagA", properties={"tag1": None, "TAGS": None, "Tag2": "red"}),
    dict(priority=4, tags="", properties=None),
    dict(),
]
TAG_FILTERS = [
    ("TagA || TagB", "rocketmq-tag"), ("*", "rocketmq-tag"), (" ", "rocketmq-tag"),
    ("TagC", "rocketmq-tag"),
    ("anytag: red, blue", "pulsar-tag"), ("alltag: red, eu", "pulsar-tag"),
    ("anytag: red; alltag: eu", "pulsar-tag"), ("", "pulsar-tag"),
    ("anytag: shadowed", "pulsar-tag"), ("anytag: west, eu", "pulsar-tag"),
    ("alltag: red, eu, west", "pulsar-tag"), ("alltag: eu, west", "pulsar-tag"),
    ("anytag: blue, eu; alltag: red, shadowed", "pulsar-tag"),
    # More than four values: the values-only pre-test is one `exists` pass (tags.py).
    ("anytag: a, b, c, d, shadowed, blue", "pulsar-tag"),
    ("anytag: a, b, c, d, west", "pulsar-tag"), ("anytag: a, b, c, d, e, TagC", "pulsar-tag"),
    ("anytag: a, b, c, red, e; alltag: eu", "pulsar-tag"),
    ("priority > 3 AND color = 'red'", "jms"), ("TAGS = 'TagA'", "jms"),
    ("'p' + priority * 0.5 = 'p2.5'", "jms"),
    ("priority > 3", "rocketmq"), ("color CONTAINS 're' OR TAGS = 'TagC'", "rocketmq"),
]


def _tags_message(row: dict[str, object]) -> msgfilter.Message:
    properties: dict[str, object] = dict(row.get("properties") or {})  # type: ignore[call-overload]
    properties.update(priority=row.get("priority"), tag_region=row.get("tag_region"))
    return msgfilter.Message(properties, tags=row.get("tags"))  # type: ignore[arg-type]


def test_tag_filters_udfs_and_fallbacks_agree_with_the_per_message_backend(spark: Any) -> None:
    filters = [msgfilter.compile(text, dialect) for text, dialect in TAG_FILTERS]
    df = frame(spark, TAGS_SCHEMA, TAGS_ROWS)
    native = [ms.to_column(f, df).alias(f"n{i}") for i, f in enumerate(filters)]
    udfs = [ms.filter_udf(f, df).alias(f"u{i}") for i, f in enumerate(filters)]
    with codegen(spark):
        rows = df.select(*native, *udfs).collect()
    wrong = []
    for row, data in zip(rows, TAGS_ROWS, strict=True):
        message = _tags_message(data)
        for i, f in enumerate(filters):
            want = f.evaluate(message)
            if (row[f"n{i}"], row[f"u{i}"]) != (want, want):
                wrong.append((f, data, row[f"n{i}"], row[f"u{i}"], want))
    assert not wrong, wrong[:5]
    # Tag filters and the rocketmq SQL dialect are native (the jms selector writing a
    # double as text keeps that part in Python).
    plans = {(f.text, f.dialect): ms.explain(f, df) for f in filters}
    assert all(p.native for (_, dialect), p in plans.items() if dialect != "jms")


def test_explain_names_the_sources_and_the_python_parts(spark: Any) -> None:
    schema = T.StructType(
        [T.StructField("price", T.DoubleType()), T.StructField("properties", STRING_MAP)]
    )
    native = ms.explain("color = 'red' AND price > 2.5", schema)
    assert native.native and not native.udf_parts
    assert dict(native.bindings) == {
        "color": "properties['color'] (string)", "price": "column 'price' (double)"
    }
    assert "native" in str(native)
    mixed = ms.explain("color = 'red' AND 'p' + price = 'p1.5'", schema)
    assert not mixed.native
    assert mixed.udf_parts == (("price", "a double written as text (Java's Double.toString)"),)
    assert "Arrow UDF" in str(mixed)
    with pytest.raises(ms.NotNativeError):
        ms.to_column("'p' + price = 'p1.5'", schema, fallback=False)
    assert ms.explain("s = '\ud800'", schema).udf_parts[0][0] == "*"


def test_where_keeps_only_true_rows_and_lone_surrogates_fall_back(spark: Any) -> None:
    df = frame(spark, HYPOTHESIS_SCHEMA, [dict(a=1, s="x"), dict(a=5, s="\ud7ff"), dict()])
    assert [r.a for r in ms.where(df, "a > 2 OR a IS NULL").collect()] == [5, None]
    # Text no Spark string can hold still evaluates (in Python), never matching here.
    got = [r[0] for r in df.select(ms.to_column("s <> '\ud800'", df)).collect()]
    assert got == [True, True, None]


def test_layout_errors(spark: Any) -> None:
    bad_map = T.StructType([T.StructField("properties", T.StringType())])
    with pytest.raises(ms.LayoutError, match="not a map"):
        ms.to_column("a = 1", bad_map)
    twins = T.StructType([T.StructField("a", T.LongType()), T.StructField("A", T.LongType())])
    with sql_conf(spark, {"spark.sql.caseSensitive": "false"}), pytest.raises(
        ms.LayoutError, match="letter case"
    ):
        ms.to_column("a = 1", twins)
    with sql_conf(spark, {"spark.sql.caseSensitive": "true"}):
        assert ms.explain("a = 1 AND A = 2", twins).native
    # Spark would look a name up in the keys' collation, ignoring case.
    lcase = T.StructType([T.StructField("properties", T.MapType(
        T.StringType("UTF8_LCASE"), T.StringType()))])
    for dialect, text in (("jms", "a = 1"), ("pulsar-tag", "anytag: x")):
        with pytest.raises(ms.LayoutError, match="UTF8_LCASE"):
            ms.to_column(text, lcase, dialect=dialect)


def test_tags_in_a_case_insensitive_collation_compare_exactly(spark: Any) -> None:
    # Tag values compare as Java's equals, whatever the strings' collation; native and
    # fallback alike (the native one once failed to analyse on such a map).
    df = spark.sql(
        "SELECT map('tag1', collate(v, 'UTF8_LCASE')) AS properties, "
        "collate(t, 'UTF8_LCASE') AS tag2, collate(t, 'UTF8_LCASE') AS tags "
        "FROM VALUES ('URGENT', 'Red'), ('urgent', 'red'), ('x', 'RED') AS data(v, t)"
    )
    filters = [msgfilter.compile("anytag: urgent", "pulsar-tag"),
               msgfilter.compile("alltag: urgent, red", "pulsar-tag"),
               msgfilter.compile("red", "rocketmq-tag"),
               msgfilter.compile("anytag: a, b, c, d, urgent", "pulsar-tag")]
    expected = [[False, False, False, False], [True, True, True, True],
                [False, False, False, False]]
    assert grid(df, filters) == expected
    fallback = [ms.filter_udf(f, df).alias(f"u{i}") for i, f in enumerate(filters)]
    assert [list(row) for row in df.select(*fallback).collect()] == expected


def test_every_node_class_is_lowered_and_deep_selectors_work(spark: Any) -> None:
    # Every node class has an entry in every table: tests/backends/test_backend_tables.py.
    deep = msgfilter.compile("NOT (" * 120 + "a > 1" + ")" * 120)
    df = frame(spark, HYPOTHESIS_SCHEMA, [dict(a=1), dict(a=2), dict()])
    got = [r[0] for r in df.select(ms.to_column(deep, df)).collect()]
    assert got == [deep.evaluate({"a": 1}), deep.evaluate({"a": 2}), None]
