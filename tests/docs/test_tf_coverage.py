"""docs/tf-coverage.md classes TensorFlow's exported names by what `import runtime` offers."""

import importlib.util
import pathlib

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "docs" / "make_tf_coverage.py"


def _coverage():
    spec = importlib.util.spec_from_file_location("make_tf_coverage", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_coverage_page_is_current():
    page = _coverage()
    text = page.PAGE.read_text()
    assert page.render(text) == text, "docs/tf-coverage.md is stale: run " \
        "python docs/make_tf_coverage.py"


def test_names_are_classed_by_what_the_package_has():
    import runtime

    page = _coverage()
    assert page.classify(runtime, "tf.math.add") == (page.OFFERED, "")
    assert page.classify(runtime, "tf.math.no_such_name")[0] == page.MISSING
    assert page.classify(runtime, "tf.raw_ops")[0] == page.NOT_MEANINGFUL
    assert page.classify(runtime, "tf.tpu")[0] == page.NOT_MEANINGFUL
    assert page.classify(runtime, "tf.sort")[0] == page.DIFFERENT
    listed = {name for name, _ in page.tf_names()}
    assert {"tf.math.add", "tf.nn.relu", "tf.keras.layers.Dense"} <= listed
