"""How a message maps onto the columns of a table: the rules the Arrow and Spark backends
share, written once and applied by each with its own types.

A message archive is a table: top-level typed columns, a `properties` map column (string
keys, as brokers carry properties), a tags column and a keys column. `Layout` says which
is which; `resolve` says where one identifier's value is read from (a `Source`); the
`Conversion` table says which selector kind a column type's values take. Nothing here
imports pyarrow or pyspark: each backend names its own types by these rules
(`backends/arrow/columns.py`, `backends/spark/schema.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .message import AMQP_FIELDS_BY_NAME, KEYS_PROPERTY, TAGS_PROPERTY, amqp_field_name

# -- value kinds ----------------------------------------------------------------------------
# The selector types a column value can take (J21-J39): one letter each, short because the
# Arrow backend keys every value's parts by them.

#: A Java long.
LONG = "L"
#: A Java double.
DOUBLE = "D"
#: A string.
STRING = "S"
#: A boolean.
BOOLEAN = "B"
#: Always NULL (a column of no values at all).
NULL = "N"
#: A value of no selector type: unlike every value, NULL in arithmetic, FALSE as a condition.
OTHER = "O"
#: An AMQP binary (amqp-sql only: bytes, which it compares with strings by their UTF-8).
BINARY = "Y"

NUMERIC: frozenset[str] = frozenset({LONG, DOUBLE})

#: How explanations name each kind.
KIND_NAMES: dict[str, str] = {
    LONG: "a Java long", DOUBLE: "a Java double", STRING: "a string", BOOLEAN: "a boolean",
    NULL: "always NULL", OTHER: "no selector type", BINARY: "an AMQP binary",
}

#: The largest Java long: an unsigned 64-bit value above it is no selector value.
LONG_MAX = 2**63 - 1


@dataclass(frozen=True, slots=True)
class Opaque:
    """A column value of no selector type, as a message built from a table holds it
    (`msgfilter.arrow.messages`): unlike every value, NULL in arithmetic, FALSE as a
    condition (J21). amqp-sql reads the value inside as an AMQP value (a binary's bytes,
    an aware timestamp's milliseconds), as RabbitMQ holds it."""

    value: object


@dataclass(frozen=True, slots=True)
class Conversion:
    """How the values of one class of column types become selector values."""

    #: The selector kind of every non-null value.
    kind: str
    #: Values are cast exactly to the kind's type first (an int32 to a long; a float32 to a
    #: double exactly as Java widens a float, 1.1f is 1.100000023841858).
    widen: bool = False
    #: Only values within a Java long are of `kind`; larger ones have no selector type.
    long_range: bool = False


#: The type classes each backend sorts its column types into (the type table of
#: docs/arrow.md); any type no backend names here is OPAQUE.
INT64 = Conversion(LONG)
INTEGER = Conversion(LONG, widen=True)
UINT64 = Conversion(LONG, widen=True, long_range=True)
FLOAT64 = Conversion(DOUBLE)
FLOAT = Conversion(DOUBLE, widen=True)
TEXT = Conversion(STRING)
BOOL = Conversion(BOOLEAN)
VOID = Conversion(NULL)
OPAQUE = Conversion(OTHER)


# -- the layout -------------------------------------------------------------------------------


class LayoutError(ValueError):
    """The table does not have the shape the layout describes."""


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a table keeps the message properties a selector reads.

    An identifier resolves, for the whole table, to

    1. the top-level column of that name, when `typed` is true and the column is not
       one of the layout's own columns (`properties_column`, `tags_column`,
       `keys_column`) nor in `exclude` (with several columns of one name, the first);
    2. otherwise the value under that key in the `properties_column` map, in each row
       where the map has the key (the last entry wins if a key repeats), else NULL;
    3. `TAGS` and `KEYS` (RocketMQ) fall back, in rows whose map lacks the key, to
       `tags_column` and `keys_column` (a string, or a list of strings joined by
       spaces; an empty list is NULL);
    4. otherwise NULL.

    AMQP header and properties fields (amqp-sql's `header.priority`, `p.subject`) are no
    properties: each reads the top-level column named by its qualified name,
    `header.priority` or `properties.subject` (`typed` or not, unless that column is
    reserved), and nothing else; a message's `headers` hold them by their spec names.
    Such a column is never a property by its own name (`[header.priority]`, an
    application property of that name, reads only the map).

    Map values have the map's value type, normally string, as brokers carry them: in
    the `jms` dialect a string compared with a number is FALSE, exactly as for a
    message whose property is that string.
    """

    properties_column: str | None = "properties"
    typed: bool = True
    tags_column: str | None = "tags"
    keys_column: str | None = None
    exclude: frozenset[str] = frozenset()

    def reserved(self) -> frozenset[str]:
        """Top-level columns that are never read as properties by their name."""
        own = {self.properties_column, self.tags_column, self.keys_column} - {None}
        return self.exclude | frozenset(own)  # type: ignore[arg-type]

    def typed_columns(self, names: Iterable[str]) -> tuple[str, ...]:
        """The top-level columns (of `names`, in order) read as properties by their own
        name; a repeated name once (its first column is the one read)."""
        if not self.typed:
            return ()
        reserved = self.reserved()
        return tuple(dict.fromkeys(
            name for name in names if name not in reserved and name not in AMQP_FIELDS_BY_NAME
        ))

    def field_columns(self, names: Iterable[str]) -> tuple[tuple[str, str], ...]:
        """(column, field) for each top-level column (of `names`, in order) that holds an
        AMQP header or properties field: its qualified name and the field's spec name."""
        reserved = self.reserved()
        columns = dict.fromkeys(name for name in names if name in AMQP_FIELDS_BY_NAME)
        return tuple(
            (column, AMQP_FIELDS_BY_NAME[column]) for column in columns if column not in reserved
        )

    def fallback_column(self, name: str) -> str | None:
        """The column `TAGS` or `KEYS` falls back to (None for any other name)."""
        if name == TAGS_PROPERTY:
            return self.tags_column
        if name == KEYS_PROPERTY:
            return self.keys_column
        return None


DEFAULT_LAYOUT = Layout()


@dataclass(frozen=True, slots=True)
class Source:
    """Where one identifier's value is read from, for a whole table (rules 1-4 of
    `Layout`). With no column at all the value is NULL in every row."""

    name: str
    #: The top-level column read by the identifier's own name (then nothing else is read).
    column: str | None = None
    #: The properties map column whose entry `name` is read.
    map_column: str | None = None
    #: The tags or keys column read in rows whose map lacks the key (the map wins where it
    #: has the key at all, even with a NULL value, as `Message.view` lets a property shadow
    #: the tag).
    fallback_column: str | None = None

    @property
    def joins_keys(self) -> bool:
        """The fallback column holds keys: a list of strings is joined by spaces."""
        return self.fallback_column is not None and self.name == KEYS_PROPERTY

    @property
    def always_null(self) -> bool:
        return self.column is None and self.map_column is None and self.fallback_column is None


def reads_column(name: str, names: Sequence[str], layout: Layout) -> bool:
    """Rule 1 of `Layout`: identifier `name` reads the top-level column of that name."""
    return (
        layout.typed and name in names and name not in layout.reserved()
        and name not in AMQP_FIELDS_BY_NAME
    )


def resolve_field(field: str, names: Sequence[str], layout: Layout) -> Source:
    """Where AMQP field `field` (its spec name: `priority`, `subject`) is read from in
    tables whose columns are `names`: the column of its qualified name, or nothing."""
    column = amqp_field_name(field)
    if column in names and column not in layout.reserved():
        return Source(column, column=column)
    return Source(column)


def resolve(name: str, names: Sequence[str], layout: Layout) -> Source:
    """Where identifier `name` is read from in tables whose columns are `names`.
    Identifiers are case-sensitive: `a` never reads a column `A`."""
    if reads_column(name, names, layout):
        return Source(name, column=name)
    props = layout.properties_column
    map_column = props if props is not None and props in names else None
    fallback = layout.fallback_column(name)
    if fallback is not None and fallback not in names:
        fallback = None
    return Source(name, map_column=map_column, fallback_column=fallback)


def case_twins(names: Iterable[str]) -> frozenset[str]:
    """The names that differ from another one only in letter case: an engine that
    resolves names without case (Spark by default) cannot tell them apart."""
    counts: dict[str, int] = {}
    listed = list(names)
    for name in listed:
        counts[name.lower()] = counts.get(name.lower(), 0) + 1
    return frozenset(name for name in listed if counts[name.lower()] > 1)


def properties_type_error(column: str, type_name: str) -> LayoutError:
    """The error for a properties column that is no map keyed by strings."""
    return LayoutError(
        f"column {column!r} is {type_name}, not a map<string, ...> of properties; "
        "name the map column with Layout(properties_column=...) or pass None"
    )


def keys_type_error(column: str, type_name: str) -> LayoutError:
    """The error for a keys column that is neither a string nor a list of strings."""
    return LayoutError(f"keys column {column!r} is {type_name}, not a string or a list of strings")


def join_keys(value: object) -> object:
    """KEYS from one keys-column value: a string as it is, a list of strings joined by
    spaces, NULL for an empty list or one holding anything but strings."""
    if isinstance(value, list):
        ok = value and all(type(key) is str for key in value)
        return " ".join(value) if ok else None
    return value
