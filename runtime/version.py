"""`rt.version`: the names of `tf.version`, describing this runtime."""

from __future__ import annotations

import platform

# The TensorFlow version whose API this runtime follows, also `rt.__version__`: programs that
# check `tf.__version__` (a "2." prefix, a minimum release) take their TensorFlow 2 paths.
VERSION: str = "2.21.0"
package_version: str = "0.1.0"  # this package's own release (setup.cfg's version)
GIT_VERSION: str = "unknown"  # TensorFlow's value for a build made outside a git checkout
COMPILER_VERSION: str = platform.python_compiler()  # the compiler of the Python running it
GRAPH_DEF_VERSION: int = 1  # the `versions["producer"]` of `as_graph_def()`
GRAPH_DEF_VERSION_MIN_CONSUMER: int = 0
GRAPH_DEF_VERSION_MIN_PRODUCER: int = 0

__all__ = ["COMPILER_VERSION", "GIT_VERSION", "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER",
           "GRAPH_DEF_VERSION_MIN_PRODUCER", "VERSION"]
