"""Pulsar anytag / alltag filters: the ConsumerFilter proposal's examples, metadata, the
`pulsar-tag` text syntax, equality, pickling and `compile` integration."""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Mapping

import pytest

import msgfilter
from msgfilter import FilterError, FilterLimitError, FilterSyntaxError, Limits, Message
from msgfilter.tags import (
    PulsarTagFilter,
    message_tags,
    parse_pulsar_tags,
    pulsar_tag_filter,
    unparse_pulsar_tags,
)


def pulsar(text: str) -> PulsarTagFilter:
    f = msgfilter.compile(text, dialect="pulsar-tag")
    assert isinstance(f, PulsarTagFilter)
    return f


# --- the proposal's examples, built from consumer metadata -----------------------------

def test_anytag_example() -> None:
    f = pulsar_tag_filter({"anytag1": "a", "anytag2": "b"})
    assert f.matches({"tag1": "a"}) is True
    assert f.matches({"tagX": "b"}) is True
    assert f.matches({"tag1": "c"}) is False
    assert f.matches({"other": "a"}) is False  # no tag properties
    assert f.matches({}) is False


def test_alltag_example() -> None:
    f = pulsar_tag_filter({"alltag1": "a", "alltag2": "b"})
    assert f.matches({"tag1": "a", "tag2": "b", "tag3": "c"}) is True
    assert f.matches({"tag1": "a"}) is False
    assert f.matches({}) is False


def test_mixed_example() -> None:
    f = pulsar_tag_filter({"anytag1": "x", "anytag2": "y", "alltag1": "eu"})
    assert f.matches({"tag1": "x", "tag2": "eu"}) is True
    assert f.matches({"tag1": "y", "tag9": "eu", "tag3": "z"}) is True
    assert f.matches({"tag1": "x"}) is False
    assert f.matches({"tag1": "eu"}) is False


@pytest.mark.parametrize("metadata", [{}, {"other": "1"}, {"AnyTag1": "a"}, {"tag1": "a"}])
def test_metadata_without_tag_keys_filters_nothing(metadata: dict[str, str]) -> None:
    f = pulsar_tag_filter(metadata)
    assert f.any_tags == frozenset()
    assert f.all_tags == frozenset()
    for message in ({}, {"tag1": "a"}, {"x": 1}, Message(), None):
        assert f.matches(message) is True
    assert f.unparse() == ""
    assert f == pulsar("")


@pytest.mark.parametrize(
    "properties",
    [{"mytag": "a"}, {"Tag1": "a"}, {"TAG1": "a"}, {"xtag": "a"}, {"ta": "a"}, {1: "a"}],
)
def test_only_keys_starting_with_lowercase_tag_are_tags(properties: dict[object, str]) -> None:
    f = pulsar_tag_filter({"anytag1": "a"})
    assert f.matches(properties) is False


@pytest.mark.parametrize("key", ["tag", "tag1", "tags", "tag_region", "tagged"])
def test_any_key_starting_with_tag_is_a_tag(key: str) -> None:
    assert pulsar_tag_filter({"anytag1": "a"}).matches({key: "a"}) is True


def test_metadata_key_prefixes_are_case_sensitive_and_free_after_the_prefix() -> None:
    f = pulsar_tag_filter(
        {"anytag": "a", "anytag_2": "b", "ANYTAG3": "c", "alltagZ": "d", "allTag": "e", "x": "f"}
    )
    assert f.ordered_any_tags == ("a", "b")
    assert f.ordered_all_tags == ("d",)


def test_metadata_values_must_be_strings() -> None:
    with pytest.raises(FilterError, match="anytag1"):
        pulsar_tag_filter({"anytag1": 5})  # type: ignore[dict-item]
    # Non-tag entries are not looked at.
    assert pulsar_tag_filter({"other": 5}).any_tags == frozenset()  # type: ignore[dict-item]


def test_overlap_between_any_and_all_is_allowed() -> None:
    f = PulsarTagFilter(any_tags=["a", "b"], all_tags=["a"])
    assert f.matches({"tag1": "a"}) is True
    assert f.matches({"tag1": "b"}) is False
    assert f == PulsarTagFilter(all_tags=["a"])
    assert hash(f) == hash(PulsarTagFilter(all_tags=["a"]))


