"""The entry point: a filter -> a boolean Column over frames of one schema, by the table
of its value model; a native lowering where one exists, the per-message Arrow UDF where
none does."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ...amqp.sql import AmqpSqlFilter
from ...filter import Filter
from ...layout import DEFAULT_LAYOUT, Layout
from ...selector import SelectorFilter
from ...semantics.model import ValueModel
from ...syntax import nodes as n
from . import activemq, amqp, jms, rocketmq
from .amqp_properties import lower_properties, property_texts
from .compiler import Lowering, Table
from .errors import Fallback
from .fallback import udf_column
from .schema import Schema
from .tags import TAG_LOWERINGS, tag_texts

#: SQL value model -> its native lowering table, built once.
TABLES: dict[ValueModel, Table] = {
    ValueModel.JMS: jms.TABLE,
    ValueModel.ACTIVEMQ: activemq.TABLE,
    ValueModel.ROCKETMQ: rocketmq.TABLE,
    ValueModel.AMQP: amqp.TABLE,
}

#: Value model -> (its lowering, the texts it compares) for the filters lowered whole,
#: without a tree: the tag filters and AMQP property filters.
FILTER_LOWERINGS: dict[
    ValueModel, tuple[Callable[[Filter, Schema], Column], Callable[[Filter], Iterable[str]]]
] = {
    **{model: (lowering, tag_texts) for model, lowering in TAG_LOWERINGS.items()},
    ValueModel.AMQP_PROPERTY: (lower_properties, property_texts),
}

#: The value models with neither a table nor a whole-filter lowering: their filters run
#: whole in the per-message Arrow UDF.
NOT_NATIVE: frozenset[ValueModel] = frozenset(ValueModel) - set(TABLES) - set(FILTER_LOWERINGS)


@dataclass(frozen=True, slots=True, eq=False)
class Lowered:
    """A filter lowered for one schema and layout."""

    #: The boolean Column: TRUE, FALSE or NULL (UNKNOWN) per row.
    column: Column
    #: Identifier -> where its value is read from.
    bindings: tuple[tuple[str, str], ...]
    #: (part of the expression, why) for each part evaluated in Python (an Arrow UDF);
    #: a part "*" is the whole filter.
    udf_parts: tuple[tuple[str, str], ...]

    @property
    def native(self) -> bool:
        return not self.udf_parts


def _spark_safe(text: str) -> bool:
    """Spark strings are UTF-8: text with a lone surrogate cannot be one."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _tree_strings(tree: n.Expr) -> Iterable[str]:
    stack: list[n.Node] = [tree]
    while stack:
        node = stack.pop()
        stack.extend(n.children(node))
        if isinstance(node, n.StringLit | n.StringTest):
            yield node.value
        elif isinstance(node, n.Ident):
            yield node.name
        elif isinstance(node, n.In):
            yield from node.items
        elif isinstance(node, n.Like):
            yield node.pattern


def _tree(f: Filter) -> n.Expr | None:
    if isinstance(f, AmqpSqlFilter):
        return f.tree
    if not isinstance(f, SelectorFilter):  # pragma: no cover - SQL models are selectors
        raise TypeError(f"{f!r} has the {f.model.value} value model but no selector tree")
    return f.tree


def _fallback_reason(f: Filter) -> str | None:
    """Why `f` as a whole cannot be native, or None."""
    texts: Iterable[str]
    if f.model in TABLES:
        tree = _tree(f)
        texts = () if tree is None else _tree_strings(tree)
    elif f.model in FILTER_LOWERINGS:
        texts = FILTER_LOWERINGS[f.model][1](f)
    else:
        return f"the {f.dialect!r} dialect has no native Spark lowering yet"
    if not all(map(_spark_safe, texts)):
        return "the expression holds text with a lone surrogate, which no Spark string holds"
    return None


def _require_spark() -> None:
    from pyspark import SparkContext
    from pyspark.sql.utils import is_remote

    if not is_remote() and SparkContext._active_spark_context is None:
        # pyspark would fail with a bare AssertionError deep inside F.col.
        raise RuntimeError(
            "msgfilter.spark builds Spark expressions: start a SparkSession first"
        )


def _native(f: Filter, schema: Schema) -> tuple[Column, list[tuple[str, str]]]:
    """The native Column and the parts of it that still run in Python; Fallback when
    the filter has no native form on this schema."""
    whole = FILTER_LOWERINGS.get(f.model)
    if whole is not None:
        return whole[0](f, schema), []
    tree = _tree(f)
    if tree is None:
        return F.lit(True), []
    lowering = Lowering(schema, f.text, TABLES[f.model])
    column = lowering.run(tree)
    return column, lowering.udf_parts


def lower(f: Filter, schema: T.StructType, layout: Layout = DEFAULT_LAYOUT) -> Lowered:
    """`f` as a boolean Column over frames of `schema`: native where Spark can express
    it, an Arrow UDF where it cannot. Raises LayoutError for a properties column that is
    not a map<string, ...>; never because of the data."""
    _require_spark()
    resolved = Schema(schema, layout)
    reason = _fallback_reason(f)
    column: Column | None = None
    parts: list[tuple[str, str]] = []
    if reason is None:
        try:
            column, parts = _native(f, resolved)
        except Fallback as fallback:
            reason = fallback.reason
    if reason is not None:
        column = udf_column(f, schema, layout)
        parts = [("*", reason)]
    assert column is not None
    return Lowered(column, tuple(sorted(resolved.bindings.items())), tuple(parts))
