"""The switches that shape one selector grammar.

One grammar serves every SQL-like dialect (selector.lark); a `Grammar` turns its features on
and off in the lexer, the builder and the checker. Which node kinds a grammar builds
follows from those switches (`Grammar.node_kinds`): it is said here and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import nodes as n

_LONG_MAX = 2**63 - 1

#: The node kinds every grammar builds: literals, names, unary minus and comparisons.
_ALWAYS: frozenset[type[n.Node]] = frozenset(
    {n.StringLit, n.ExactLit, n.ApproxLit, n.Ident, n.Negate, n.Compare}
)

#: A node kind and a keyword that introduces it: the lexer reads a word that is not a
#: keyword as an identifier, so a grammar without the keyword never builds the node.
_BY_KEYWORD: tuple[tuple[type[n.Node], str], ...] = (
    (n.BoolLit, "TRUE"), (n.BoolLit, "FALSE"), (n.NullLit, "NULL"), (n.Not, "NOT"),
    (n.And, "AND"), (n.Or, "OR"), (n.Between, "BETWEEN"), (n.In, "IN"), (n.IsNull, "IS"),
    (n.Like, "LIKE"), (n.StringTest, "CONTAINS"), (n.StringTest, "STARTSWITH"),
    (n.StringTest, "ENDSWITH"), (n.XQuery, "XQUERY"),
)


@dataclass(frozen=True, slots=True)
class Grammar:
    """What one selector dialect's grammar allows: switches read by the lexer, the builder
    and the static checks. The dialect registry (`msgfilter.dialects`) owns the instances.

    Equal records mean the same grammar: the parser cache shares one parser between them."""

    #: The dialect's name, as error messages say it.
    name: str
    #: Words that are keywords (case-insensitive, ASCII letters) and never identifiers.
    keywords: frozenset[str]
    #: NOT is a tight unary prefix (ActiveMQ, RocketMQ) rather than SQL92's loose NOT.
    tight_not: bool = False
    #: With `tight_not`: NOT stands where a unary operator does but takes a whole equality
    #: (`NOT a > 10` is `NOT (a > 10)`, `x = NOT a = 1` is `x = NOT (a = 1)`), as Qpid
    #: Broker-J's unaryExpr does (`NOT equalityExpression`).
    not_over_equality: bool = False
    #: `+ - * /` as binary operators.
    arithmetic: bool = True
    #: ActiveMQ's `%` (a floating-point remainder).
    modulo: bool = False
    #: ActiveMQ's function calls (REGEX, INLIST, SPLIT, MAKELIST, REPLACE) and XQUERY.
    functions: bool = False
    #: Hexadecimal `0x1F` and octal `017` exact literals.
    hex_octal: bool = True
    #: Identifiers of Java identifier characters (Unicode) rather than ASCII only.
    unicode_identifiers: bool = True
    #: Double-quoted identifiers (`"property-with-hyphen" = 'x'`, `""` is one quote
    #: inside): Artemis's and Qpid's QUOTED_ID. The name is any text, keywords included.
    quoted_identifiers: bool = False
    #: `-` continues an identifier (`a-b` is one name): Artemis's `hyphenated_props:`.
    hyphenated_identifiers: bool = False
    #: SQL comments `/* ... */` and `-- ...`.
    comments: bool = False
    #: A `--` comment must end with a line break; without one `--` is two minus signs.
    line_comment_needs_eol: bool = False
    #: Where those two minus signs cannot continue the expression, they and the rest of
    #: the text are ignored (RocketMQ parses the longest valid prefix, so `a = 1 -- note`
    #: is `a = 1` while `a = --5` is `a = 5`).
    dangling_comment_ends: bool = False
    #: The empty or blank selector matches everything (JMS); otherwise it is an error.
    empty_matches_all: bool = True
    #: Unary minus folds into a numeric literal (a signed literal) at compile time.
    fold_negation: bool = True
    #: ESCAPE is one UTF-16 code unit (Java's String.length) rather than one code point.
    escape_utf16: bool = False
    #: A TRUE/FALSE literal left of `=`/`<>` with a string or number literal on the right
    #: is an error (ActiveMQ's checkEqualOperandCompatability), though `1 = TRUE` is not.
    boolean_literal_check: bool = False
    #: BETWEEN with literal bounds low > high is an error (RocketMQ).
    between_bounds_check: bool = False
    #: An approximate literal beyond the double range is an error (not Infinity).
    finite_literals: bool = False
    #: The largest decimal literal (None: unbounded, ActiveMQ's BigDecimal).
    max_exact: int | None = _LONG_MAX
    #: The largest hexadecimal or octal literal.
    max_radix_exact: int = _LONG_MAX

    def node_kinds(self) -> frozenset[type[n.Node]]:
        """The node classes this grammar's trees can hold: the one statement of it, which
        backends and the index derive from (through `msgfilter.dialects.node_kinds` per
        value model) instead of restating it."""
        kinds = set(_ALWAYS)
        kinds.update(node for node, word in _BY_KEYWORD if word in self.keywords)
        if self.arithmetic:
            kinds.add(n.Arith)
        if self.functions:
            kinds.add(n.Call)
        return frozenset(kinds)
