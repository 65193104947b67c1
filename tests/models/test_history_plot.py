"""`History.plot` draws one axis per metric family, validation beside training."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _history() -> rt.callbacks.History:
    history = rt.callbacks.History()
    history.on_train_begin()
    for epoch, (loss, acc) in enumerate([(1.0, 0.5), (0.6, 0.7), (0.4, 0.8)]):
        history.on_epoch_end(epoch, {"loss": loss, "accuracy": acc,
                                     "val_loss": loss + 0.1, "val_accuracy": acc - 0.1})
    return history


def _lines(axis) -> dict:
    return {line.get_label(): (list(line.get_xdata()), list(line.get_ydata()),
                               line.get_linestyle()) for line in axis.lines}


def test_one_axis_per_family_with_validation_beside_training():
    axes = _history().plot()
    try:
        assert [a.get_title() for a in axes] == ["loss", "accuracy"]
        loss, accuracy = (_lines(a) for a in axes)
        assert loss["loss"] == ([1, 2, 3], [1.0, 0.6, 0.4], "-")
        assert loss["val_loss"][1] == pytest.approx([1.1, 0.7, 0.5])
        assert loss["val_loss"][2] == "--"
        assert set(accuracy) == {"accuracy", "val_accuracy"}
        assert accuracy["val_accuracy"][1] == pytest.approx([0.4, 0.6, 0.7])
        assert axes[0].figure is axes[1].figure
        assert axes[0].get_legend() is not None
    finally:
        plt.close("all")


def test_keys_select_families_and_given_axes_are_used():
    history = _history()
    fig, given = plt.subplots()
    try:
        (axis,) = history.plot(keys=["val_accuracy"], ax=given)
        assert axis is given and set(_lines(axis)) == {"accuracy", "val_accuracy"}
        with pytest.raises(ValueError, match="2 families"):
            history.plot(ax=given)
        with pytest.raises(KeyError, match="no curve named"):
            history.plot(keys=["acc"])
        with pytest.raises(TypeError, match="list of names"):
            history.plot(keys="loss")
    finally:
        plt.close("all")


def test_after_fit_with_validation():
    x = np.random.default_rng(0).normal(size=(32, 2)).astype(np.float32)
    y = (x[:, :1] > 0).astype(np.float32)
    model = rt.keras.Sequential([rt.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="binary_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, y, epochs=2, validation_data=(x, y), verbose=0)
    try:
        axes = history.plot()
        assert [a.get_title() for a in axes] == ["loss", "accuracy"]
        assert all(len(a.lines) == 2 for a in axes)
        assert _lines(axes[0])["val_loss"][1] == pytest.approx(history.history["val_loss"])
    finally:
        plt.close("all")


def test_empty_history_says_so():
    with pytest.raises(ValueError, match="empty"):
        rt.callbacks.History().plot()
