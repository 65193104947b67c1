"""`keras.wrappers`: scikit-learn estimators around a Keras model.

    def build(X, y, units=16):
        model = keras.Sequential([keras.Input(X.shape[1:]), keras.layers.Dense(units, "relu"),
                                  keras.layers.Dense(y.shape[1], activation="softmax")])
        model.compile(optimizer="adam", loss="categorical_crossentropy")
        return model

    clf = keras.wrappers.SKLearnClassifier(build, model_kwargs={"units": 8},
                                           fit_kwargs={"epochs": 5, "verbose": 0})
    clf.fit(X, y).predict(X)          # class labels; clf.classes_

scikit-learn is not a dependency: it is imported when one of the classes is first looked up
(`keras.wrappers.SKLearnClassifier`), which are then real scikit-learn estimators
(`BaseEstimator` and the classifier, regressor or transformer mixin: `get_params`,
`set_params`, `clone`, `score`, pipelines). Without scikit-learn the classes exist and making
one raises `ImportError`, as in Keras.

Differences from Keras: the data are checked with NumPy (X a finite 2-D numeric array, y 1-D
or a column, the number of features remembered in `n_features_in_`) with scikit-learn's
messages, rather than by scikit-learn's `validate_data`; the classifier's target types are
"binary" and "multiclass" (integer or string labels), one-hot encoded in sorted label order
as scikit-learn's OneHotEncoder does. A model given as an instance is cloned with
`keras.models.clone_model` and compiled with a new optimizer of the same config and the
same loss (not its metrics). `set_fit_request` (metadata routing) is not implemented.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..layers.model import Model
from .models import clone_model

_NAMES = ("SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer")
_built: dict[str, type] = {}


def _check_model(model) -> None:
    if getattr(model, "optimizer", None) is None or getattr(model, "loss", None) in (None, ""):
        raise RuntimeError("Given model needs to be compiled, and have a loss and an "
                           "optimizer.")


def _as_2d(estimator, X, reset: bool) -> np.ndarray:
    array = np.asarray(X)
    if array.dtype == object:
        array = array.astype(np.float64)
    if array.ndim != 2:
        if array.ndim < 2:
            raise ValueError(f"Expected 2D array, got {'scalar array' if array.ndim == 0 else '1D array'} "
                             f"instead:\narray={array}.\nReshape your data either using "
                             "array.reshape(-1, 1) if your data has a single feature or "
                             "array.reshape(1, -1) if it contains a single sample.")
        raise ValueError(f"Found array with dim {array.ndim}, while dim <= 2 is required by "
                         f"{type(estimator).__name__}.")
    if not np.issubdtype(array.dtype, np.number) and array.dtype != np.bool_:
        raise ValueError(f"{type(estimator).__name__} needs numeric X, got dtype "
                         f"{array.dtype}.")
    if np.issubdtype(array.dtype, np.floating) and not np.all(np.isfinite(array)):
        raise ValueError("Input X contains NaN or infinity.")
    if reset:
        estimator.n_features_in_ = array.shape[1]
    elif array.shape[1] != estimator.n_features_in_:
        raise ValueError(f"X has {array.shape[1]} features, but {type(estimator).__name__} is "
                         f"expecting {estimator.n_features_in_} features as input.")
    return array


def _as_1d(y, n_samples: int) -> np.ndarray:
    array = np.asarray(y)
    if array.ndim == 2 and array.shape[1] == 1:
        array = array.ravel()
    if array.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {array.shape} instead.")
    if array.shape[0] != n_samples:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: "
                         f"[{n_samples}, {array.shape[0]}]")
    return array


def _target_type(y: np.ndarray) -> str:
    """scikit-learn's `type_of_target` for a 1-D target: binary, multiclass or continuous."""
    if y.dtype.kind == "f" and np.any(y != y.astype(np.int64)):
        return "continuous"
    if y.dtype.kind not in "biufUSO":
        return "unknown"
    return "binary" if len(np.unique(y)) <= 2 else "multiclass"


def _check_is_fitted(estimator) -> None:
    from sklearn.exceptions import NotFittedError
    if not hasattr(estimator, "model_"):
        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet. Call "
                             "'fit' with appropriate arguments before using this estimator.")


