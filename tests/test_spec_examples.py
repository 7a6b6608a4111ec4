"""Every example of jms-selectors.md (J1-J41), read from the spec, holds."""

from __future__ import annotations

import pytest

import msgfilter

from spec_examples import Example, examples

EXAMPLES = examples()


def test_the_spec_yields_examples_for_every_rule() -> None:
    rules = {e.rule for e in EXAMPLES}
    assert len(EXAMPLES) > 150
    assert rules >= {f"J{i}" for i in range(1, 42)} - {"J2"}


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_example(example: Example) -> None:
    if example.expected == "error":
        with pytest.raises(msgfilter.FilterError):
            msgfilter.compile(example.selector)
        return
    selector = msgfilter.compile(example.selector)
    assert selector.evaluate(example.message) is example.expected
    assert selector.matches(example.message) is (example.expected is True)


@pytest.mark.parametrize("blank", ["", "   ", "\t\r\n\f"])
def test_j2_empty_selector_matches_everything(blank: str) -> None:
    selector = msgfilter.compile(blank)
    assert selector.evaluate({}) is True
    assert selector.matches({"a": 1}) is True
    assert selector.unparse() == ""


@pytest.mark.parametrize("space", ["\t", "\n", "\r", "\f", "\r\n"])
def test_j3_whitespace_characters(space: str) -> None:
    assert msgfilter.compile(f"a{space}={space}1").matches({"a": 1})


@pytest.mark.parametrize("space", ["\u00a0", "\u2003", "\u3000"])
def test_j3_other_spaces_are_errors(space: str) -> None:
    with pytest.raises(msgfilter.FilterSyntaxError) as caught:
        msgfilter.compile(f"a{space}= 1")
    assert caught.value.offset == 1


def test_j13_format_characters_are_identifier_parts() -> None:
    # U+200B (zero width space) is a format character: Java lets it stand in an identifier.
    selector = msgfilter.compile("a\u200b = 1")
    assert selector.identifiers == {"a\u200b"}