def test_messages_and_odd_data() -> None:
    f = PulsarTagFilter(any_tags=["a"], all_tags=["eu"])
    assert f.matches(Message(properties={"tag1": "a", "tag2": "eu"})) is True
    assert f.matches(Message(properties={"tag1": "a"}, headers={"tag2": "eu"})) is True
    for odd in (
        {"tag1": ["a"]}, {"tag1": None}, {"tag1": 1, "tag2": {"eu": 1}}, {None: "a"},
        None, 42, "tag1", [("tag1", "a")],
    ):
        assert f.matches(odd) is False
        assert pulsar_tag_filter({"anytag": "a"}).matches(odd) is False
        assert pulsar_tag_filter({"alltag": "a"}).matches(odd) is False
    assert message_tags({"tag1": "a", "tag2": 3, "x": "b", "tag3": "c"}) == {"a", "c"}
    assert message_tags(None) == frozenset()


def test_evaluate_is_two_valued() -> None:
    f = pulsar("anytag: a")
    assert f.evaluate({"tag": "a"}) is True
    assert f.evaluate({}) is False


# --- the constructor ---------------------------------------------------------------------

def test_constructor_and_attributes() -> None:
    f = PulsarTagFilter(any_tags=["x", "y", "x"], all_tags=("eu",))
    assert f.any_tags == {"x", "y"}
    assert f.all_tags == {"eu"}
    assert f.ordered_any_tags == ("x", "y")
    assert f.text == "anytag: x, y; alltag: eu"
    assert f.identifiers == frozenset()
    assert f.reads_prefix == "tag"
    assert f.dialect == "pulsar-tag"
    assert f == pulsar("alltag: eu; anytag: y, x")


def test_constructor_rejects_a_lone_string_and_non_strings() -> None:
    with pytest.raises(TypeError, match="not one string"):
        PulsarTagFilter(any_tags="abc")
    with pytest.raises(TypeError, match="strings"):
        PulsarTagFilter(all_tags=[1])  # type: ignore[list-item]


def test_constructor_limits() -> None:
    with pytest.raises(FilterLimitError) as err:
        PulsarTagFilter(any_tags=["a", "b", "c"], limits=Limits(max_in_items=2))
    assert err.value.text == "anytag: a, b, c"
    assert err.value.offset == 14


# --- the text syntax ---------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "any_tags", "all_tags"),
    [
        ("", (), ()),
        ("   \n ", (), ()),
        (";;", (), ()),
        ("anytag: urgent, compressed; alltag: eu", ("urgent", "compressed"), ("eu",)),
        ("  ANYTAG:urgent ,compressed ;AllTag :eu ; ", ("urgent", "compressed"), ("eu",)),
        ("alltag: a; alltag: b, a", (), ("a", "b")),
        ("anytag: 'New York', 'a,b', 'x;y', 'it''s', ''", ("New York", "a,b", "x;y", "it's", ""),
         ()),
        ("anytag: ''''", ("'",), ()),
        ("anytag: a:b, priority=urgent, é", ("a:b", "priority=urgent", "é"), ()),
        ("anytag:\ta\n,\tb", ("a", "b"), ()),
    ],
)
def test_text_syntax(text: str, any_tags: tuple[str, ...], all_tags: tuple[str, ...]) -> None:
    assert parse_pulsar_tags(text) == (any_tags, all_tags)
    f = pulsar(text)
    assert f.ordered_any_tags == any_tags
    assert f.ordered_all_tags == all_tags
    assert pulsar(f.unparse()) == f
    assert pulsar(f.unparse()).ordered_any_tags == any_tags


