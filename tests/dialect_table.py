"""docs/dialects.md's side-by-side table, read back: each row's expression and message,
and what each SQL dialect answers, in the words the table uses.

A message cell is `name = value` pairs separated by `;` (empty: no properties). A value is
`'text'` (a String), `true`/`false`, a number (`3` a long, `2.5` a double), or a Java type
then a number (`short 1`, `float 1.1`: `msgfilter.jtypes.java`). An answer is TRUE, FALSE,
UNKNOWN, `throws` (the broker's evaluation throws: `EvaluationFailure`) or `error` (the
dialect rejects the text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import msgfilter
from msgfilter import dialects, jtypes
from msgfilter.errors import EvaluationFailure, FilterError

PAGE = Path(__file__).resolve().parents[1] / "docs" / "dialects.md"

_JAVA_TYPES = ("byte", "short", "int", "long", "float", "double")


def sql_dialects() -> tuple[str, ...]:
    """The registry's SQL-like dialects, in registration order: the table's columns."""
    return tuple(d.name for d in dialects.all_dialects() if d.sql)


def parse_value(text: str) -> object:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if text in ("true", "false"):
        return text == "true"
    java, _, number = text.partition(" ")
    if java in _JAVA_TYPES:
        return jtypes.java(java, number)
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    return float(text)


def parse_message(text: str) -> dict[str, object]:
    message: dict[str, object] = {}
    for pair in filter(None, (p.strip() for p in text.split(";"))):
        name, equals, value = pair.partition(" = ")
        if not equals:
            raise ValueError(f"a message pair is 'name = value', not {pair!r}")
        message[name.strip()] = parse_value(value)
    return message


def answer(dialect: str, expression: str, message: dict[str, object]) -> str:
    """What `dialect` answers for `expression` on `message`, as the table writes it."""
    try:
        f = msgfilter.compile(expression, dialect)
    except FilterError:
        return "error"
    outcome = f.outcome(message)  # type: ignore[attr-defined]
    if isinstance(outcome, EvaluationFailure):
        return "throws"
    return {True: "TRUE", False: "FALSE", None: "UNKNOWN"}[outcome]


@dataclass(frozen=True)
class Row:
    line: int
    rule: str
    expression: str
    message: str
    answers: dict[str, str]


def _cell(text: str) -> str:
    """A cell's text: inline code unwrapped (`` ` `` quotes), `\\|` as a bar."""
    text = text.strip().replace("\\|", "|")
    if text.startswith("`") and text.endswith("`"):
        text = text[1:-1]
        if text.startswith(" ") and text.endswith(" ") and text.strip():
            text = text[1:-1]
    return text


def _split(line: str) -> list[str]:
    return [_cell(c) for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def read_table(page: Path = PAGE, strict: bool = True) -> tuple[list[str], list[Row]]:
    """The dialect columns of the page's table and its rows (`strict`: every row has a
    cell per column)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| rule | expression |"))
    header = _split(lines[start])
    columns = header[3:]
    rows = []
    for number, line in enumerate(lines[start + 2:], start + 3):
        if not line.startswith("|"):
            break
        cells = _split(line)
        rule, expression, message = cells[:3]
        expression = "" if expression == "(empty)" else expression
        message = "" if message == "—" else message
        rows.append(Row(number, rule, expression, message, dict(zip(columns, cells[3:],
                                                                     strict=strict))))
    return columns, rows


def _code(text: str) -> str:
    if not text:
        return "(empty)"
    text = text.replace("|", "\\|")
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def render(rows: list[tuple[str, str, str]]) -> list[str]:
    """The table's lines for (rule, expression, message) rows, every answer computed."""
    columns = sql_dialects()
    lines = [
        "| rule | expression | message | " + " | ".join(columns) + " |",
        "|---|---|---|" + "---|" * len(columns),
    ]
    for rule, expression, message in rows:
        parsed = parse_message(message)
        answers = [answer(d, expression, parsed) for d in columns]
        lines.append(f"| {rule} | {_code(expression)} | {message or '—'} | "
                     + " | ".join(answers) + " |")
    return lines


def rewrite(page: Path = PAGE) -> None:
    """Recompute the page's table in place (columns from the registry), keeping its rows:
    run after adding a dialect or a row, then read the diff."""
    _, rows = read_table(page, strict=False)
    lines = page.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| rule | expression |"))
    end = start + 2 + len(rows)
    ordered = sorted(rows, key=lambda r: int(r.rule[1:]) if r.rule[1:].isdigit() else 99)
    table = render([(r.rule, r.expression, r.message) for r in ordered])
    page.write_text("\n".join([*lines[:start], *table, *lines[end:]]) + "\n", encoding="utf-8")


if __name__ == "__main__":
    rewrite()
