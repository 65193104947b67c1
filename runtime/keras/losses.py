"""`keras.losses`: Keras's loss functions (one value per sample) and loss classes (one reduced
value, taking `sample_weight` and the predictions' mask); see `runtime.layers.losses`."""

from __future__ import annotations

from ..layers.losses import *  # noqa: F401,F403 -- the one losses module
from ..layers.losses import __all__  # noqa: F401
