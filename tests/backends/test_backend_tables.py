"""Every backend dispatches on node class through one table per value model: every node
class the model's grammars build (`dialects.node_kinds`, derived from `Grammar.node_kinds`)
has an entry in every table (or is listed as unsupported, with the fallback it takes), no
table restates what the grammars never build, every value model is either lowered or
listed with its fallback, and BETWEEN is lowered once per backend."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from msgfilter import dialects
from msgfilter import layout as tables
from msgfilter.backends.arrow import LOWERINGS, ROW_BY_ROW
from msgfilter.backends.arrow import compiler as arrow_compiler
from msgfilter.backends.arrow.columns import conversion as arrow_conversion
from msgfilter.semantics.model import ValueModel
from msgfilter.syntax import nodes as n


def _check_table(model: ValueModel, handlers: Any, unsupported: Any) -> None:
    kinds = dialects.node_kinds(model)
    assert kinds <= set(handlers) | set(unsupported), model
    # `unsupported` names the grammar's kinds a backend lacks, never what no grammar builds.
    assert set(unsupported) <= kinds, model
    assert not set(handlers) & set(unsupported), "a node both lowered and unsupported"
    for node, why in unsupported.items():
        assert isinstance(why, str) and why, node


def test_every_node_class_is_in_every_arrow_table() -> None:
    for model, lowering in LOWERINGS.items():
        _check_table(model, lowering.handlers, lowering.unsupported)
        assert all(len(pair) == 2 for pair in lowering.handlers.values()), model


def test_every_value_model_is_lowered_by_arrow_or_runs_row_by_row() -> None:
    assert set(LOWERINGS) | set(ROW_BY_ROW) == set(ValueModel)
    assert not set(LOWERINGS) & set(ROW_BY_ROW)
    assert all(ROW_BY_ROW.values())


def test_arrow_lowers_between_once_through_each_models_comparison() -> None:
    for model, lowering in LOWERINGS.items():
        if n.Between in dialects.node_kinds(model):
            assert lowering.handlers[n.Between][1] is arrow_compiler.between
        else:
            assert n.Between not in lowering.handlers, model


def test_the_node_classes_each_model_lowers() -> None:
    # What each model's kernels cover today: all its grammars build, nothing row by row.
    for model in (ValueModel.JMS, ValueModel.ROCKETMQ, ValueModel.AMQP):
        assert not LOWERINGS[model].unsupported, model
        assert dialects.node_kinds(model) <= set(LOWERINGS[model].handlers), model


def test_every_node_class_is_in_every_spark_table() -> None:
    pytest.importorskip("pyspark")
    from msgfilter.backends.spark import TABLES

    for model, table in TABLES.items():
        _check_table(model, table.handlers, table.unsupported)


def test_every_value_model_is_lowered_by_spark_or_falls_back_whole() -> None:
    pytest.importorskip("pyspark")
    from msgfilter.backends.spark import NOT_NATIVE, TABLES, TAG_LOWERINGS

    assert set(TABLES) == {
        ValueModel.JMS, ValueModel.ACTIVEMQ, ValueModel.ROCKETMQ, ValueModel.AMQP
    }
    assert set(TAG_LOWERINGS) == {ValueModel.ROCKETMQ_TAG, ValueModel.PULSAR_TAG}
    assert set(NOT_NATIVE) == {ValueModel.ARTEMIS, ValueModel.QPID}
    # AMQP property filters, like tag filters, are lowered whole (no tree).
    assert set(TABLES) | set(TAG_LOWERINGS) | NOT_NATIVE | {ValueModel.AMQP_PROPERTY} == set(
        ValueModel
    )


def test_spark_lowers_between_once_through_each_models_comparison() -> None:
    pytest.importorskip("pyspark")
    from msgfilter.backends.spark import TABLES, activemq
    from msgfilter.backends.spark import compiler as spark_compiler

    for model, table in TABLES.items():
        if model is ValueModel.AMQP:
            # amqp-sql's grammar has no BETWEEN.
            assert n.Between not in table.handlers and n.Between not in dialects.node_kinds(model)
            continue
        # ActiveMQ's comparisons depend on the filter's convert_string_expressions flag,
        # which only its own handler (the same rule, backends/between.py) can pass.
        own = activemq.between if model is ValueModel.ACTIVEMQ else spark_compiler.between
        assert table.handlers[n.Between] is own


def test_arrow_and_spark_sort_their_types_into_the_same_classes() -> None:
    pytest.importorskip("pyspark")
    from pyspark.sql import types as T

    from msgfilter.backends.spark.schema import conversion as spark_conversion

    pairs = [
        (pa.int8(), T.ByteType(), tables.INTEGER),
        (pa.int16(), T.ShortType(), tables.INTEGER),
        (pa.int32(), T.IntegerType(), tables.INTEGER),
        (pa.int64(), T.LongType(), tables.INT64),
        (pa.float32(), T.FloatType(), tables.FLOAT),
        (pa.float64(), T.DoubleType(), tables.FLOAT64),
        (pa.string(), T.StringType(), tables.TEXT),
        (pa.bool_(), T.BooleanType(), tables.BOOL),
        (pa.null(), T.NullType(), tables.VOID),
        (pa.decimal128(10, 2), T.DecimalType(10, 2), tables.OPAQUE),
        (pa.timestamp("us"), T.TimestampType(), tables.OPAQUE),
        (pa.binary(), T.BinaryType(), tables.OPAQUE),
    ]
    for arrow_type, spark_type, rule in pairs:
        assert arrow_conversion(arrow_type) == rule, arrow_type
        assert spark_conversion(spark_type) == rule, spark_type
    assert arrow_conversion(pa.uint64()) == tables.UINT64
