"""docs/numpy.md lists exactly the NumPy calls the registry supports."""

from ..page_generators import assert_page_is_current, load_page_generator


def test_the_numpy_page_matches_the_registry():
    assert_page_is_current("make_numpy_page")


def test_the_page_lists_the_calls_the_task_needs():
    text = load_page_generator("make_numpy_page").PAGE.read_text()
    for name in ("sum", "mean", "std", "var", "argmax", "cumsum", "dot", "matmul", "einsum",
                 "concatenate", "where", "clip", "exp", "allclose", "full_like", "take",
                 "linalg.norm"):
        assert f"| `np.{name}` |" in text, name