def _build_classes() -> None:
    try:
        from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
        available = True
    except ImportError:  # stand-ins: making an estimator raises ImportError
        class BaseEstimator:  # type: ignore[no-redef]
            pass

        class ClassifierMixin:  # type: ignore[no-redef]
            pass

        class RegressorMixin:  # type: ignore[no-redef]
            pass

        class TransformerMixin:  # type: ignore[no-redef]
            pass
        available = False

    class SKLBase(BaseEstimator):
        """Base of the scikit-learn wrappers: `model` is a compiled Keras model or a callable
        `model(X=X, y=y, **model_kwargs)` returning one; `fit_kwargs` go to `model.fit` (the
        keywords given to `fit` take precedence). After `fit`, `model_` is the fitted model and
        `history_` fit's History."""

        def __init__(self, model, warm_start: bool = False, model_kwargs=None,
                     fit_kwargs=None) -> None:
            if not available:
                raise ImportError(f"{type(self).__name__} requires `scikit-learn` to be "
                                  "installed. Run `pip install scikit-learn` to install it.")
            self.model = model
            self.warm_start = warm_start
            self.model_kwargs = model_kwargs
            self.fit_kwargs = fit_kwargs

        def _more_tags(self) -> dict:
            return {"non_deterministic": True}

        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.non_deterministic = True
            return tags

        def __sklearn_clone__(self):
            return type(self)(model=self.model, warm_start=self.warm_start,
                              model_kwargs=self.model_kwargs, fit_kwargs=self.fit_kwargs)

        def set_fit_request(self, **kwargs: Any):
            raise NotImplementedError("set_fit_request (scikit-learn's metadata routing) is not "
                                      "implemented by the runtime's Keras wrappers.")

        def _get_model(self, X, y):
            if self.warm_start and hasattr(self, "model_"):
                return self.model_  # the weights of the previous fit
            if isinstance(self.model, Model):
                if self.warm_start:
                    return self.model
                model = clone_model(self.model)
                optimizer = getattr(self.model, "optimizer", None)
                if optimizer is not None and getattr(self.model, "loss", None) is not None:
                    model.compile(optimizer=type(optimizer).from_config(optimizer.get_config()),
                                  loss=self.model.loss)
                return model
            if not callable(self.model):
                raise TypeError(f"{type(self).__name__}: `model` must be a Keras Model or a "
                                f"callable returning one, got {self.model!r}.")
            return self.model(X=X, y=y, **(self.model_kwargs or {}))

        def fit(self, X, y, **kwargs: Any):
            """Builds (or clones) the model and fits it to `X` (n_samples, n_features) and
            `y` (n_samples,); `kwargs` go to `model.fit`."""
            X = _as_2d(self, X, reset=True)
            y = _as_1d(y, X.shape[0])
            y = self._process_target(y, reset=True)
            model = self._get_model(X, y)
            _check_model(model)
            fit_kwargs = dict(self.fit_kwargs or {})
            fit_kwargs.update(kwargs)
            self.history_ = model.fit(X, y, **fit_kwargs)
            self.model_ = model
            return self

        def predict(self, X):
            """The fitted model's predictions for `X`, mapped back to the targets' form."""
            _check_is_fitted(self)
            X = _as_2d(self, X, reset=False)
            return self._reverse_process_target(np.asarray(self.model_.predict(X, verbose=0)))

        def _process_target(self, y, reset: bool = False):
            if _target_type(y) == "unknown":
                raise ValueError(f"Unknown label type for data: {y!r}")
            if reset:
                self._target_ndim = y.ndim
            return y.reshape(-1, 1) if y.ndim == 1 else y

        def _reverse_process_target(self, y):
            if self._target_ndim == 1 and y.ndim == 2 and y.shape[1] == 1:
                return np.squeeze(y, axis=1)
            return y

    class SKLearnClassifier(ClassifierMixin, SKLBase):
        """Keras's scikit-learn classifier: the labels (binary or multiclass, numbers or
        strings) are one-hot encoded for the model (sorted, in `classes_`), and `predict`
        gives the label of each row's largest output."""

        def decision_function(self, X):
            """The model's raw outputs for `X`."""
            _check_is_fitted(self)
            X = _as_2d(self, X, reset=False)
            return np.asarray(self.model_.predict(X, verbose=0))

        def _process_target(self, y, reset: bool = False):
            target_type = _target_type(y)
            if target_type not in ("binary", "multiclass"):
                raise ValueError("Only binary and multiclass target types are supported. Target "
                                 f"type: {target_type}")
            if reset:
                self.classes_ = np.unique(y)
                if len(self.classes_) == 1:
                    raise ValueError("Classifier can't train when only one class is present.")
            index = np.searchsorted(self.classes_, y)
            known = (index < len(self.classes_)) & (self.classes_[np.minimum(
                index, len(self.classes_) - 1)] == y)
            if not np.all(known):
                raise ValueError(f"Found unknown categories {sorted(set(np.asarray(y)[~known]))} "
                                 "in column 0 during transform")
            return np.eye(len(self.classes_), dtype=np.float64)[index]

        def _reverse_process_target(self, y):
            return self.classes_[np.argmax(y, axis=-1)]

        def _more_tags(self) -> dict:
            return {"poor_score": True}

        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.classifier_tags.poor_score = True
            return tags

    class SKLearnRegressor(RegressorMixin, SKLBase):
        """Keras's scikit-learn regressor: `y` is given to the model as a column, and
        `predict` returns a 1-D array for a model with one output."""

        def _more_tags(self) -> dict:
            return {"poor_score": True}

        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.regressor_tags.poor_score = True
            return tags

    class SKLearnTransformer(TransformerMixin, SKLBase):
        """Keras's scikit-learn transformer: `fit` trains the model on (X, y) and
        `transform(X)` returns its outputs (for example an embedding)."""

        def transform(self, X):
            """The fitted model's outputs for `X`."""
            _check_is_fitted(self)
            X = _as_2d(self, X, reset=False)
            return np.asarray(self.model_.predict(X, verbose=0))

        def _more_tags(self) -> dict:
            return {"preserves_dtype": []}

        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.transformer_tags.preserves_dtype = []
            return tags

    for cls in (SKLearnClassifier, SKLearnRegressor, SKLearnTransformer):
        cls.__module__ = __name__
        cls.__qualname__ = cls.__name__
        _built[cls.__name__] = cls


def __getattr__(name: str):
    """The wrapper classes, made on first use (scikit-learn is imported then)."""
    if name in _NAMES:
        if not _built:
            _build_classes()
        globals().update(_built)
        return _built[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list:
    return sorted(list(globals()) + list(_NAMES))


__all__ = list(_NAMES)
