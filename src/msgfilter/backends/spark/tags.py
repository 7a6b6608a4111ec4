"""Tag filters as native Columns: RocketMQ's tag set against `TAGS`, Pulsar's anytag /
alltag against the `tag*` properties."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from functools import reduce

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ...filter import Filter
from ...layout import STRING
from ...message import TAGS_PROPERTY
from ...semantics.model import ValueModel
from ...tags.pulsar import PulsarTagFilter
from ...tags.rocketmq import RocketMQTagFilter
from .schema import Schema, column_ref, exact


def rocketmq_tags(f: Filter, schema: Schema) -> Column:
    if not isinstance(f, RocketMQTagFilter):  # pragma: no cover - the model says it is
        raise TypeError(f"{f!r} is no RocketMQ tag filter")
    if f.subscribe_all:
        return F.lit(True)
    tag = schema.resolve(TAGS_PROPERTY)
    if not f.tags or tag.kind != STRING:
        # The client's re-check wants a string tag in the set; nothing else passes.
        return F.lit(False)
    return F.coalesce(tag.col.isin(*sorted(f.tags)), F.lit(False))


@dataclass(frozen=True, slots=True)
class TagSources:
    """Where a Pulsar tag filter's message tags come from on one schema (the Layout
    rule), for the native Column and the fallback's inputs alike."""

    prefix: str
    #: The columns whose name has the prefix: each, of any type, shadows the map entry
    #: of its name.
    shadowing: tuple[str, ...]
    #: Those of them holding strings: tags too.
    columns: tuple[str, ...]
    #: The properties map (name, type) when its values are strings, else None.
    props: tuple[str, T.MapType] | None

    def is_tag_key(self, key: Column) -> Column:
        """Whether a map entry of this key can hold a tag: the prefix, no shadow."""
        keep = key.startswith(self.prefix)
        return keep & ~key.isin(*self.shadowing) if self.shadowing else keep


def tag_sources(f: PulsarTagFilter, schema: Schema) -> TagSources:
    """Where `f`'s tags come from on `schema`."""
    prefix = f.reads_prefix
    shadowing = tuple(name for name in schema.typed_names() if name.startswith(prefix))
    columns = tuple(name for name in shadowing if isinstance(schema.fields[name], T.StringType))
    props = schema.props
    if props is not None and not isinstance(props[1].valueType, T.StringType):
        props = None
    return TagSources(prefix, shadowing, columns, props)


