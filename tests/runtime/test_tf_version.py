"""`rt.version`: the names of TensorFlow 2.21's `tf.version`, describing this runtime."""

import configparser
import os

import runtime as rt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# dir(tf.version) under TensorFlow 2.21, less the dunder names
TF_VERSION_NAMES = ["COMPILER_VERSION", "GIT_VERSION", "GRAPH_DEF_VERSION",
                    "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER", "VERSION"]


def test_tf_version_names_are_offered_with_tensorflows_types():
    assert [n for n in dir(rt.version) if n.isupper()] == TF_VERSION_NAMES
    for name in TF_VERSION_NAMES:
        expected = int if name.startswith("GRAPH_DEF") else str
        assert type(getattr(rt.version, name)) is expected, name


def test_version_is_the_tensorflow_release_followed_and_the_package_keeps_its_own():
    assert rt.version.VERSION == rt.__version__ == "2.21.0"
    assert rt.keras.__version__.startswith("3.")  # Keras 3's API, as TensorFlow 2.21 ships it
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    assert rt.version.package_version == cfg["metadata"]["version"]


def test_graph_def_version_is_what_as_graph_def_writes():
    f = rt.function(lambda x: x + 1.0)
    graph_def = f.get_concrete_function(rt.TensorSpec([], rt.float32)).graph.as_graph_def()
    assert graph_def.versions["producer"] == rt.version.GRAPH_DEF_VERSION
