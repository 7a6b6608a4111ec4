"""msgfilter.layout: the message-to-columns rules the Arrow and Spark backends share."""

from __future__ import annotations

import pytest

from msgfilter import layout as tables
from msgfilter.layout import Layout, Source

NAMES = ["a", "b", "properties", "tags", "keys", "b"]


def test_a_typed_column_is_read_by_its_own_name() -> None:
    assert tables.resolve("a", NAMES, Layout()) == Source("a", column="a")


def test_other_names_read_the_properties_map() -> None:
    assert tables.resolve("x", NAMES, Layout()) == Source("x", map_column="properties")
    # Identifiers are case-sensitive.
    assert tables.resolve("A", NAMES, Layout()) == Source("A", map_column="properties")


def test_untyped_layouts_and_reserved_columns_read_the_map() -> None:
    assert tables.resolve("a", NAMES, Layout(typed=False)).column is None
    assert tables.resolve("a", NAMES, Layout(exclude=frozenset({"a"}))).column is None
    assert tables.resolve("tags", NAMES, Layout()) == Source("tags", map_column="properties")


def test_tags_and_keys_fall_back_to_their_columns() -> None:
    layout = Layout(keys_column="keys")
    tags = tables.resolve("TAGS", NAMES, layout)
    assert tags == Source("TAGS", map_column="properties", fallback_column="tags")
    assert not tags.joins_keys
    keys = tables.resolve("KEYS", NAMES, layout)
    assert keys == Source("KEYS", map_column="properties", fallback_column="keys")
    assert keys.joins_keys
    # No keys column in the layout (the default), or none in the table: the map only.
    assert tables.resolve("KEYS", NAMES, Layout()).fallback_column is None
    assert tables.resolve("KEYS", ["a"], layout).always_null


def test_nothing_to_read_is_always_null() -> None:
    source = tables.resolve("x", ["a"], Layout())
    assert source.always_null
    assert not tables.resolve("x", NAMES, Layout()).always_null


def test_typed_columns_in_order_without_repeats_or_reserved_ones() -> None:
    assert Layout().typed_columns(NAMES) == ("a", "b", "keys")
    assert Layout(keys_column="keys").typed_columns(NAMES) == ("a", "b")
    assert Layout(typed=False).typed_columns(NAMES) == ()


def test_case_twins() -> None:
    assert tables.case_twins(["a", "A", "b", "c", "c"]) == {"a", "A", "c"}
    assert tables.case_twins(["a", "b"]) == frozenset()


@pytest.mark.parametrize(
    ("value", "expected"),
    [("k1 k2", "k1 k2"), (["k1", "k2"], "k1 k2"), ([], None), (["k", None], None), (None, None)],
)
def test_join_keys(value: object, expected: object) -> None:
    assert tables.join_keys(value) == expected


def test_layout_errors_name_the_column_and_type() -> None:
    error = tables.properties_type_error("p", "int64")
    assert isinstance(error, tables.LayoutError)
    assert "'p' is int64" in str(error)
    assert "keys column 'k' is int64" in str(tables.keys_type_error("k", "int64"))
