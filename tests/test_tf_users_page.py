"""docs/tensorflow-users.md lists exactly the names `import runtime as tf` offers."""

import importlib.util
import pathlib

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "docs" / "make_tf_users_page.py"


def _page_module():
    spec = importlib.util.spec_from_file_location("make_tf_users_page", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_lists_the_names_the_package_has():
    page = _page_module()
    text = page.PAGE.read_text()
    assert page.render(text) == text, "docs/tensorflow-users.md is stale: run " \
        "python docs/make_tf_users_page.py"


def test_the_names_tensorflow_guides_reach_for_are_listed():
    text = _page_module().listing()
    for name in ("`Module`", "`Generator`", "`Checkpoint`", "`stateless_normal`", "`svd`",
                 "`scatter_nd`", "`map_fn`", "`Conv2D`", "`load_model`"):
        assert name in text, name
