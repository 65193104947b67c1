"""`keras.callbacks.SwapEMAWeights`: evaluates and predicts with the optimizer's moving
averages of the weights (`use_ema=True`), swapping them into the model and back."""

from __future__ import annotations

from .callback_base import Callback


class SwapEMAWeights(Callback):
    """Swaps the model's trainable weights with the optimizer's exponential moving averages
    for evaluation (`on_test_begin` / `on_test_end`, so validation during fit sees the
    averages) and prediction; with `swap_on_epoch=True` also at the end of each epoch (back
    at the next epoch's start), and after the last epoch the averages are kept in the
    model. As in Keras 3.15, the averages swapped in for `predict` stay in the model
    afterwards. The optimizer (or a LossScaleOptimizer's inner one) needs `use_ema=True`."""

    def __init__(self, swap_on_epoch: bool = False) -> None:
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _optimizer(self):
        optimizer = self.model.optimizer
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)
        if not getattr(optimizer, "use_ema", False):
            raise ValueError("SwapEMAWeights must be used when `use_ema=True` is set on the "
                             f"optimizer. Received: use_ema={getattr(optimizer, 'use_ema', None)}")
        return optimizer

    def _pairs(self):
        optimizer = self._optimizer()
        return [(var, optimizer._average_of(var)) for var in self.model.trainable_variables]

    def _swap_variables(self) -> None:
        for var, average in self._pairs():
            held = var.numpy()
            var.assign(average.read_value())
            average.assign(held)

    def _finalize_ema_values(self) -> None:
        for var, average in self._pairs():
            average.assign(var.read_value())

    def on_epoch_begin(self, epoch, logs=None) -> None:
        if self.swap_on_epoch and self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

    def on_epoch_end(self, epoch, logs=None) -> None:
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True
            if epoch == self.params["epochs"] - 1:
                self._finalize_ema_values()

    def on_test_begin(self, logs=None) -> None:
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True

    def on_test_end(self, logs=None) -> None:
        if self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

    def on_predict_begin(self, logs=None) -> None:
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True

    def on_predict_end(self, logs=None) -> None:
        if not self._ema_weights_in_model:  # Keras 3.15's condition: never true here
            self._swap_variables()
            self._ema_weights_in_model = False
