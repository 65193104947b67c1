"""docs/jit.md says how the Numba tier runs every op of the registry, and refuses only those."""

from runtime.opdef import builtin_ops

from ..page_generators import assert_page_is_current, load_page_generator
from .test_every_op import NUMPY_TIER_ONLY, REFUSED


def test_the_jit_page_matches_the_registry_and_the_rules():
    assert_page_is_current("make_jit_page")


def test_the_ops_the_page_refuses_are_the_ones_the_tests_find_refused():
    page = load_page_generator("make_jit_page")
    refused = {name for name, opdef in builtin_ops().items() if "refused" in page.how(name, opdef)}
    assert refused == REFUSED | NUMPY_TIER_ONLY
