"""`keras.distillation`: knowledge distillation, Keras 3.12's API.

    distiller = keras.distillation.Distiller(
        teacher=teacher, student=student,
        distillation_losses=keras.distillation.LogitsDistillation(temperature=3.0),
        student_loss_weight=0.5)
    distiller.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    distiller.fit(x, y, epochs=5)          # trains the student; the teacher is frozen

The total loss is `student_loss_weight * student_loss + (1 - student_loss_weight) *
sum(weight_i * distillation_loss_i)`, where the student loss compares the student's
predictions with `y` and each distillation loss compares the teacher's outputs (or an inner
layer's, for `FeatureDistillation` with layer names) with the student's.
"""

from __future__ import annotations

from typing import Any

from .. import nest
from ..gradients.tape import GradientTape
from ..layers.functional import Functional
from ..layers.model import Model, Sequential
from ..ops import array_math, nn
from ..ops.core import convert_to_tensor
from . import losses as _losses
from . import metrics as _metrics


def _convert_loss_to_function(loss_item):
    """A loss callable from a Keras name (`keras.losses.get`), a loss object or None."""
    if loss_item is None:
        return None
    if isinstance(loss_item, str):
        loss_fn = _losses.get(loss_item)
        if loss_fn is None:
            raise ValueError(f"Unknown loss function: '{loss_item}'.")
        return loss_fn
    return loss_item


def _map_losses(loss):
    return nest.map_structure(_convert_loss_to_function, loss) if isinstance(
        loss, (list, tuple, dict)) else _convert_loss_to_function(loss)


def _flat(structure) -> list:
    return nest.flatten(structure) if isinstance(structure, (list, tuple, dict)) else [structure]


def _zip_structures(losses, teacher, student) -> list:
    """(loss, teacher, student) triples of matching structures, Keras's `tree.map_structure`
    over the three."""
    if isinstance(losses, (list, tuple, dict)):
        nest.assert_same_structure(losses, teacher)
        nest.assert_same_structure(losses, student)
        return list(zip(nest.flatten(losses), nest.flatten(teacher), nest.flatten(student)))
    return [(losses, teacher, student)]


def _sum(values: list):
    return array_math.reduce_sum(array_math.stack(
        [array_math.cast(convert_to_tensor(v), "float32") for v in values]))


class DistillationLoss:
    """Base of the distillation losses: subclass it and define `compute_loss(teacher_outputs,
    student_outputs, **kwargs)` returning a scalar tensor."""

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs: Any):
        raise NotImplementedError("Subclasses must implement compute_loss")

    def validate_outputs(self, teacher_outputs, student_outputs) -> None:
        """Raises `ValueError` when the outputs' structures differ."""
        nest.assert_same_structure(teacher_outputs, student_outputs)

    def validate_model_compatibility(self, teacher, student) -> None:
        """Raises `ValueError` when this loss cannot compare these models."""


class FeatureDistillation(DistillationLoss):
    """The mean of `loss` (default "mse"; a name, a loss object, or a nest of them with None
    to skip an output) between the teacher's and the student's features: the outputs of the
    layers `teacher_layer_name` and `student_layer_name` (functional or Sequential models),
    or the models' final outputs when they are None."""

    def __init__(self, loss="mse", teacher_layer_name=None, student_layer_name=None) -> None:
        self.teacher_layer_name = teacher_layer_name
        self.student_layer_name = student_layer_name
        self.loss = _map_losses(loss)
        if all(item is None for item in _flat(self.loss)):
            raise ValueError("The `loss` argument in `FeatureDistillation` must contain at "
                             "least one non-`None` value.")

    def validate_model_compatibility(self, teacher, student) -> None:
        if self.teacher_layer_name is not None or self.student_layer_name is not None:
            subclassed = [role for role, model in (("teacher", teacher), ("student", student))
                          if not isinstance(model, (Functional, Sequential))]
            if subclassed:
                raise ValueError(
                    "FeatureDistillation with specific layer names requires Functional or "
                    f"Sequential models. The {' and '.join(subclassed)} model(s) appear to be "
                    "subclassed (no symbolic inputs/outputs). Either use Functional/Sequential "
                    "models, or use FeatureDistillation without layer names (to distill final "
                    "outputs only), or use LogitsDistillation instead.")
        for role, model, name in (("teacher", teacher, self.teacher_layer_name),
                                  ("student", student, self.student_layer_name)):
            if name is not None:
                try:
                    model.get_layer(name=name)
                except ValueError as exc:
                    raise ValueError(f"In {role} model: {exc}") from None

    def validate_outputs(self, teacher_outputs, student_outputs) -> None:
        super().validate_outputs(teacher_outputs, student_outputs)
        if isinstance(self.loss, (list, tuple, dict)):
            try:
                nest.assert_same_structure(self.loss, teacher_outputs)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"Loss structure mismatch. Loss structure: {self.loss}, "
                                 f"Output structure: {teacher_outputs}. Error: {exc}") from None

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs: Any):
        """The sum over the outputs of each loss's mean."""
        values = [0.0 if fn is None else array_math.reduce_mean(fn(teacher, student))
                  for fn, teacher, student in _zip_structures(self.loss, teacher_outputs,
                                                              student_outputs)]
        return _sum(values)

    def get_config(self) -> dict:
        return {"loss": self.loss, "teacher_layer_name": self.teacher_layer_name,
                "student_layer_name": self.student_layer_name}

    @classmethod
    def from_config(cls, config: dict) -> "FeatureDistillation":
        return cls(**config)


