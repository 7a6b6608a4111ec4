"""Planning by shape (msgfilter.index.shape_plans): a filter served from its shape's
template is planned from its literals without building its tree, and its plan is the one
planning the whole pipeline's filter gives; entries are shared by shape and literals."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from msgfilter import FilterError, SubscriptionIndex, dialects
from msgfilter.engine import compile_unshaped
from msgfilter.index.clauses import plan_clauses
from msgfilter.index.entries import identity
from msgfilter.selector import SelectorFilter
from msgfilter.syntax import nodes as n
from msgfilter.testing import messages, property_settings, selectors
from shape_texts import CASES, siblings


def _both(text: str, dialect: str) -> tuple[Any, Any] | None:
    try:
        shaped = dialects.get(dialect).build(text)
        full = compile_unshaped(text, dialect)
    except FilterError:
        return None
    return shaped, full


def assert_same_plan(text: str, dialect: str) -> SelectorFilter | None:
    found = _both(text, dialect)
    if found is None:
        return None
    shaped, full = found
    assert plan_clauses(shaped) == plan_clauses(full), text
    assert identity(shaped) == identity(dialects.get(dialect).build(text))
    assert isinstance(shaped, SelectorFilter)
    return shaped


@pytest.mark.parametrize(("dialect", "text"), CASES)
@given(data=st.data())
@property_settings(share=0.3)
def test_swapped_literals_plan_alike(dialect: str, text: str, data: st.DataObject) -> None:
    first = dialects.get(dialect).build(text)
    plan_clauses(first)  # the shape's recipe is known from here on
    assert_same_plan(data.draw(siblings(text, dialect)), dialect)


@given(selectors("jms"), st.data())
@property_settings()
def test_random_selectors_plan_alike(text: str, data: st.DataObject) -> None:
    assert_same_plan(text, "jms")
    assert_same_plan(data.draw(siblings(text, "jms")), "jms")


def test_a_known_shape_is_planned_without_its_tree() -> None:
    first = dialects.get("jms").build("u = 'a' AND (v > 3 OR NOT (w > 5 OR z < 2))")
    plan_clauses(first)
    later = dialects.get("jms").build("u = 'b' AND (v > 9 OR NOT (w > 7 OR z < 1))")
    assert isinstance(later, SelectorFilter)
    plan = plan_clauses(later)
    assert not isinstance(later._tree, n.Node)  # never built
    assert plan == plan_clauses(compile_unshaped(later.text, "jms"))
    assert len(plan.clauses) == 2 and all(c.exact for c in plan.clauses)


def test_entries_are_shared_by_shape_and_literals() -> None:
    idx = SubscriptionIndex()
    idx.add("a", "price > 5 AND region = 'eu'")
    idx.add("b", "price>5 AND  region='eu'")          # spacing only: one entry
    idx.add("c", "price > 5.0 AND region = 'eu'")     # another literal kind: its own
    idx.add("d", "x = 0.0")
    idx.add("e", "x = -0.0")                          # -0.0 is another literal
    assert "5 distinct filters" not in idx.explain()
    assert "4 distinct filters" in idx.explain()
    assert idx.match({"price": 6, "region": "eu", "x": 0.0}) == frozenset("abcde")
    idx.remove("a")
    assert idx.match({"price": 6, "region": "eu"}) == frozenset("bc")


@given(st.lists(selectors("jms"), min_size=1, max_size=6), st.data())
@property_settings(share=0.5)
def test_an_index_of_siblings_equals_the_naive_loop(texts: list[str], data: st.DataObject
                                                    ) -> None:
    idx = SubscriptionIndex()
    compiled = []
    for number, text in enumerate(texts + [data.draw(siblings(t, "jms")) for t in texts]):
        try:
            f = dialects.get("jms").build(text)
        except FilterError:
            continue
        idx.add_filter(number, f)
        compiled.append((number, f))
    for message in data.draw(st.lists(messages(), max_size=4)):
        assert idx.match(message) == frozenset(k for k, f in compiled if f.matches(message))


def test_a_busy_shape_plans_each_filter_as_the_whole_pipeline() -> None:
    # Past MEMO_AFTER filters a shape's recipe answers repeated (conjunct, values) from
    # its memo: values alike in some conjuncts and not in others, -0.0 beside 0.0.
    from msgfilter.index.shape_plans import MEMO_AFTER, Recipe
    from msgfilter.shapes.cache import template_of

    shape = ("region = '{r}' AND kind IN ('a', '{k}') AND price > {p} "
             "AND NOT (weight < {w}) AND name LIKE '{r}%'")
    texts = [shape.format(r=f"r{n % 5}", k=f"k{n % 3}", p=n % 4,
                          w=("-0.0", "0.0", "1.5")[n % 3]) for n in range(4 * MEMO_AFTER)]
    for text in texts:
        assert_same_plan(text, "jms")
    shaped = dialects.get("jms").build(texts[0])
    assert isinstance(shaped, SelectorFilter)
    template = template_of(shaped.shape)
    assert template is not None and isinstance(template.recipe, Recipe)
    assert template.recipe.memo  # the memo served
