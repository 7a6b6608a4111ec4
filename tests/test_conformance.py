"""The shared ActiveMQ conformance data against the `jms` dialect.

The `jms` dialect must give the labelled `spec` answer on every corpus case. Wherever
ActiveMQ answers differently, the case must name the rules behind the difference, and
each named rule must be one that docs/semantics.md lists as a departure.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import msgfilter

from conformance import examples, load, message_of

CORPUS = load("activemq-corpus-seed1.jsonl")
DOCS = Path(__file__).resolve().parents[1] / "docs" / "semantics.md"


def _answer(selector: str, message: dict[str, object]) -> object:
    try:
        return msgfilter.compile(selector).evaluate(message)
    except msgfilter.FilterError:
        return "error"


def _activemq(answer: dict[str, Any]) -> object:
    return "error" if "error" in answer else answer["value"]


def documented_departures() -> set[str]:
    """Rules in the departures table of docs/semantics.md."""
    text = DOCS.read_text(encoding="utf-8")
    table = text.split("## Departures from ActiveMQ", 1)[1]
    return set(re.findall(r"^\| (J\d+) \|", table, flags=re.MULTILINE))


def test_corpus_has_every_answer_kind() -> None:
    kinds = Counter(str(case["spec"]) for case in CORPUS)
    assert len(CORPUS) == 3000
    assert set(kinds) == {"True", "False", "None", "error"}


def test_corpus_agrees_with_the_jms_rules() -> None:
    wrong = [
        (case["id"], case["selector"], case["spec"], got)
        for case in CORPUS
        if (got := _answer(case["selector"], message_of(case))) != case["spec"]
    ]
    assert wrong == []


def test_every_difference_from_activemq_is_a_documented_departure() -> None:
    documented = documented_departures()
    differing = [c for c in CORPUS if c["spec"] != c["value"]]
    assert differing, "the corpus should exercise departures"
    per_rule: Counter[str] = Counter()
    for case in differing:
        rules = case["departure"]
        assert rules, f"case {case['id']} differs from ActiveMQ without a rule"
        for rule in rules:
            assert rule in documented, f"case {case['id']}: {rule} is not in docs/semantics.md"
            per_rule[rule] += 1
    assert set(per_rule) <= documented


# The hand-written examples carry ActiveMQ's answers only. Where the `jms` dialect
# answers otherwise, this table says what it answers and which rule makes it so.
EXAMPLE_DEPARTURES: dict[int, tuple[object, str]] = {
    7: (False, "J34"), 8: (True, "J34"), 15: (None, "J30"), 17: (False, "J24"),
    18: (False, "J23"), 24: (True, "J2"), 25: (None, "J25"), 26: (None, "J25"),
    28: (None, "J25"), 34: (False, "J28"), 41: (None, "J40"), 42: (True, "J22"),
    44: (True, "J22"), 46: (True, "J21"), 47: (False, "J30"), 48: (False, "J26"),
    49: (False, "J26"), 50: (True, "J26"), 51: ("error", "J10"), 52: ("error", "J10"),
    58: (None, "J17"), 59: (False, "J17"), 60: (True, "J17"), 63: (None, "J40"),
    71: (False, "J36"), 75: (True, "J13"), 76: (None, "J14"), 78: ("error", "J7"),
    79: ("error", "J5"), 80: (None, "J5"), 81: (None, "J5"), 82: ("error", "J7"),
    83: ("error", "J7"),
}


def _example_table() -> list[tuple[dict[str, Any], object, str | None]]:
    rows = []
    for case in examples():
        expected_rule = EXAMPLE_DEPARTURES.get(case["id"])
        if expected_rule is None:
            rows.append((case, _activemq(case["answer"]), None))
        else:
            rows.append((case, expected_rule[0], expected_rule[1]))
    return rows


@pytest.mark.parametrize(
    ("case", "expected", "rule"),
    _example_table(),
    ids=lambda x: str(x["id"]) if isinstance(x, dict) else None,
)
def test_activemq_examples(case: dict[str, Any], expected: object, rule: str | None) -> None:
    got = _answer(case["selector"], message_of(case))
    assert got == expected, f"{case['note']} (rule {rule or 'none: ActiveMQ agrees'})"
    if rule is not None:
        assert rule in documented_departures()