@pytest.mark.parametrize(
    ("text", "offset", "message"),
    [
        ("foo: a", 0, "unknown clause 'foo'"),
        ("anytag1: a", 0, "unknown clause"),
        ("anytag a", 7, "expected ':'"),
        ("anytag", 6, "expected ':'"),
        ("anytag:", 7, "expected a value"),
        ("anytag: a,", 10, "expected a value"),
        ("anytag: a,,b", 10, "expected a value"),
        ("anytag: ;", 8, "expected a value"),
        ("anytag: a b", 10, "expected ',' or ';'"),
        ("anytag: 'a'b", 11, "expected ',' or ';'"),
        ("anytag: a'b'", 9, "expected ',' or ';'"),
        ("anytag: 'abc", 8, "unterminated"),
        ("anytag: 'a''", 8, "unterminated"),
        ("anytag: a; : b", 11, "expected a clause"),
        ("'anytag': a", 0, "expected a clause"),
    ],
)
def test_syntax_errors_point_at_the_fault(text: str, offset: int, message: str) -> None:
    with pytest.raises(FilterSyntaxError) as err:
        pulsar(text)
    assert err.value.offset == offset
    assert message in err.value.message
    assert err.value.expected
    assert "^" in str(err.value)


def test_text_limits() -> None:
    with pytest.raises(FilterLimitError) as err:
        msgfilter.compile("alltag: a, b, a, c", dialect="pulsar-tag", limits=Limits(max_in_items=2))
    assert err.value.offset == 17
    with pytest.raises(FilterLimitError):
        msgfilter.compile("anytag: abc", dialect="pulsar-tag", limits=Limits(max_length=5))


def test_non_text_is_a_filter_error() -> None:
    with pytest.raises(FilterError):
        PulsarTagFilter.from_text(None)  # type: ignore[arg-type]


def test_unparse_canonical_form() -> None:
    assert pulsar(" AllTag : b ; anytag:a ").unparse() == "anytag: a; alltag: b"
    assert unparse_pulsar_tags(("a b", ""), ()) == "anytag: 'a b', ''"
    assert unparse_pulsar_tags((), ()) == ""


# --- equality, pickling, the cache, explain -------------------------------------------

def test_equality() -> None:
    assert pulsar("anytag: a, b") == pulsar("anytag: b; anytag: a")
    assert pulsar("anytag: a") != pulsar("alltag: a")
    assert pulsar("anytag: a") != pulsar("anytag: A")
    assert pulsar("") == PulsarTagFilter()
    assert pulsar("anytag: a") != msgfilter.compile("a", dialect="rocketmq-tag")


def test_compile_uses_the_cache() -> None:
    assert pulsar("anytag: cached") is pulsar("anytag: cached")


def test_pickle() -> None:
    built = pulsar_tag_filter({"anytag1": "it's, odd; \n", "alltag1": ""})
    again = pickle.loads(pickle.dumps(built))
    assert again == built
    assert again.ordered_any_tags == ("it's, odd; \n",)
    assert again.matches({"tag": "it's, odd; \n", "tag2": ""}) is True
    parsed = pulsar(" anytag : a ")
    assert pickle.loads(pickle.dumps(parsed)) is parsed


def test_immutable() -> None:
    f = pulsar("anytag: a")
    with pytest.raises(AttributeError):
        f.any_tags = frozenset()


def test_explain() -> None:
    text = pulsar("anytag: x, 'New York'; alltag: eu").explain()
    assert "any of (2): x, 'New York'" in text
    assert "all of (1): eu" in text
    assert "'tag'" in text
    assert "accepts every message" in pulsar("").explain()
    assert "moot" in PulsarTagFilter(any_tags=["a"], all_tags=["a"]).explain()


class _Raising(Mapping[str, object]):
    """A mapping whose reading raises, as a broken message wrapper might."""

    def __getitem__(self, key: str) -> object:
        raise RuntimeError("broken")

    def __iter__(self) -> Iterator[str]:
        return iter(["tag1"])

    def __len__(self) -> int:
        return 1


@pytest.mark.parametrize("text", ["anytag: a", "alltag: a", "anytag: a; alltag: b"])
def test_a_mapping_whose_reading_raises_matches_nothing(text: str) -> None:
    f = msgfilter.compile(text, "pulsar-tag")
    assert f.matches(_Raising()) is False
    assert message_tags(_Raising()) == frozenset()
