"""The Arrow backend against the shared conformance corpus: every case's `spec` answer,
with the case's properties as typed columns, as map entries, and as union columns."""

from __future__ import annotations

import warnings
from typing import Any

import pyarrow as pa
import pytest

import msgfilter
import msgfilter.arrow as ma
from msgfilter.errors import FilterError

from conformance import load, message_of

CORPUS = "activemq-corpus-seed1.jsonl"
STRING_MAP = pa.map_(pa.string(), pa.string())


def arrow_type(value: object) -> pa.DataType:
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64()
    if isinstance(value, float):
        return pa.float64()
    if isinstance(value, str):
        return pa.string()
    return pa.null()


def compiled_cases() -> list[tuple[dict[str, Any], msgfilter.Filter, dict[str, object]]]:
    cases = []
    for case in load(CORPUS):
        try:
            f = msgfilter.compile(case["selector"])
        except FilterError:
            assert case["spec"] == "error", case
            continue
        cases.append((case, f, message_of(case)))
    return cases


CASES = compiled_cases()


def typed_table(message: dict[str, object]) -> pa.Table:
    return pa.table({k: pa.array([v], arrow_type(v)) for k, v in message.items()})


def mapped_table(message: dict[str, object]) -> pa.Table:
    """String properties as entries of the properties map, the rest as columns."""
    strings = [(k, v) for k, v in message.items() if isinstance(v, str)]
    names = dict(strings)
    columns = {k: pa.array([v], arrow_type(v)) for k, v in message.items() if k not in names}
    columns["properties"] = pa.array([strings], STRING_MAP)
    return pa.table(columns)


@pytest.fixture(autouse=True)
def _no_fallback() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ma.RowwiseFallbackWarning)
        yield


def test_corpus_is_loaded() -> None:
    assert len(CASES) > 1500


def test_typed_columns_give_the_spec_answer() -> None:
    wrong = []
    for case, f, message in CASES:
        got = ma.evaluate(f, typed_table(message)).to_pylist()
        if got != [case["spec"]] or got != [f.evaluate(message)]:
            wrong.append((case["id"], case["selector"], message, got, case["spec"]))
    assert not wrong, wrong[:5]


def test_string_properties_from_the_map_give_the_spec_answer() -> None:
    wrong = []
    for case, f, message in CASES:
        got = ma.evaluate(f, mapped_table(message)).to_pylist()
        if got != [case["spec"]]:
            wrong.append((case["id"], case["selector"], message, got, case["spec"]))
    assert not wrong, wrong[:5]


def union_table(messages: list[dict[str, object]]) -> pa.Table:
    """All messages in one table; a column whose rows have several selector types is a
    dense union of them (absent = NULL)."""
    names = sorted({k for m in messages for k in m})
    columns = {}
    for name in names:
        values = [m.get(name) for m in messages]
        types = sorted({arrow_type(x) for x in values if x is not None}, key=str)
        if len(types) <= 1:
            columns[name] = pa.array(values, types[0] if types else pa.null())
            continue
        codes: list[int] = []
        offsets: list[int] = []
        children: dict[pa.DataType, list[object]] = {t: [] for t in types}
        for x in values:
            t = arrow_type(x) if x is not None else types[0]
            codes.append(types.index(t))
            offsets.append(len(children[t]))
            children[t].append(x)
        columns[name] = pa.UnionArray.from_dense(
            pa.array(codes, pa.int8()),
            pa.array(offsets, pa.int32()),
            [pa.array(children[t], t) for t in types],
        )
    return pa.table(columns)


def test_every_selector_on_every_message_through_union_columns() -> None:
    # A sample of selectors over all messages at once: the rows differ in type per
    # column, which only union columns can hold.
    messages = [message for _, _, message in CASES]
    table = union_table(messages)
    wrong = []
    for _, f, _ in CASES[::12]:
        got = ma.evaluate(f, table).to_pylist()
        want = [f.evaluate(m) for m in messages]
        if got != want:
            row = next(i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w)
            wrong.append((f.text, messages[row], got[row], want[row]))
    assert not wrong, wrong[:3]


def test_the_spec_examples() -> None:
    # jms-selectors.md's own examples (J1-J41), each as a one-row table.
    from spec_examples import examples

    checked = 0
    for example in examples():
        if example.expected == "error":
            continue
        message = example.message
        if any(isinstance(v, str) and any("\ud800" <= c <= "\udfff" for c in v)
               for v in message.values()):
            continue  # no Arrow string holds a lone surrogate
        f = msgfilter.compile(example.selector)
        table = typed_table(message) if message else pa.table({"_": [None]})
        assert ma.evaluate(f, table).to_pylist() == [example.expected], str(example)
        checked += 1
    assert checked > 100
