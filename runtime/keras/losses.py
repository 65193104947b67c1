"""`keras.losses`: Keras's loss functions (one value per sample) and loss classes (one reduced
value, taking `sample_weight` and the predictions' mask); see `runtime.layers.losses`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..layers.losses import *  # noqa: F401,F403 -- the one losses module
from ..layers.losses import __all__  # noqa: F401

if TYPE_CHECKING:  # the names made above, declared for type checkers (docs/make_typing_surface.py)
    from ._declared_losses import *  # noqa: F403
