"""Identifiers resolved against one DataFrame schema: where `msgfilter.layout.resolve`
says, with the selector kind `msgfilter.layout`' type classes give each Spark type."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ... import layout as tables
from ...layout import KIND_NAMES, NULL, STRING, Conversion, Layout, LayoutError
from .errors import Fallback
from .values import SPARK_TYPES, V, null


def column_ref(name: str) -> Column:
    """A reference to the top-level column `name`, whatever characters it holds."""
    return F.col("`" + name.replace("`", "``") + "`")


def conversion(dtype: T.DataType) -> Conversion:
    """The type class of a Spark type."""
    if isinstance(dtype, T.LongType):
        return tables.INT64
    if isinstance(dtype, T.ByteType | T.ShortType | T.IntegerType):
        return tables.INTEGER
    if isinstance(dtype, T.DoubleType):
        return tables.FLOAT64
    if isinstance(dtype, T.FloatType):
        return tables.FLOAT
    if isinstance(dtype, T.StringType | T.CharType | T.VarcharType):
        return tables.TEXT
    if isinstance(dtype, T.BooleanType):
        return tables.BOOL
    if isinstance(dtype, T.NullType):
        return tables.VOID
    return tables.OPAQUE


def _collation(dtype: T.DataType) -> str:
    """A string type's collation (UTF8_BINARY, Spark's default, for any other type)."""
    return str(getattr(dtype, "collation", "UTF8_BINARY"))


def exact(col: Column, dtype: T.DataType) -> Column:
    """Strings of type `dtype` compared exactly (UTF8_BINARY): a case-insensitive
    collation would change `=`, `IN` and `startswith`, and selectors and tags compare
    as Java's `equals` does."""
    if _collation(dtype) != "UTF8_BINARY":
        return F.collate(col, "UTF8_BINARY")
    return col


def typed(col: Column, dtype: T.DataType) -> V:
    """A column's values with the selector kind its Spark type gives them."""
    rule = conversion(dtype)
    kind = rule.kind
    if kind == NULL:
        return null(NULL)
    if kind == STRING:
        return V(exact(col, dtype), STRING)
    if rule.widen:
        col = col.cast(SPARK_TYPES[kind])
    return V(col, kind, may_nan=kind == tables.DOUBLE)


def type_name(dtype: T.DataType) -> str:
    return str(dtype.simpleString())


def check_properties_type(column: str, dtype: T.DataType) -> None:
    """LayoutError unless `dtype` is a map keyed by strings compared exactly."""
    if not isinstance(dtype, T.MapType) or not isinstance(dtype.keyType, T.StringType):
        raise tables.properties_type_error(column, type_name(dtype))
    collation = _collation(dtype.keyType)
    if collation != "UTF8_BINARY":
        # Spark looks keys up in the keys' collation, where property names are exact.
        raise LayoutError(
            f"column {column!r} is {type_name(dtype)}: its keys are compared by collation "
            f"{collation}, property names exactly; cast it to map<string, ...> "
            f"(col({column!r}).cast(...)) with UTF8_BINARY keys"
        )


#: A column's values as a lowered value of the Spark type's selector kind (`typed`; the
#: activemq table gives them their Java class instead).
Typer = Callable[[Column, T.DataType], V]


def _keys_text(column: str, col: Column, dtype: T.DataType, typer: Typer = typed) -> V:
    """KEYS from a keys column: a string as it is, a list of strings joined by spaces
    (NULL when empty or holding a NULL), as the Arrow backend reads it."""
    if isinstance(dtype, T.StringType):
        return typer(col, dtype)
    if isinstance(dtype, T.ArrayType) and isinstance(dtype.elementType, T.StringType):
        bad = (F.size(col) == 0) | F.exists(col, lambda x: x.isNull())
        return V(F.when(~bad, F.array_join(col, " ")), STRING)
    raise tables.keys_type_error(column, type_name(dtype))


def _case_sensitive() -> bool:
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is None:
        return False
    return str(session.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"


class Schema:
    """Identifier resolution against one schema and layout (the Layout rules), with an
    account of where each identifier was read from (`bindings`)."""

    def __init__(self, schema: T.StructType, layout: Layout) -> None:
        self.layout = layout
        self.names = [f.name for f in schema.fields]
        self.fields: dict[str, T.DataType] = {}
        for f in schema.fields:
            # With several columns of one name, the first (as the Arrow backend).
            self.fields.setdefault(f.name, f.dataType)
        self.twins = tables.case_twins(self.names)
        props = layout.properties_column
        self.props: tuple[str, T.MapType] | None = None
        if props is not None and props in self.fields:
            dtype = self.fields[props]
            check_properties_type(props, dtype)
            self.props = (props, dtype)  # type: ignore[assignment]
        self.bindings: dict[str, str] = {}

    def typed_names(self) -> tuple[str, ...]:
        """Top-level columns read as properties by their own name."""
        return self.layout.typed_columns(self.names)

    def _column(self, name: str, typer: Typer) -> V:
        dtype = self.fields[name]
        if name in self.twins and not _case_sensitive():
            raise LayoutError(
                f"column {name!r} differs from another column only in letter case, and "
                "Spark resolves names without case: set spark.sql.caseSensitive=true"
            )
        self.bindings[name] = f"column {name!r} ({type_name(dtype)})"
        return typer(column_ref(name), dtype)

    def resolve_field(self, field: str, typer: Typer = typed) -> V | None:
        """AMQP field `field` (its spec name) from the column of its qualified name
        (`tables.resolve_field`); None where no column holds it."""
        source = tables.resolve_field(field, self.names, self.layout)
        if source.column is None:
            return None
        return self._column(source.column, typer)

    def resolve(self, name: str, typer: Typer = typed) -> V:
        source = tables.resolve(name, self.names, self.layout)
        if source.column is not None:
            return self._column(name, typer)
        from_map: V | None = None
        if self.props is not None:
            column, mtype = self.props
            from_map = typer(F.try_element_at(column_ref(column), F.lit(name)), mtype.valueType)
        fallback_column = source.fallback_column
        if fallback_column is None:
            if from_map is None:
                self.bindings[name] = "nothing: always NULL"
                return null(NULL)
            self.bindings[name] = self._map_text(name)
            return from_map
        ftype = self.fields[fallback_column]
        fcol = column_ref(fallback_column)
        fallback = (
            _keys_text(fallback_column, fcol, ftype, typer) if source.joins_keys
            else typer(fcol, ftype)
        )
        where = f"column {fallback_column!r} ({type_name(ftype)})"
        if from_map is None:
            self.bindings[name] = where
            return fallback
        self.bindings[name] = f"{self._map_text(name)}, else {where}"
        if from_map.kind != fallback.kind and NULL not in (from_map.kind, fallback.kind):
            raise Fallback(
                f"{name} is {_kind_name(from_map.kind)} in some rows and "
                f"{_kind_name(fallback.kind)} in others"
            )
        assert self.props is not None
        has_key = F.map_contains_key(column_ref(self.props[0]), F.lit(name))
        # The map wins where it has the key at all (tables.Source).
        kind = fallback.kind if from_map.kind == NULL else from_map.kind
        return V(
            F.when(has_key, from_map.col).otherwise(fallback.col), kind,
            may_nan=from_map.may_nan or fallback.may_nan,
        )

    def _map_text(self, name: str) -> str:
        assert self.props is not None
        column, mtype = self.props
        return f"{column}[{name!r}] ({type_name(mtype.valueType)})"


def _kind_name(kind: str) -> str:
    # The activemq table's kinds are Java class names (activemq_values.py).
    return KIND_NAMES.get(kind, f"a Java {kind}")
