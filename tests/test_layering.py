"""Imports run down the layers: no cycle among msgfilter's modules, counting imports
inside functions and under TYPE_CHECKING; `syntax` knows nothing of `semantics`; and at
package level, the layer table of docs/architecture.md holds (no package imports one
above it, no package cycle)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import msgfilter

PACKAGE = Path(msgfilter.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imported(name: str, path: Path) -> Iterator[str]:
    """Every msgfilter module `name` imports, wherever the import statement sits."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import mod` imports the module pkg.mod when there is one, else a
            # name defined in pkg itself.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


GRAPH: dict[str, set[str]] = {name: set(_imported(name, path)) for name, path in MODULES.items()}


def _cycles() -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in GRAPH:
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_sees_the_package() -> None:
    assert "msgfilter.engine" in GRAPH and "msgfilter.syntax.parser" in GRAPH
    assert "msgfilter.dialects" in GRAPH["msgfilter.engine"]
    assert "msgfilter.syntax.nodes" in GRAPH["msgfilter.syntax.parser"]


def test_no_import_cycles() -> None:
    assert _cycles() == []


def _reachable(start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for module in GRAPH[todo.pop()] - seen:
            seen.add(module)
            todo.append(module)
    return seen


def test_the_registry_is_above_what_it_registers() -> None:
    below = _reachable("msgfilter.dialects")
    assert {"msgfilter.selector", "msgfilter.tags.rocketmq", "msgfilter.filter"} <= below
    assert "msgfilter.backends.python" in below and "msgfilter.syntax.parser" in below
    # Nothing the registry builds on imports it (or the engine above it) back.
    for module in below:
        assert not GRAPH[module] & {"msgfilter.dialects", "msgfilter.engine"}, module


def test_pickling_does_not_import_the_engine() -> None:
    assert "msgfilter.engine" not in GRAPH["msgfilter.filter"]


def test_syntax_knows_nothing_of_semantics() -> None:
    leaks = {
        name: sorted(i for i in imports if i.startswith("msgfilter.semantics"))
        for name, imports in GRAPH.items()
        if name.startswith("msgfilter.syntax")
    }
    assert {k: v for k, v in leaks.items() if v} == {}


# --- Packages and layers, as docs/architecture.md's layer table states them ---------------

ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def _unit(module: str) -> str:
    """The package a module belongs to for layering: a top-level module or subpackage of
    msgfilter, and each backend on its own (the per-message backend sits below the
    filters, the column backends above them)."""
    parts = module.split(".")
    return ".".join(parts[:3] if len(parts) > 2 and parts[1] == "backends" else parts[:2])


def _layers() -> dict[str, int]:
    """Each package's layer (0 at the bottom), read from the table under "## Layers" in
    docs/architecture.md: one row a layer, bottom first, its packages in backquotes in
    the second column (`java/`, `errors.py`, `backends/python/`, `__init__.py`)."""
    text = ARCHITECTURE.read_text(encoding="utf-8").split("\n## Layers", 1)[1]
    rows = [line for line in text.split("\n## ", 1)[0].splitlines() if line.startswith("|")]
    layers: dict[str, int] = {}
    for number, row in enumerate(rows[2:]):
        for name in row.split("|")[2].split("`")[1::2]:
            path = name.removesuffix("/").removesuffix(".py")
            unit = "msgfilter" if path == "__init__" else "msgfilter." + path.replace("/", ".")
            assert unit not in layers, f"{unit} is in two layers of the table"
            layers[unit] = number
    return layers


LAYERS = _layers()
PACKAGES: dict[str, set[str]] = {}
for _name, _imports in GRAPH.items():
    PACKAGES.setdefault(_unit(_name), set()).update(_unit(i) for i in _imports)
for _name in PACKAGES:
    PACKAGES[_name].discard(_name)


def test_the_table_is_read() -> None:
    assert LAYERS["msgfilter.java"] == 0
    assert LAYERS["msgfilter.syntax"] < LAYERS["msgfilter.semantics"]
    assert LAYERS["msgfilter.backends.python"] < LAYERS["msgfilter.selector"]
    assert LAYERS["msgfilter.selector"] < LAYERS["msgfilter.backends.arrow"]
    assert LAYERS["msgfilter.index"] < LAYERS["msgfilter.arrow"]


def test_every_package_has_one_layer_in_the_table() -> None:
    assert sorted(set(PACKAGES) - set(LAYERS)) == []
    assert sorted(set(LAYERS) - set(PACKAGES)) == []


def test_no_package_imports_one_above_it() -> None:
    upward = sorted(
        f"{name} (layer {LAYERS[name]}) imports {target} (layer {LAYERS[target]})"
        for name, targets in PACKAGES.items()
        for target in targets
        if LAYERS[target] > LAYERS[name]
    )
    assert upward == []


def test_no_package_cycle() -> None:
    def reachable(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for package in PACKAGES[todo.pop()] - seen:
                seen.add(package)
                todo.append(package)
        return seen

    assert sorted(p for p in PACKAGES if p in reachable(p)) == []
