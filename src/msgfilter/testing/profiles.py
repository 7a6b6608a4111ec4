"""Hypothesis settings profiles for property tests: `property_settings` and the
environment variables that pick a profile and a number of examples."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

#: The environment variable naming the Hypothesis profile `property_settings` starts from.
PROFILE_VARIABLE = "MSGFILTER_HYPOTHESIS_PROFILE"
#: The environment variable that, when set, overrides the profile's number of examples.
EXAMPLES_VARIABLE = "MSGFILTER_HYPOTHESIS_EXAMPLES"

# "msgfilter-ci" keeps a CI run bounded; "msgfilter-fuzz" is for long runs
# (benchmarks/fuzz.py). No deadline: a first compile builds the parser, and machines vary.
settings.register_profile(
    "msgfilter-ci",
    max_examples=100,
    # A CI run must not fail on a case that the previous run never drew: fixed seeds here,
    # random exploration in the fuzz profile.
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=(HealthCheck.too_slow, HealthCheck.data_too_large),
)
settings.register_profile(
    "msgfilter-fuzz", settings.get_profile("msgfilter-ci"), max_examples=5_000,
    derandomize=False,
)


def property_settings(share: float = 1.0) -> settings:
    """Settings for a property test: the profile named by `$MSGFILTER_HYPOTHESIS_PROFILE`
    (default `msgfilter-ci`: 100 examples, no deadline) or as many examples as
    `$MSGFILTER_HYPOTHESIS_EXAMPLES` says, times `share` for properties that are costly
    per example."""
    base = settings.get_profile(os.environ.get(PROFILE_VARIABLE, "msgfilter-ci"))
    examples = int(os.environ.get(EXAMPLES_VARIABLE, base.max_examples))
    return settings(base, max_examples=max(1, round(examples * share)))
