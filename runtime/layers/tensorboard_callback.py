"""`rt.keras.callbacks.TensorBoard`: `fit` logs for TensorBoard, written with `rt.summary`.

    model.fit(x, y, epochs=5, validation_data=(xv, yv),
              callbacks=[rt.keras.callbacks.TensorBoard(log_dir="logs/run1")])

`log_dir/train` receives `epoch_loss` and `epoch_<metric>` at each epoch (step = epoch),
`batch_loss`/`batch_<metric>` every `update_freq` batches (step = batches seen),
`epoch_learning_rate`, weight histograms `<weight path>/histogram` every `histogram_freq`
epochs, weights as images `<weight path>/image` with `write_images`, and the graph of the
train step with `write_graph`; `log_dir/validation` receives the `val_*` logs as
`epoch_loss`, `epoch_<metric>` (step = epoch) and `evaluation_<name>_vs_iterations` (step =
the optimizer's iterations), as Keras 3's callback writes them (TF 2 tensor summaries).
"""

from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np

from .. import summary
from .callback_base import Callback


class TensorBoard(Callback):
    """Writes `fit`'s losses, metrics, weight histograms and train-step graph for TensorBoard.

    `update_freq`: "epoch" (scalars once an epoch), "batch" (also after every batch) or an
    int n (also after every n batches). `histogram_freq`: weight histograms every that many
    epochs (0: none). `write_images`: 2-D weights (and 4-D kernels' first slices) as images.
    `profile_batch` and `embeddings_freq` are accepted for compatibility and record nothing.
    Needs tensorboardX (`pip install 'autograph-rt[summary]'`)."""

    def __init__(self, log_dir: str = "logs", histogram_freq: int = 0, write_graph: bool = True,
                 write_images: bool = False, write_steps_per_second: bool = False,
                 update_freq: str | int = "epoch", profile_batch: int | tuple = 0,
                 embeddings_freq: int = 0, embeddings_metadata: Any = None) -> None:
        super().__init__()
        if not isinstance(log_dir, (str, os.PathLike)):
            raise TypeError(f"TensorBoard: log_dir must be a path (str), got "
                            f"{type(log_dir).__name__}.")
        if not isinstance(histogram_freq, int) or histogram_freq < 0:
            raise ValueError(f"TensorBoard: histogram_freq must be an int >= 0, got "
                             f"{histogram_freq!r}.")
        if update_freq == "batch":
            update_freq = 1
        if update_freq != "epoch" and (not isinstance(update_freq, int)
                                       or isinstance(update_freq, bool) or update_freq < 1):
            raise ValueError("TensorBoard: update_freq must be 'epoch', 'batch' or a positive "
                             f"int, got {update_freq!r}.")
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = bool(write_graph)
        self.write_images = bool(write_images)
        self.write_steps_per_second = bool(write_steps_per_second)
        self.update_freq = update_freq
        self.profile_batch = profile_batch
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._writers: dict[str, Any] = {}
        self._batches_seen = 0
        self._graph_written = False

    def _writer(self, run: str) -> Any:
        if run not in self._writers:
            self._writers[run] = summary.create_file_writer(os.path.join(self.log_dir, run))
        return self._writers[run]

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._batches_seen = 0
        self._graph_written = False
        self._writer("train")

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        self._batches_seen += 1
        if self.write_graph and not self._graph_written:
            self._write_train_graph()
        if self.update_freq == "epoch" or self._batches_seen % self.update_freq:
            return
        with self._writer("train").as_default(step=self._batches_seen):
            for key, value in (logs or {}).items():
                if _is_number(value):
                    summary.scalar(f"batch_{key}", float(value))

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        logs = logs or {}
        train = {k: v for k, v in logs.items() if not k.startswith("val_") and _is_number(v)}
        valid = {k[4:]: v for k, v in logs.items() if k.startswith("val_") and _is_number(v)}
        rate = _learning_rate(self.model)
        if rate is not None:
            train["learning_rate"] = rate
        with self._writer("train").as_default(step=epoch):
            for key, value in train.items():
                summary.scalar(f"epoch_{key}", float(value))
            if self.histogram_freq and epoch % self.histogram_freq == 0:
                self._write_weights()
        if valid:
            iterations = _iterations(self.model)
            with self._writer("validation").as_default(step=epoch):
                for key, value in valid.items():
                    summary.scalar(f"epoch_{key}", float(value))
                    if iterations is not None:  # Keras writes these when validation ends
                        summary.scalar(f"evaluation_{key}_vs_iterations", float(value),
                                       step=iterations)
        for writer in self._writers.values():
            writer.flush()

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()

    def _write_weights(self) -> None:
        """Each layer's weights as Keras 3 writes them: `<path>/histogram`, and with
        `write_images` `<path>/image` (1-D to 3-D weights, as Keras lays them out)."""
        for layer in getattr(self.model, "layers", ()):
            for variable in getattr(layer, "weights", ()):
                path = str(getattr(variable, "path", None) or variable.name)
                tag = path.removesuffix(":0").replace(":", "_")
                values = np.asarray(variable.numpy())
                if values.dtype.kind not in "biuf":
                    continue
                summary.histogram(f"{tag}/histogram", values)
                if self.write_images:
                    picture = _weight_image(values)
                    if picture is not None:
                        summary.image(f"{tag}/image", picture)

    def _write_train_graph(self) -> None:
        self._graph_written = True
        step_function = getattr(self.model, "_train_step", None)
        traces = getattr(step_function, "list_concrete_functions", None)
        if traces is None:
            return  # run_eagerly: no graph
        concrete = list(traces())
        if not concrete:
            return
        with self._writer("train").as_default():
            summary.graph(concrete[-1])


def _is_number(value: Any) -> bool:
    try:
        return np.asarray(value).size == 1 and np.asarray(value).dtype.kind in "biuf"
    except (TypeError, ValueError):
        return False


def _learning_rate(model: Any) -> float | None:
    """The optimizer's learning rate now, which Keras logs as `epoch_learning_rate`."""
    rate = getattr(getattr(model, "optimizer", None), "learning_rate", None)
    if rate is None:
        return None
    value = rate.numpy() if hasattr(rate, "numpy") else rate
    return float(value) if _is_number(value) else None


def _iterations(model: Any) -> int | None:
    iterations = getattr(getattr(model, "optimizer", None), "iterations", None)
    return None if iterations is None else int(np.asarray(iterations.numpy()))


def _weight_image(values: np.ndarray) -> np.ndarray | None:
    """A weight as Keras 3 shows it: a bias as [1, n, 1, 1], a matrix as [1, short, long, 1],
    a 3-D kernel as one image per last-axis slice; None for other shapes."""
    image = np.squeeze(values).astype(np.float32)
    if image.ndim == 1:
        image = image.reshape(1, image.shape[0], 1, 1)
    elif image.ndim == 2:
        if image.shape[0] > image.shape[1]:
            image = image.T
        image = image.reshape(1, image.shape[0], image.shape[1], 1)
    elif image.ndim == 3:
        image = np.transpose(image, (2, 0, 1))[..., None]
    if image.ndim != 4 or image.shape[-1] not in (1, 3, 4) or image.size == 0:
        return None
    return image


__all__ = ["TensorBoard"]
