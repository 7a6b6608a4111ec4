"""TopicsPattern: scheme stripping, full matching, partitions, safety of the re subset, re2."""

from __future__ import annotations

import pickle
import re
import sys

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from msgfilter.errors import FilterError
from msgfilter.topics import (
    MAX_CHOICE_POINTS,
    TopicPatternError,
    TopicsPattern,
    UnsafePatternError,
    check_backtracking_safety,
    remove_domain_scheme,
)
from msgfilter.topics.pattern import (
    IMPLEMENTATIONS,
    Implementation,
    _compile_cached,
    expand_quotes,
    literal_prefix,
)

re2 = pytest.importorskip("re2")

# --- domain scheme (TopicListTest.testRemoveTopicDomainScheme) --------------------------


@pytest.mark.parametrize(
    ("regex", "stripped"),
    [
        ("persistent://public/default/tp", "public/default/tp"),
        ("non-persistent://public/default/tp", "public/default/tp"),
        ("public/default/tp", "public/default/tp"),
        # java.util.regex.Pattern.quote(...) and the re2j equivalent
        (r"\Qpersistent://public/default/tp\E", r"\Qpublic/default/tp\E"),
        (r"^\Qpersistent://public/default/tp\E$", r"^\Qpublic/default/tp\E$"),
        (r"\Qnon-persistent://public/default/tp\E", r"\Qpublic/default/tp\E"),
        (r"^\Qnon-persistent://public/default/tp\E$", r"^\Qpublic/default/tp\E$"),
    ],
)
def test_remove_domain_scheme(regex: str, stripped: str) -> None:
    assert remove_domain_scheme(regex) == stripped


@pytest.mark.parametrize(
    ("regex", "message"),
    [
        ("xx://public/default/tp", "Does not support topic domain: 'xx'"),
        ("://public/default/tp", "Does not support topic domain: ''"),
        ("persistent://", "nothing follows the domain scheme"),
        ("persistent://a/b/c://d", "more than one '://'"),
    ],
)
def test_unusable_domain_scheme(regex: str, message: str) -> None:
    with pytest.raises(TopicPatternError, match=re.escape(message)) as info:
        TopicsPattern.compile(regex)
    assert isinstance(info.value, FilterError)
    assert info.value.pattern == regex


# --- matching --------------------------------------------------------------------------

TOPIC_1 = "persistent://my-property/my-ns/pattern-topic-1"
TOPIC_2 = "persistent://my-property/my-ns/pattern-topic-2"
TOPIC_3 = "persistent://my-property/my-ns/hello-3"
TOPIC_4 = "non-persistent://my-property/my-ns/hello-4"


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_pulsar_filter_topics_example(implementation: Implementation) -> None:
    # TopicListTest.testFilterTopics: the domain of the pattern is ignored when matching.
    names = [TOPIC_1, TOPIC_2, TOPIC_3, TOPIC_4]
    narrow = TopicsPattern.compile("persistent://my-property/my-ns/pattern-topic.*", implementation)
    assert narrow.filter(names) == [TOPIC_1, TOPIC_2]
    wide = TopicsPattern.compile("persistent://my-property/my-ns/.*", implementation)
    assert wide.filter(names) == names


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_full_match_of_the_partitioned_name(implementation: Implementation) -> None:
    pattern = TopicsPattern.compile("persistent://t/ns/orders", implementation)
    assert pattern.matches("persistent://t/ns/orders")
    assert pattern.matches("persistent://t/ns/orders-partition-7")
    assert pattern.filter(["persistent://t/ns/orders-partition-7"]) == [
        "persistent://t/ns/orders-partition-7"  # the original name, suffix kept
    ]
    assert not pattern.matches("persistent://t/ns/orders2")  # full match, not search
    assert not pattern.matches("persistent://t/ns/my-orders")
    assert not pattern.matches("persistent://t/ns2/orders")
    # The subject never carries the suffix, so a pattern naming a partition matches nothing.
    by_partition = TopicsPattern.compile("t/ns/orders-partition-1", implementation)
    assert not by_partition.matches("persistent://t/ns/orders-partition-1")
    # A -partition- text that is not a partition number stays part of the name.
    odd = TopicsPattern.compile("t/ns/x-partition-01", implementation)
    assert odd.matches("persistent://t/ns/x-partition-01")


