"""The vector backends agree with the per-message evaluator and the reference evaluator:
compiled Python == reference == Arrow == Spark on generated selectors over generated
tables. Each property skips until its backend is there (msgfilter.arrow.evaluate,
msgfilter.spark.to_column, the session `spark` fixture)."""

from __future__ import annotations

import importlib
import warnings
from types import ModuleType
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import msgfilter
from msgfilter.testing import (
    DEFAULT_IDENTIFIERS,
    messages,
    property_settings,
    reference_filter,
    selector_cases,
    selectors,
)

# Kinds a typed column can hold (odd objects cannot be in a typed column).
COLUMN_KINDS = ("long", "double", "string", "boolean")
SCHEMAS = st.fixed_dictionaries(
    {name: st.sampled_from(COLUMN_KINDS) for name in DEFAULT_IDENTIFIERS}
)


def backend(module: str, attribute: str) -> ModuleType:
    """`module` if it imports and has `attribute`, else skip (it is being built)."""
    try:
        found = importlib.import_module(module)
    except ImportError as error:
        pytest.skip(f"{module} is not available: {error}")
    if not hasattr(found, attribute):
        pytest.skip(f"{module}.{attribute} is not there yet")
    return found


def expected_answers(text: str, rows: list[dict[str, object]]) -> list[bool | None]:
    f, ref = msgfilter.compile(text), reference_filter(text)
    answers = [f.evaluate(row) for row in rows]
    assert answers == [ref.evaluate(row) for row in rows], text
    return answers


# -- Arrow ----------------------------------------------------------------------------------


def arrow_table(schema: dict[str, str], rows: list[dict[str, object]]) -> Any:
    pa = pytest.importorskip("pyarrow")
    types = {"long": pa.int64(), "double": pa.float64(), "string": pa.string(),
             "boolean": pa.bool_()}
    return pa.table({
        name: pa.array([row.get(name) for row in rows], type=types[kind])
        for name, kind in schema.items()
    })


@st.composite
def typed_cases(draw: st.DrawFn) -> tuple[dict[str, str], str, list[dict[str, object]]]:
    schema = draw(SCHEMAS)
    text, rows = draw(selector_cases(types=schema, max_messages=8))
    return schema, text, rows


def test_arrow_agrees_on_typed_columns() -> None:
    arrow = backend("msgfilter.arrow", "evaluate")

    @property_settings()
    @given(typed_cases())
    def run(case: tuple[dict[str, str], str, list[dict[str, object]]]) -> None:
        schema, text, rows = case
        # A literal's value can stand in a row beyond what an int64 column holds (the
        # 2**63 of `-9223372036854775808`): Arrow cannot represent that row.
        assume(all(-(2**63) <= v < 2**63 for r in rows for v in r.values() if type(v) is int))
        table = arrow_table(schema, rows)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a row-by-row fallback still must agree
            got = arrow.evaluate(msgfilter.compile(text), table).to_pylist()
        assert got == expected_answers(text, rows), (text, rows)

    run()


def test_arrow_agrees_on_the_properties_map() -> None:
    arrow = backend("msgfilter.arrow", "evaluate")
    pa = pytest.importorskip("pyarrow")

    @property_settings(0.5)
    @given(selector_cases(types=["string", "null"], max_messages=8))
    def run(case: tuple[str, list[dict[str, object]]]) -> None:
        text, rows = case
        entries = [[(k, v) for k, v in row.items()] for row in rows]
        table = pa.table({"properties": pa.array(entries, type=pa.map_(pa.string(), pa.string()))})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = arrow.evaluate(msgfilter.compile(text), table).to_pylist()
        assert got == expected_answers(text, rows), (text, rows)

    run()


# -- Spark ----------------------------------------------------------------------------------


@st.composite
def spark_cases(
    draw: st.DrawFn,
) -> tuple[dict[str, str], list[str], list[dict[str, object]]]:
    """Several selectors over one table: one DataFrame and one job answer them all."""
    schema = draw(SCHEMAS)
    texts = draw(st.lists(selectors(max_depth=3), min_size=1, max_size=8))
    rows = draw(st.lists(messages(types=schema), min_size=1, max_size=12))
    return schema, texts, rows


@pytest.mark.spark
def test_spark_agrees(request: pytest.FixtureRequest) -> None:
    spark_module = backend("msgfilter.spark", "to_column")
    try:
        spark = request.getfixturevalue("spark")
    except pytest.FixtureLookupError:
        pytest.skip("no session `spark` fixture in tests/conftest.py yet")
    from pyspark.sql import types as T

    spark_types = {"long": T.LongType(), "double": T.DoubleType(), "string": T.StringType(),
                   "boolean": T.BooleanType()}

    @property_settings(0.1)
    @given(spark_cases())
    def run(case: tuple[dict[str, str], list[str], list[dict[str, object]]]) -> None:
        schema, texts, rows = case
        struct = T.StructType(
            [T.StructField("_row", T.LongType(), False)]
            + [T.StructField(name, spark_types[kind], True) for name, kind in schema.items()]
        )
        data = [(i, *(row.get(name) for name in schema)) for i, row in enumerate(rows)]
        frame = spark.createDataFrame(data, schema=struct)
        columns = [
            spark_module.to_column(msgfilter.compile(text), frame).alias(f"c{i}")
            for i, text in enumerate(texts)
        ]
        collected = sorted(frame.select("_row", *columns).collect(), key=lambda r: r["_row"])
        for i, text in enumerate(texts):
            got = [row[f"c{i}"] for row in collected]
            assert got == expected_answers(text, rows), (text, rows)

    run()
