"""Compile by shape: selectors that differ only in their literal values share one checked
template and one generated `matches` code object.

A broker's subscriptions are a few dozen shapes with different constants
(`tenant = 't17' AND price > 120.5`). The shape of a text is its dialect, switches and
limits, the kind of each token, and the name of each identifier; its literals (string,
exact and approximate) are the slots. A text of a known shape pays for lexing, decoding
its literals, the static checks that depend on literal values, and binding the shared
code to its own constants; parsing, checking the tree, generating source and Python's
`compile` were paid once, by the first text of that shape.

Every value rule stays where it lives; this package only records, on the first text, where
each rule looked at a literal value, and replays that on the next:

- the checker's value rules (a long beyond the range, an infinite double, RocketMQ's
  BETWEEN bounds, a LIKE pattern the broker's regex refuses, an ESCAPE of one character)
  become checks on the slots (`Template.checks`). A text that fails one is compiled by the whole
  pipeline, which raises the error as it always does (message, offset, kind);
- JMS's signed literals fold as `semantics.fold` folds them (`_final`);
- the generator marks each constant it takes from a literal value (`Generator.lit`) and
  each choice of code it makes on one (`Generator.classify`: an exact literal within
  2**53, the kind of a LIKE pattern). A text whose values choose otherwise gets code of
  its own, kept as another variant of the template;
- the tree is rebuilt only when asked for (`SelectorFilter.tree`), from a program
  recorded on the first text, with the spans of the new text.

Anything the recording cannot place (a node whose span is not made of tokens, a literal
value reaching the code through a node it does not know) leaves the shape unshared: such
texts take the whole pipeline. The templates live in a bounded LRU (`SHAPE_CACHE_SIZE`),
behind a lock.

The modules: `shape` (a text's `Shape` and the key it is made of), `analysis` (the first
text of a shape -> its `Template`: `analyse`), `template` (what a template holds and how a
new text replays it: `Template.values`, `variant`, `tree`) and `cache` (the bounded cache:
`lookup`, `learn`, `bind`, `cache_info`, `purge`).
"""

from .cache import MAX_VARIANTS, SHAPE_CACHE_SIZE, ShapeCacheInfo, cache_info, purge
from .shape import Shape

__all__ = ["MAX_VARIANTS", "SHAPE_CACHE_SIZE", "Shape", "ShapeCacheInfo", "cache_info", "purge"]