def test_character_classes_are_ascii_like_java() -> None:
    for implementation in IMPLEMENTATIONS:
        word = TopicsPattern.compile(r"t/ns/\w+-\d", implementation)
        assert word.matches("persistent://t/ns/hello_1-7")
        assert not word.matches("persistent://t/ns/héllo-7")
        assert not word.matches("persistent://t/ns/hello-\u0663")  # ARABIC-INDIC DIGIT THREE
    # Java's CASE_INSENSITIVE folds ASCII only (without UNICODE_CASE); so does "re".
    assert TopicsPattern.compile("(?i)t/ns/x", "re").matches("persistent://t/ns/X")
    assert not TopicsPattern.compile("(?i)t/ns/é", "re").matches("persistent://t/ns/É")


def test_short_topic_names_are_completed_before_matching() -> None:
    pattern = TopicsPattern.compile("public/default/.*")
    assert pattern.matches("my-topic")


@pytest.mark.parametrize("regex", [".*", "persistent://.*", "non-persistent://.*"])
def test_match_all_fast_path(regex: str) -> None:
    pattern = TopicsPattern.compile(regex)
    assert pattern.match_all
    assert pattern.pattern == ".*"
    names = ["persistent://a/b/c", "non-persistent://x/y/z-partition-0"]
    assert pattern.filter(names) == names
    assert pattern.matches_subject("anything\nat all")


def test_java_quote_is_understood_by_both_implementations() -> None:
    regex = r"^\Qpersistent://public/default/t.p\E$"
    for implementation in IMPLEMENTATIONS:
        pattern = TopicsPattern.compile(regex, implementation)
        assert pattern.prefix == "public/default/t.p"
        assert pattern.matches("persistent://public/default/t.p")
        assert not pattern.matches("persistent://public/default/tXp")


@pytest.mark.parametrize(
    ("regex", "expanded"),
    [
        (r"\Qa.b\E.*", r"a\.b.*"),
        (r"\Qa.b", r"a\.b"),  # an unterminated quote runs to the end, as in Java
        (r"a\\Qb", r"a\\Qb"),  # an escaped backslash does not start a quote
        ("plain", "plain"),
    ],
)
def test_expand_quotes(regex: str, expanded: str) -> None:
    assert expand_quotes(regex) == expanded


def test_invalid_regex_reports_the_position() -> None:
    with pytest.raises(TopicPatternError) as info:
        TopicsPattern.compile("persistent://t/ns/(orders")
    assert info.value.offset == 5
    assert "missing )" in str(info.value)
    with pytest.raises(TopicPatternError, match="RE2"):
        TopicsPattern.compile("t/ns/(?<=x)y", "re2")


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown regex implementation"):
        TopicsPattern.compile("x", "pcre")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        TopicsPattern.compile(b"x")  # type: ignore[arg-type]


def test_pattern_is_immutable_hashable_and_picklable() -> None:
    pattern = TopicsPattern.compile("persistent://t/ns/a.*", "re2")
    clone = pickle.loads(pickle.dumps(pattern))
    assert clone == pattern
    assert hash(clone) == hash(pattern)
    assert clone.matches("persistent://t/ns/abc")
    with pytest.raises(AttributeError):
        pattern.pattern = "x"  # type: ignore[misc]


def test_missing_re2_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "re2", None)
    _compile_cached.cache_clear()
    try:
        with pytest.raises(ImportError, match=r"msgfilter\[re2\]"):
            TopicsPattern.compile("t/ns/never-compiled-before", "re2")
    finally:
        _compile_cached.cache_clear()


# --- the safe subset of the re implementation ----------------------------------------

SAFE = [
    "t/ns/.*",
    "t/ns/topic-[0-9]+",
    "t/ns/(foo|bar)-.*",
    "t/ns/.*-events",
    "t/ns/.*foo.*",
    "^t/ns/.*$",
    "t/ns/[^/]+",
    "t/ns/(orders|order-items)",  # the parser factors out "order"
    "t/ns/(ab|ac)*x",
    "t/ns/(ab)*c",
    "t/ns/a{2,5}",
    "(?i)t/ns/abc.*",
    "t/ns/[a-z]+-[0-9]+",
    "t/ns/x?y",
    r"t/ns/\w+-\d+",
    "t/ns/(?:[a-z]{3}-)*[0-9]",
]

