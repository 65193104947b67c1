"""`keras.optimizers.legacy`: Keras 2's optimizers, which Keras 3 no longer has.

The names are kept so that old code fails with Keras 3's explanation rather than an
`AttributeError`: every one of them is the same class, and making one raises `ImportError`
(as `tf.keras.optimizers.legacy.Adam()` does with TensorFlow 2.21 and Keras 3). Use
`keras.optimizers.Adam` and the others instead.
"""

from __future__ import annotations

from typing import Any

_MESSAGE = ("`keras.optimizers.legacy` is not supported in Keras 3. When using `tf.keras`, "
            "to continue using a `tf.keras.optimizers.legacy` optimizer, you can install the "
            "`tf_keras` package (Keras 2) and set the environment variable "
            "`TF_USE_LEGACY_KERAS=True` to configure TensorFlow to use `tf_keras` when "
            "accessing `tf.keras`. Here, use the Keras 3 optimizers of `keras.optimizers` "
            "(e.g. keras.optimizers.Adam) instead.")


class LegacyOptimizerWarning:
    """Keras 3's stand-in for every Keras 2 optimizer: making one raises `ImportError`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise ImportError(_MESSAGE)


Adagrad = Adam = Ftrl = Optimizer = RMSprop = SGD = LegacyOptimizerWarning

__all__ = ["Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop", "SGD"]
