"""Optimizers: `rt.optimizers.SGD`, `rt.optimizers.Adam`, and the seed's `rt.train` names.

    optimizer = rt.optimizers.Adam(learning_rate=0.01)
    with rt.GradientTape() as tape:
        loss = loss_fn(model(x), y)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
"""

import types as _types

from .. import checkpoint as _checkpoint
from .. import cluster_def as _cluster_def
from .. import train_example as _train_example
from ..arguments import add_keyword_hints_to_classes as _add_keyword_hints_to_classes
from ..checkpoint import views as _views
from . import schedules
from . import train_extras as _train_extras
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamOptimizer
from .adamax import Adamax
from .adamw import AdamW
from .base import Optimizer
from .ftrl import Ftrl
from .lamb import Lamb
from .lion import Lion
from .loss_scale import LossScaleOptimizer
from .multi import MultiOptimizer, OptimizerMap
from .muon import Muon
from .nadam import Nadam
from .rmsprop import RMSprop
from .schedule_free import ScheduleFreeAdamW
from .sgd import SGD, GradientDescentOptimizer, MomentumOptimizer

train = _types.SimpleNamespace(GradientDescentOptimizer=GradientDescentOptimizer,
                               MomentumOptimizer=MomentumOptimizer, AdamOptimizer=AdamOptimizer,
                               Optimizer=Optimizer, **{name: getattr(_checkpoint, name)
                                                       for name in _checkpoint.__all__},
                               **{name: getattr(_train_example, name)
                                  for name in _train_example.__all__ if name != "DecodeError"},
                               ExponentialMovingAverage=_train_extras.ExponentialMovingAverage,
                               ClusterSpec=_train_extras.ClusterSpec,
                               CheckpointOptions=_train_extras.CheckpointOptions,
                               Coordinator=_train_extras.Coordinator,
                               checkpoints_iterator=_train_extras.checkpoints_iterator,
                               TrackableView=_views.TrackableView,
                               CheckpointView=_views.CheckpointView,
                               ClusterDef=_cluster_def.ClusterDef, JobDef=_cluster_def.JobDef,
                               ServerDef=_cluster_def.ServerDef,
                               experimental=_types.SimpleNamespace(
                                   MaxShardSizePolicy=_views.MaxShardSizePolicy,
                                   PythonState=_views.PythonState,
                                   ShardByTaskPolicy=_views.ShardByTaskPolicy,
                                   ShardableTensor=_views.ShardableTensor,
                                   ShardingCallback=_views.ShardingCallback))

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adafactor", "Adamax",
           "Ftrl", "Lamb", "Lion", "LossScaleOptimizer", "Muon", "MultiOptimizer",
           "OptimizerMap", "ScheduleFreeAdamW", "Nadam", "Optimizer", "schedules",
           "GradientDescentOptimizer", "MomentumOptimizer",
           "AdamOptimizer", "train"]

_add_keyword_hints_to_classes(globals(), "runtime")  # a misspelt keyword: "did you mean"
_add_keyword_hints_to_classes(vars(train), "runtime")
_add_keyword_hints_to_classes(vars(train.experimental), "runtime")
