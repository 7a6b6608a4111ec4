"""docs/dialects.md cannot drift: its table has a column for every SQL dialect of the
registry, every cell is what that dialect answers, and every row is a real difference."""

from __future__ import annotations

import pytest

from dialect_table import Row, answer, parse_message, read_table, sql_dialects

COLUMNS, ROWS = read_table()


def test_a_column_per_sql_dialect_of_the_registry() -> None:
    assert sorted(sql_dialects()) == sorted(COLUMNS)
    assert len(set(COLUMNS)) == len(COLUMNS)


def test_the_table_has_rows() -> None:
    assert len(ROWS) >= 20


@pytest.mark.parametrize("row", ROWS, ids=[f"line{r.line}" for r in ROWS])
def test_each_cell_is_the_dialects_answer(row: Row) -> None:
    message = parse_message(row.message)
    got = {d: answer(d, row.expression, message) for d in COLUMNS}
    assert got == row.answers, f"docs/dialects.md line {row.line}: {row.expression!r}"


@pytest.mark.parametrize("row", ROWS, ids=[f"line{r.line}" for r in ROWS])
def test_each_row_is_a_difference(row: Row) -> None:
    assert len(set(row.answers.values())) > 1, f"line {row.line}: every dialect agrees"


def test_each_difference_is_written_once() -> None:
    seen = [(r.expression, r.message) for r in ROWS]
    assert len(seen) == len(set(seen))


def test_message_notation() -> None:
    from msgfilter import jtypes

    assert parse_message("s = short 1; f = float 1.5; b = true; n = -3; d = 2.5") == {
        "s": jtypes.Short(1), "f": jtypes.Float(1.5), "b": True, "n": -3, "d": 2.5,
    }
    assert parse_message("") == {}
    with pytest.raises(ValueError, match="name = value"):
        parse_message("a")
