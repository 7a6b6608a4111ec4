"""The shape cache: templates by shape key in a bounded LRU behind a lock; a text's
template looked up, a new template (or variant) learned, shared code bound to a text's
constants."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..backends.python.compiler import Careful, generate_shared
from ..backends.python.runtime import binder
from ..syntax import nodes as n
from .analysis import Analysis
from .shape import Shape
from .template import Template, Variant, payload

#: Templates kept (most recently used). A template holds a checked tree, a rebuild
#: program and up to `MAX_VARIANTS` code objects: about 2 KB each (tracemalloc). A
#: broker's selectors vary in operators, identifiers and signs as well as values, so
#: 100 000 threshold alerts hold several thousand shapes: a bound below that makes
#: every compile a miss, dearer than no cache at all.
SHAPE_CACHE_SIZE = 16384
#: Code variants kept per shape (texts whose values choose different code).
MAX_VARIANTS = 8



class Templates(OrderedDict[tuple[Any, ...], Template]):
    """The templates by shape key, least recently used first, at most `maxsize` (callers
    hold `_lock`). An OrderedDict, not cachetools: a look-up here is on the path of every
    compile of a known shape, and cachetools' LRU, written in Python, cost several times
    the few hundred nanoseconds this one does."""

    def __init__(self, maxsize: int) -> None:
        super().__init__()
        self.maxsize = maxsize

    def used(self, key: tuple[Any, ...]) -> Template | None:
        """The template of `key`, marked most recently used."""
        found = self.get(key)
        if found is not None:
            self.move_to_end(key)
        return found

    def keep(self, key: tuple[Any, ...], template: Template) -> None:
        self[key] = template
        if len(self) > self.maxsize:
            self.popitem(last=False)


_templates = Templates(SHAPE_CACHE_SIZE)
#: Templates by text key (`shape.text_key`): texts found there skip the lexer's token loop.
_by_text = Templates(SHAPE_CACHE_SIZE)
_lock = threading.Lock()
_hits = 0
_misses = 0


class ShapeCacheInfo(NamedTuple):
    hits: int
    misses: int
    maxsize: int
    currsize: int


def lookup(key: tuple[Any, ...]) -> Template | None:
    global _hits, _misses
    with _lock:
        template = _templates.used(key)
        if template is None:
            _misses += 1
        else:
            _hits += 1
    return template


def lookup_text(key: tuple[Any, ...]) -> Template | None:
    """The template a text key was shown to lead to (`remember_text`), while it is still
    its shape's cached template; None (and no miss counted: the caller lexes the text and
    asks `lookup`) otherwise."""
    global _hits
    with _lock:
        template = _by_text.used(key)
        if template is None or _templates.used(template.shape.key) is not template:
            return None
        _hits += 1
    return template


def remember_text(key: tuple[Any, ...], template: Template) -> None:
    """Lead `key` to `template`: a text with this key was lexed and is of its shape."""
    with _lock:
        _by_text.keep(key, template)


def template_of(shape: Shape) -> Template | None:
    """The cached template of `shape` (the very object a filter of it was made from), or
    None; unlike `lookup`, not counted as a compile's hit or miss."""
    with _lock:
        template = _templates.get(shape.key)
    return template if template is not None and template.shape is shape else None


def shape_of(key: tuple[Any, ...], dialect: str) -> Shape:
    """The cached template's shape object for `key`, else a new one."""
    with _lock:
        template = _templates.get(key)
    return template.shape if template is not None else Shape(dialect, key)


def learn(analysis: Analysis, tree: n.Expr) -> tuple[Callable[..., Any], str] | None:
    """Keep the analysed template (or add a variant to the one cached for its shape) and
    return the `matches` of `tree` made from the shared code, and its source; None where
    the code cannot be shared (the caller then generates it as for any filter)."""
    template = analysis.template
    if template is None:
        return None
    shared = generate_shared(tree, template.model, template.convert, analysis.refs)
    if shared.unshared:
        return None
    variant = Variant(
        binder(shared.source), shared.source, shared.consts, shared.recipes, shared.classes,
        shared.careful,
    )
    with _lock:
        cached = _templates.get(template.shape.key)
        if cached is None:
            template.variants = (variant,)
            _templates.keep(template.shape.key, template)
        elif len(cached.variants) < MAX_VARIANTS:
            cached.variants = (*cached.variants, variant)
    matches: Callable[..., Any] = variant.bind(*shared.consts)
    return matches, shared.source


def bind(
    template: Template, variant: Variant, values: Sequence[Any],
    tree: Callable[[], n.Expr],
) -> Callable[..., Any]:
    """The shared code bound to the constants of a text's `values`."""
    consts = list(variant.consts)
    for index, ref, transform in variant.recipes:
        value = values[ref[1]] if ref[0] == "slot" else payload(ref, values)
        consts[index] = value if transform is None else transform(value)
    if variant.careful is not None:
        consts[variant.careful] = Careful(tree, template.model, "truth", template.convert)
    matches: Callable[..., Any] = variant.bind(*consts)
    return matches


def cache_info() -> ShapeCacheInfo:
    """Hits, misses, capacity and current size of the shape cache."""
    with _lock:
        return ShapeCacheInfo(_hits, _misses, _templates.maxsize, len(_templates))


def purge() -> None:
    """Empty the shape cache: the next text of each shape takes the whole pipeline
    (filters already compiled stay valid)."""
    global _hits, _misses
    with _lock:
        _templates.clear()
        _by_text.clear()
        _hits = _misses = 0
