"""The Java 17 tables of tests/data/java, loaded once for the tests of msgfilter.java."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

TABLES = Path(__file__).parent / "data" / "java"


@cache
def rows(name: str) -> tuple[dict[str, Any], ...]:
    with (TABLES / name).open(encoding="utf-8") as lines:
        return tuple(json.loads(line) for line in lines)


PARSE_COLUMNS = ("in", "int", "long", "short", "byte", "double", "float", "bool")


@cache
def parse_rows() -> tuple[dict[str, Any], ...]:
    """parse.jsonl's rows (arrays, to keep the file small) as dicts of PARSE_COLUMNS."""
    return tuple(dict(zip(PARSE_COLUMNS, row, strict=True)) for row in rows("parse.jsonl"))


@cache
def digits() -> dict[int, int]:
    data = json.loads((TABLES / "digits.json").read_text(encoding="utf-8"))
    return {code: value for code, value in data["digits"]}
