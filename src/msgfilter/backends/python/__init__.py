"""Checked AST -> two Python functions, `matches(message) -> bool` and
`evaluate(message) -> bool | None`, by generating Python source.

The one rule: no byte of user text is ever written into the generated source. Names,
literals, patterns and matchers go into a constants table that the source reaches as
closure variables `K0, K1, ...`; the source holds only our own code, variable names
and table indexes. Every node class has one handler per mode, found through one table
per value model built once (`TABLES`), so that a test can prove every node is handled.

Three modes keep three-valued logic cheap: `truth` is an expression that is truthy
exactly when the condition is TRUE, `falsity` exactly when it is FALSE, `tri` yields
True/False/None. `matches` is the truth of the root, so FALSE and UNKNOWN never need
telling apart where only TRUE counts. `value` yields an operand's value (None = NULL).

Modules: `generator` (the source being built, dispatch on node class), `jms`, `rocketmq`
and `activemq` (each value model's handlers), `tables` (one table per model), `runtime`
(the helpers generated code calls, and `build`) and `compiler` (`compile_function`).
"""

from .compiler import compile_function, generate
from .runtime import build
from .tables import TABLES, ModelTable

__all__ = ["TABLES", "ModelTable", "build", "compile_function", "generate"]
