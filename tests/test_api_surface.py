"""docs/api.md's table of the public surface lists each public module's `__all__`,
exactly, and every name listed is importable."""

from __future__ import annotations

import importlib
from pathlib import Path

API = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def _table() -> dict[str, list[str]]:
    text = API.read_text(encoding="utf-8").split("\n## The public surface", 1)[1]
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    table: dict[str, list[str]] = {}
    for row in rows:
        _, module, names, _ = row.split("|")
        table[module.strip().strip("`")] = names.split("`")[1::2]
    return table


TABLE = _table()


def test_the_table_names_the_public_modules() -> None:
    assert {"msgfilter", "msgfilter.arrow", "msgfilter.broker", "msgfilter.pulsar_jms",
            "msgfilter.dialects", "msgfilter.shapes", "msgfilter.index.snapshot"} <= set(
        TABLE
    )


def test_each_row_is_the_modules_all() -> None:
    for module, names in TABLE.items():
        found = importlib.import_module(module)
        assert sorted(names) == sorted(found.__all__), module
        for name in names:
            assert hasattr(found, name), f"{module}.{name}"