class LogitsDistillation(DistillationLoss):
    """The loss (default "kl_divergence") between the teacher's and the student's logits,
    both divided by `temperature` (default 3.0). With a `keras.losses.KLDivergence` object,
    the scaled logits go through a softmax first and the loss is multiplied by
    `temperature ** 2`; a loss given by name is applied to the scaled logits themselves, as
    Keras does."""

    def __init__(self, temperature=3.0, loss="kl_divergence") -> None:
        self.temperature = temperature
        self.loss = _map_losses(loss)
        if all(item is None for item in _flat(self.loss)):
            raise ValueError("At least one loss must be non-`None`.")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise ValueError(f"temperature must be a number, got {type(temperature)}")
        if temperature <= 0.0:
            raise ValueError("temperature must be positive.")

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs: Any):
        temperature = float(self.temperature)
        values = []
        for fn, teacher, student in _zip_structures(self.loss, teacher_outputs,
                                                    student_outputs):
            if fn is None:
                values.append(0.0)
                continue
            teacher = convert_to_tensor(teacher) / temperature
            student = convert_to_tensor(student) / temperature
            if isinstance(fn, _losses.KLDivergence):
                loss = array_math.reduce_mean(fn(nn.softmax(teacher, axis=-1),
                                                 nn.softmax(student, axis=-1)))
                values.append(loss * (temperature ** 2))
            else:
                values.append(array_math.reduce_mean(fn(teacher, student)))
        return _sum(values)

    def get_config(self) -> dict:
        return {"temperature": self.temperature, "loss": self.loss}

    @classmethod
    def from_config(cls, config: dict) -> "LogitsDistillation":
        return cls(**config)


def _shape(tensor) -> tuple:
    return tuple(tensor.shape.as_list())