UNSAFE = [
    ("(a+)+", "nested quantifier"),
    ("(a*)*b", "nested quantifier"),
    ("(a?b)*", "nested quantifier"),
    ("(a|bc)*", "nested quantifier"),
    (r"(\w+\s?)*", "nested quantifier"),
    ("(.*)*", "nested quantifier"),
    ("(a+){2}", "nested quantifier"),
    ("(a|a)*", "alternatives"),
    ("(a|a)*b", "alternatives"),
    ("(x|xy)*", "nested quantifier"),
    (r"(a)\1", "backreferences"),
    ("(?P<x>a)(?P=x)", "backreferences"),
    ("(a)?(?(1)a|b)", "backreferences"),
    ("(?=a)a", "lookahead"),
    ("a(?!b)", "lookahead"),
    ("(?<=a)b", "lookahead"),
    ("(?<!a)b", "lookahead"),
    (".*a.*b", "choice point"),
    ("a?a?aa", "choice point"),
    (".*/.*/.*", "choice point"),
]


@pytest.mark.parametrize("regex", SAFE)
def test_safe_patterns_are_accepted(regex: str) -> None:
    assert check_backtracking_safety(regex) <= MAX_CHOICE_POINTS
    assert TopicsPattern.compile(regex, "re").implementation == "re"


@pytest.mark.parametrize(("regex", "reason"), UNSAFE)
def test_unsafe_patterns_are_refused_by_re_only(regex: str, reason: str) -> None:
    with pytest.raises(UnsafePatternError, match=reason) as info:
        TopicsPattern.compile(regex, "re")
    assert isinstance(info.value, TopicPatternError)
    assert isinstance(info.value, ValueError)
    assert "re2" in str(info.value)
    needs_backtracking = reason in ("backreferences", "lookahead")
    if needs_backtracking:
        with pytest.raises(TopicPatternError):
            TopicsPattern.compile(regex, "re2")
    else:
        TopicsPattern.compile(regex, "re2")  # RE2 runs them in linear time


def test_choice_points_are_counted() -> None:
    assert check_backtracking_safety("t/ns/.*") == 0  # nothing can follow the .*
    assert check_backtracking_safety("t/ns/.*-x") == 1  # '-' may be in .* or after it
    assert check_backtracking_safety("t/ns/[^-]*-x") == 0  # [^-] never takes the '-'


def test_case_insensitive_classes_are_over_approximated() -> None:
    # Under IGNORECASE "k" also matches the Kelvin sign U+212A: both k* can take it, or what
    # follows them, so there are two choice points.
    with pytest.raises(UnsafePatternError):
        check_backtracking_safety("(?i)k*\u212ak*x")


def test_deep_nesting_is_refused_not_crashing() -> None:
    with pytest.raises(TopicPatternError):
        TopicsPattern.compile("(" * 1000 + "a" + ")" * 1000)


# --- literal prefixes -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("regex", "prefix"),
    [
        ("t/ns/orders-.*", "t/ns/orders-"),
        ("^t/ns/x$", "t/ns/x"),
        ("t/ns/(?:abc)d.*", "t/ns/abcd"),
        ("t/ns/(ab|cd)", "t/ns/"),
        ("t/ns/a+", "t/ns/"),
        (r"t/ns/a\.b", "t/ns/a.b"),
        ("(?i)t/ns/x", ""),
        ("t/(?i:ns)/x", "t/"),
        (".*-events", ""),
        ("t/ns/(orders|order-items)", "t/ns/order"),
    ],
)
def test_literal_prefix(regex: str, prefix: str) -> None:
    assert literal_prefix(regex) == prefix
    assert TopicsPattern.compile(regex).prefix == prefix


SAFE_ATOMS = ["a", "b", "-", ".", "[ab]", "[^a]", r"\d", "(?:ab)", "(?:a|b)", "x"]
QUANTIFIERS = ["", "", "*", "+", "?", "{1,2}"]


@st.composite
def simple_patterns(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(
            st.tuples(st.sampled_from(SAFE_ATOMS), st.sampled_from(QUANTIFIERS)),
            min_size=1,
            max_size=5,
        )
    )
    return "t/" + "".join(atom + quantifier for atom, quantifier in parts)


@settings(max_examples=300)
@given(simple_patterns(), st.text(alphabet="ab-x1.", max_size=8))
def test_re_and_re2_agree_and_matches_start_with_the_prefix(regex: str, local: str) -> None:
    try:
        with_re = TopicsPattern.compile(regex, "re")
    except UnsafePatternError:
        assume(False)
        return
    with_re2 = TopicsPattern.compile(regex, "re2")
    subject = "t/" + local
    assert with_re.matches_subject(subject) == with_re2.matches_subject(subject)
    if with_re.matches_subject(subject):
        assert subject.startswith(with_re.prefix)