def pulsar_tags(f: Filter, schema: Schema) -> Column:
    if not isinstance(f, PulsarTagFilter):  # pragma: no cover - the model says it is
        raise TypeError(f"{f!r} is no Pulsar tag filter")
    if not (f.any_tags or f.all_tags):
        return F.lit(True)
    tags = tag_sources(f, schema)
    props: Column | None = None
    sources = [f"column {name!r}" for name in tags.columns]
    if tags.props is not None:
        props = column_ref(tags.props[0])
        value_type = tags.props[1].valueType
        sources.insert(0, f"{tags.props[0]}[key starting with {tags.prefix!r}]")
    schema.bindings["(message tags)"] = ", ".join(sources) or "nothing: no tags"

    def has_tag(values: list[str]) -> Column:
        """TRUE where one of `values` is a message tag, else FALSE (never NULL)."""
        found: list[Column] = []
        if props is not None:

            stored = F.map_values(props)

            def entry(key: Column, at: Column) -> Column:
                value = exact(F.get(stored, at), value_type)
                return tags.is_tag_key(key) & value.isin(*values)

            # A pass over the map's keys reading each value by its index, not `exists`
            # over `map_entries`, which builds a struct per entry and row (ten-value
            # anytag, 1M rows: 0.520 -> 0.377 s), nor `size(map_filter(...)) > 0`: Spark
            # has no generated code for map_filter, so a Filter holding it leaves
            # whole-stage code generation and runs interpreted, building a new map per
            # row (the 7.9x of issue 14). A NULL value (no match) and a NULL map are FALSE.
            entries = F.coalesce(F.size(F.filter(F.map_keys(props), entry)) > 0, F.lit(False))
            # A cheap first test on the values alone skips most rows: a linear
            # `array_contains` per value for a few values (`arrays_overlap` cost more
            # than the exact pass it guards), one `exists` pass with IN for more (ten
            # `array_contains` cost twice the pass). It is NULL where no value matches
            # and one is NULL, and a NULL value is no tag: FALSE then is the answer.
            # (In the values' own collation: a looser test only lets more rows through.)
            typed_values = [F.lit(value).cast(value_type) for value in values]
            if len(values) <= _CONTAINS_MAX:
                maybe = reduce(operator.or_, [
                    F.array_contains(stored, value) for value in typed_values
                ])
            else:
                maybe = F.exists(stored, lambda value: value.isin(*typed_values))
            found.append(F.when(maybe, entries).otherwise(F.lit(False)))
        found.extend(
            F.coalesce(exact(column_ref(name), schema.fields[name]).isin(*values), F.lit(False))
            for name in tags.columns
        )
        return reduce(operator.or_, found) if found else F.lit(False)

    def has_all(values: list[str]) -> Column:
        """TRUE where every one of `values` is a message tag, else FALSE: one pass over
        the map's entries setting a bit per value found (a test per value would be one
        pass each), behind the values-only pre-test of `has_tag`, ANDed."""
        full = (1 << len(values)) - 1

        def bits(value: Column) -> Column:
            found = F.when(value == F.lit(values[0]), F.lit(1))
            for number, text in enumerate(values[1:], 1):
                found = found.when(value == F.lit(text), F.lit(1 << number))
            return found.otherwise(F.lit(0)).cast(T.LongType())

        masks = [F.coalesce(bits(exact(column_ref(name), schema.fields[name])), F.lit(0))
                 for name in tags.columns]
        if props is not None:

            def add(mask: Column, pair: Column) -> Column:
                found = F.when(tags.is_tag_key(pair["key"]),
                               bits(exact(pair["value"], value_type)))
                return mask.bitwiseOR(F.coalesce(found, F.lit(0).cast(T.LongType())))

            start = F.lit(0).cast(T.LongType())
            masks.append(F.coalesce(F.aggregate(F.map_entries(props), start, add), start))
        if not masks:
            return F.lit(False)
        exact_test = reduce(lambda a, b: a.bitwiseOR(b), masks) == F.lit(full)
        if props is None:
            return exact_test
        # The pass over the entries only where every value is among the map's values or
        # a tag column's (a looser test: a value under another key passes it), whatever
        # the columns: without it every row pays for the pass.
        stored = F.map_values(props)
        column_values = [exact(column_ref(name), schema.fields[name]) for name in tags.columns]

        def somewhere(value: str) -> Column:
            held = F.coalesce(F.array_contains(stored, F.lit(value).cast(value_type)),
                              F.lit(False))
            return reduce(operator.or_, [held, *(
                F.coalesce(c == F.lit(value), F.lit(False)) for c in column_values)])

        maybe = reduce(operator.and_, [somewhere(value) for value in values])
        return F.when(maybe, exact_test).otherwise(F.lit(False))

    tests: list[Column] = []
    if f.any_tags:
        tests.append(has_tag(sorted(f.any_tags)))
    all_tags = sorted(f.all_tags)
    if 1 < len(all_tags) <= _MASK_BITS:
        tests.append(has_all(all_tags))
    else:
        tests.extend(has_tag([tag]) for tag in all_tags)
    return reduce(operator.and_, tests)


#: The most `alltag` values one pass tracks (the bits of a long that stay positive).
_MASK_BITS = 62
#: The most `anytag` values whose values-only pre-test is an `array_contains` each;
#: above it, one `exists` pass (1M demo rows, JVM CPU: 2 values 0.47 s against 0.69 s,
#: 10 values 1.48 s against 0.69 s).
_CONTAINS_MAX = 4


def tag_texts(f: Filter) -> frozenset[str]:
    """The tag values a tag filter compares (every one must be a Spark string)."""
    if isinstance(f, RocketMQTagFilter):
        return f.tags
    if isinstance(f, PulsarTagFilter):
        return f.any_tags | f.all_tags
    raise TypeError(f"{f!r} is no tag filter")  # pragma: no cover - the model says it is


#: Tag value model -> its lowering.
TAG_LOWERINGS: dict[ValueModel, Callable[[Filter, Schema], Column]] = {
    ValueModel.ROCKETMQ_TAG: rocketmq_tags,
    ValueModel.PULSAR_TAG: pulsar_tags,
}
