"""No module of msgfilter reads or imports another module's private names: a name with
one leading underscore is its module's own (a package's private module, its package's).

It walks every module's syntax tree: `from m import _x` of another module, `m._x` through
an imported module, and `obj._x` for an attribute no statement of this module defines but
one of another msgfilter module does (a private field read across modules)."""

from __future__ import annotations

import ast
from pathlib import Path

import msgfilter

PACKAGE = Path(msgfilter.__file__).parent


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


# Generated protobuf code is not ours to name.
MODULES = {
    _module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if not p.name.endswith("_pb2.py")
}
TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


def _defined(tree: ast.AST) -> set[str]:
    """The private names a module defines: functions, classes, variables, attributes it
    assigns, parameters, and names it spells as text (`__slots__`, `setattr`)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    return {n for n in names if _private(n)}


DEFINED = {name: _defined(tree) for name, tree in TREES.items()}
ANYWHERE = set().union(*DEFINED.values())


def _violations(name: str) -> list[str]:
    path = MODULES[name]
    tree = TREES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    modules: dict[str, str] = {}
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            if base.split(".")[0] != "msgfilter":
                continue
            if any(_private(p) for p in base.split(".")) and base.rpartition(".")[0] != package:
                found.append(f"{name}:{node.lineno} imports from {base}")
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in MODULES:
                    modules[alias.asname or alias.name] = target
                    if _private(alias.name) and base != package:
                        found.append(f"{name}:{node.lineno} imports {target}")
                elif _private(alias.name):
                    found.append(f"{name}:{node.lineno} imports {target}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "msgfilter":
                    modules[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.ctx, ast.Load)
        ):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        if isinstance(owner, ast.Name) and owner.id in modules:
            found.append(f"{name}:{node.lineno} reads {modules[owner.id]}.{node.attr}")
        elif node.attr not in DEFINED[name] and node.attr in ANYWHERE:
            found.append(f"{name}:{node.lineno} reads .{node.attr}, another module's field")
    return found


def test_the_walk_sees_the_package() -> None:
    assert "msgfilter.message" in MODULES and "msgfilter.pulsar.codec" in MODULES
    assert "_NO_HEADERS" in DEFINED["msgfilter.message"]


def test_no_module_reads_another_modules_private_names() -> None:
    assert [v for name in MODULES for v in _violations(name)] == []


def test_the_walk_finds_a_private_read() -> None:
    tree = ast.parse("from msgfilter.message import _NO_HEADERS\nx = m._view_of\n")
    TREES["msgfilter.probe"] = tree
    MODULES["msgfilter.probe"] = PACKAGE / "probe.py"
    DEFINED["msgfilter.probe"] = _defined(tree)
    try:
        assert len(_violations("msgfilter.probe")) == 2
    finally:
        for table in (TREES, MODULES, DEFINED):
            del table["msgfilter.probe"]