class Distiller(Model):
    """Keras's `Distiller(teacher, student, distillation_losses, distillation_loss_weights=None,
    student_loss_weight=0.5, name="distiller")`: a model that trains `student` from
    `teacher` (frozen: `teacher.trainable` is set to False). Calling it calls the student.

    `compile(optimizer="adam", loss=..., metrics=None)`: `loss` (required) is the student's
    loss against the labels. `fit` and `evaluate` log "loss" (the total), the compiled
    metrics, "student_loss", "distillation_loss" and "total_loss". Differences: a
    `sample_weight` given to `fit` or `evaluate` raises NotImplementedError (Keras's
    Distiller does not use it), and saving a Distiller to a `.keras` file is not implemented.
    """

    def __init__(self, teacher, student, distillation_losses, distillation_loss_weights=None,
                 student_loss_weight=0.5, name: str = "distiller", **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        self._validate_models(teacher, student)
        self.teacher = teacher
        self.student = student
        if isinstance(student_loss_weight, bool) or not isinstance(student_loss_weight,
                                                                   (int, float)):
            raise ValueError(f"student_loss_weight must be a number, got "
                             f"{type(student_loss_weight)}")
        if not 0.0 <= student_loss_weight <= 1.0:
            raise ValueError(f"student_loss_weight must be between 0.0 and 1.0, got "
                             f"{student_loss_weight}")
        self.student_loss_weight = student_loss_weight
        if distillation_losses is None:
            raise ValueError("'distillation_losses' cannot be `None`. Provide a distillation "
                             "loss (e.g., LogitsDistillation or FeatureDistillation) or a list "
                             "of distillation losses.")
        if not isinstance(distillation_losses, (list, tuple)):
            losses, weights = [distillation_losses], [1.0]
        else:
            losses = list(distillation_losses)
            if distillation_loss_weights is None:
                weights = [1.0] * len(losses)
            else:
                if len(distillation_loss_weights) != len(losses):
                    raise ValueError(f"Number of distillation_loss_weights "
                                     f"({len(distillation_loss_weights)}) must match number of "
                                     f"distillation_losses ({len(losses)})")
                weights = list(distillation_loss_weights)
        for loss in losses:
            if not isinstance(loss, DistillationLoss):
                raise TypeError(f"Distiller: each distillation loss must be a "
                                f"keras.distillation.DistillationLoss, got {loss!r}.")
            loss.validate_model_compatibility(teacher, student)
        # kept outside the layer tracking: plain Python objects
        self.__dict__["distillation_losses"] = losses
        self.__dict__["distillation_loss_weights"] = weights
        self._teacher_features = self._feature_extractor(teacher, "teacher_layer_name")
        self._student_features = self._feature_extractor(student, "student_layer_name")
        self.teacher.trainable = False
        self.student_loss_tracker = _metrics.Mean(name="student_loss")
        self.distillation_loss_tracker = _metrics.Mean(name="distillation_loss")
        self.total_loss_tracker = _metrics.Mean(name="total_loss")

    # -- validation ------------------------------------------------------------------------
    def _validate_models(self, teacher, student) -> None:
        for role, model in (("Teacher", teacher), ("Student", student)):
            if not isinstance(model, Model):
                raise ValueError(f"{role} must be a keras.Model, got {type(model)}")
        if not all(isinstance(m, (Functional, Sequential)) and getattr(m, "built", False)
                   for m in (teacher, student)):
            return  # subclassed models: no symbolic inputs and outputs to compare
        for context, pick in (("input", "inputs"), ("output", "outputs")):
            teacher_tensors, student_tensors = getattr(teacher, pick), getattr(student, pick)
            if len(teacher_tensors) != len(student_tensors):
                raise ValueError(f"Teacher and student have different numbers of {pick}: "
                                 f"{len(teacher_tensors)} and {len(student_tensors)}.")
            for t, s in zip(teacher_tensors, student_tensors):
                self._assert_shapes_are_compatible(_shape(t), _shape(s), context)
        for context, pick in (("input", "inputs"), ("output", "outputs")):
            for t, s in zip(getattr(teacher, pick), getattr(student, pick)):
                if t.dtype != s.dtype:
                    raise ValueError(f"Teacher and student {context} dtypes must match. "
                                     f"Teacher: {t.dtype.name}, Student: {s.dtype.name}.")

    @staticmethod
    def _assert_shapes_are_compatible(shape1, shape2, context: str) -> None:
        if len(shape1) != len(shape2):
            raise ValueError(f"Teacher and student {context} shapes have different dimensions. "
                             f"Teacher: {shape1}, Student: {shape2}.")
        for dim1, dim2 in zip(shape1, shape2):
            if dim1 is not None and dim2 is not None and dim1 != dim2:
                raise ValueError(f"Teacher and student {context} shapes are incompatible. "
                                 f"Teacher: {shape1}, Student: {shape2}. All dimensions must "
                                 "match.")

    def _feature_extractor(self, model, attribute: str):
        names: list = []
        for loss in self.distillation_losses:
            name = getattr(loss, attribute, None)
            if name and name not in names:
                names.append(name)
        if not names:
            return None
        outputs = {"final_output": model.outputs[0] if len(model.outputs) == 1
                   else model.output}
        for name in names:
            outputs[name] = model.get_layer(name=name).output
        extractor = Functional(model.inputs if len(model.inputs) > 1 else model.inputs[0],
                               outputs, name=f"{model.name}_multi_feature_extractor")
        return [extractor]  # in a list: its layers are the model's, tracked there

    # -- training --------------------------------------------------------------------------
    def compile(self, optimizer="adam", loss=None, metrics=None, **kwargs: Any) -> None:
        """`loss` (required): the student's loss against the labels; `metrics`: a list."""
        if loss is None:
            raise ValueError("'loss' cannot be `None`.")
        self._student_loss = _map_losses(loss)
        if metrics is not None and not isinstance(metrics, (list, tuple)):
            raise ValueError(f"metrics must be a list or tuple, got {type(metrics)}")
        super().compile(optimizer=optimizer, loss=None, metrics=metrics, **kwargs)

    def call(self, inputs, training=None):
        return self.student(inputs, training=training)

    def _features(self, extractor, model, x, training: bool, y_pred=None) -> dict:
        if extractor is not None:
            return extractor[0](x, training=training)
        return {"final_output": model(x, training=training) if y_pred is None else y_pred}

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                     training: bool = True):
        """The total loss (and the trackers' updates): the weighted student loss plus the
        weighted distillation losses."""
        if sample_weight is not None:
            raise NotImplementedError("Distiller: `sample_weight` is not implemented (Keras's "
                                      "Distiller does not use it).")
        if y_pred is None:
            y_pred = self(x, training=training)
        student_loss = convert_to_tensor(0.0)
        if self.student_loss_weight > 0.0 and y is not None:
            values = [fn(target, pred) for fn, target, pred in
                      _zip_structures(self._student_loss, y, y_pred)]
            student_loss = _sum(values) if len(values) > 1 else values[0]
            if student_loss.shape.rank:
                student_loss = array_math.reduce_mean(student_loss)
        distillation_loss = convert_to_tensor(0.0)
        if self.student_loss_weight < 1.0:
            teacher_features = self._features(self._teacher_features, self.teacher, x, False)
            student_features = self._features(self._student_features, self.student, x,
                                              training, y_pred)
            for loss, weight in zip(self.distillation_losses, self.distillation_loss_weights):
                if getattr(loss, "teacher_layer_name", None) is not None:
                    teacher_out = teacher_features[loss.teacher_layer_name]
                    student_out = student_features[loss.student_layer_name or "final_output"]
                else:
                    teacher_out, student_out = teacher_features["final_output"], y_pred
                loss.validate_outputs(teacher_out, student_out)
                value = convert_to_tensor(loss.compute_loss(teacher_out, student_out))
                if value.shape.rank:
                    raise ValueError(f"Distillation loss {type(loss).__name__} returned a "
                                     f"non-scalar loss with shape {value.shape}. The "
                                     "compute_loss method must return a scalar tensor.")
                distillation_loss = distillation_loss + float(weight) * value
        weight = float(self.student_loss_weight)
        total = weight * student_loss + (1.0 - weight) * distillation_loss
        self.student_loss_tracker.update_state(student_loss)
        self.distillation_loss_tracker.update_state(distillation_loss)
        self.total_loss_tracker.update_state(total)
        return total

    @property
    def metrics(self) -> list:
        return super().metrics + [self.student_loss_tracker, self.distillation_loss_tracker,
                                  self.total_loss_tracker]

    def _step_logs(self, x, y, y_pred, loss) -> dict:
        trackers = super().metrics
        if trackers:
            trackers[0].update_state(loss)
            for metric in trackers[1:]:
                metric.update_state(y, y_pred)
        return {metric.name: metric.result() for metric in self.metrics}

    def train_step(self, data):
        x, y, sample_weight = _unpack(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight, training=True)
        variables = self.trainable_variables
        if variables:
            self.optimizer.apply(tape.gradient(loss, variables), variables)
        return self._step_logs(x, y, y_pred, loss)

    def test_step(self, data):
        x, y, sample_weight = _unpack(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        return self._step_logs(x, y, y_pred, loss)

    def get_config(self) -> dict:
        raise NotImplementedError("Distiller.get_config: saving a Distiller is not implemented "
                                  "here; save its student (distiller.student.save(...)).")


def _unpack(data) -> tuple:
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    return tuple(data) + (None,) * (3 - len(data)) if len(data) <= 3 else data[:3]


__all__ = ["DistillationLoss", "Distiller", "FeatureDistillation", "LogitsDistillation"]
