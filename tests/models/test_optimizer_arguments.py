"""Optimizers refuse hyperparameters that cannot work when they are made, as Keras 3 does
(`Adam(learning_rate=None)` raises "Argument `learning_rate` should be float, or an instance of
LearningRateSchedule, or a callable"), instead of training to NaN; schedules and callables
stay allowed, and misspelt keywords get a suggestion."""

import numpy as np
import pytest

import runtime as rt

CLASSES = [rt.optimizers.SGD, rt.optimizers.Adam, rt.optimizers.AdamW, rt.optimizers.RMSprop,
           rt.optimizers.Adagrad, rt.train.GradientDescentOptimizer, rt.train.AdamOptimizer]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("value", [None, "0.1", True, [0.1], {"lr": 0.1}, 1j,
                                   rt.constant([0.1, 0.2]), rt.constant("0.1")],
                         ids=["None", "str", "bool", "list", "dict", "complex", "vector",
                              "string tensor"])
def test_a_learning_rate_that_is_not_a_number_schedule_or_callable_is_refused(cls, value):
    with pytest.raises(ValueError, match="`learning_rate` must be a float, a "
                                         "LearningRateSchedule or a callable") as caught:
        cls(learning_rate=value)
    assert repr(value)[:10] in str(caught.value)


def test_assigning_a_bad_learning_rate_later_is_refused_and_a_good_one_is_used():
    optimizer = rt.optimizers.SGD(0.1)
    with pytest.raises(ValueError, match="learning_rate"):
        optimizer.learning_rate = "0.5"
    optimizer.learning_rate = 0.5
    var = rt.Variable([1.0, 2.0])
    optimizer.apply_gradients([(rt.constant([1.0, -1.0]), var)])
    np.testing.assert_allclose(var.numpy(), [1.0 - 0.5, 2.0 + 0.5])


@pytest.mark.parametrize("rate", [
    0.25, 1, np.float64(0.25), np.float32(0.25), rt.Variable(0.25),
    lambda step: 0.25, rt.optimizers.schedules.ExponentialDecay(0.25, 10, 1.0),
    rt.constant(0.25)],
    ids=["float", "int", "float64", "float32", "variable", "callable", "schedule",
         "scalar tensor"])
def test_numbers_variables_callables_and_schedules_are_accepted_and_used(rate):
    var = rt.Variable([1.0, 2.0])
    rt.optimizers.SGD(rate).apply_gradients([(rt.constant([4.0, 4.0]), var)])
    step = 1.0 if isinstance(rate, int) else 0.25
    np.testing.assert_allclose(var.numpy(), [1.0 - 4 * step, 2.0 - 4 * step])


@pytest.mark.parametrize("make, name", [
    (lambda: rt.optimizers.Adam(epsilon=None), "epsilon"),
    (lambda: rt.optimizers.RMSprop(epsilon="1e-7"), "epsilon"),
    (lambda: rt.optimizers.Adagrad(epsilon=None), "epsilon"),
    (lambda: rt.optimizers.AdamW(weight_decay=None), "weight_decay"),
    (lambda: rt.optimizers.Adam(beta_1=None), "beta_1"),
    (lambda: rt.optimizers.SGD(momentum=None), "momentum"),
    (lambda: rt.optimizers.schedules.ExponentialDecay(None, 10, 0.9), "initial_learning_rate"),
    (lambda: rt.optimizers.schedules.ExponentialDecay(0.1, 0, 0.9), "decay_steps"),
    (lambda: rt.optimizers.schedules.CosineDecay(0.1, None), "decay_steps"),
    (lambda: rt.optimizers.schedules.PiecewiseConstantDecay([1], [0.1, "x"]), "values"),
])
def test_other_hyperparameters_are_checked_when_made(make, name):
    with pytest.raises(ValueError, match=name):
        make()


@pytest.mark.parametrize("call, suggestion", [
    (lambda: rt.optimizers.Adam(lerning_rate=0.1), "learning_rate"),
    (lambda: rt.optimizers.RMSprop(rh=0.9), "rho"),
    (lambda: rt.optimizers.SGD(0.1).minimize(lambda: 1.0, [], tap=None), "tape"),
    (lambda: rt.optimizers.SGD(0.1).apply_gradients([], nme="x"), "name"),
    (lambda: rt.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9, stair_case=True),
     "staircase"),
    (lambda: rt.optimizers.schedules.CosineDecay(0.1, 10, alpah=0.1), "alpha"),
    (lambda: rt.optimizers.schedules.PiecewiseConstantDecay([1], [1.0, 2.0], nme="p"), "name"),
])
def test_misspelt_optimizer_keywords_suggest_the_name(call, suggestion):
    with pytest.raises(TypeError, match=f"did you mean '{suggestion}'"):
        call()


def test_learning_rate_reads_as_keras_3s_float32_variable():
    # Keras 3: `optimizer.learning_rate` is a float32 variable (the TF tutorials call
    # `model.optimizer.learning_rate.numpy()`); assigning a number writes it; a schedule's
    # attribute is its value at the current step
    optimizer = rt.keras.optimizers.Adam(0.01)
    assert isinstance(optimizer.learning_rate, rt.Variable)
    assert optimizer.learning_rate.dtype == rt.float32
    assert optimizer.learning_rate.numpy() == np.float32(0.01)
    optimizer.learning_rate = 0.5
    assert optimizer.learning_rate.numpy() == 0.5
    assert float(optimizer.learning_rate * 2) == 1.0
    schedule = rt.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    scheduled = rt.keras.optimizers.SGD(schedule)
    scheduled.iterations.assign(10)
    np.testing.assert_allclose(float(scheduled.learning_rate), 0.05, rtol=1e-6)


# Keras 3.15's get_config of keras.optimizers.get(name) for each optimizer, less the
# class-specific entries: the automatic name and the options every optimizer reports
_COMMON = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None,
           "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
           "loss_scale_factor": None, "gradient_accumulation_steps": None}


@pytest.mark.parametrize("cls, base", [
    (rt.keras.optimizers.SGD, "sgd"), (rt.keras.optimizers.Adam, "adam"),
    (rt.keras.optimizers.RMSprop, "rm_sprop"), (rt.keras.optimizers.AdamW, "adam_w"),
    (rt.keras.optimizers.Adagrad, "adagrad"), (rt.keras.optimizers.Nadam, "nadam")])
def test_keras_optimizers_are_named_and_configured_as_in_keras_3(cls, base):
    rt.keras.backend.clear_session()
    first, second = cls(), cls()
    assert (first.name, second.name) == (base, f"{base}_1")
    assert cls(name="mine").name == "mine"
    config = first.get_config()
    common = {**_COMMON, "weight_decay": 0.004} if base == "adam_w" else _COMMON
    assert {key: config[key] for key in _COMMON} == common
    assert config["name"] == base and list(config)[:2] == ["name", "learning_rate"]
    assert type(cls.from_config(config)) is cls


def test_keras_only_options_are_taken_at_their_defaults_only():
    rt.keras.optimizers.Adam(use_ema=False, ema_momentum=0.99, loss_scale_factor=None)
    with pytest.raises(NotImplementedError, match="loss_scale_factor"):
        rt.keras.optimizers.Adam(loss_scale_factor=128.0)  # use_ema: test_ema_weights.py
    with pytest.raises(NotImplementedError, match="gradient_accumulation_steps"):
        rt.keras.optimizers.SGD(gradient_accumulation_steps=4)


def test_a_schedule_is_serialized_as_keras_3_writes_it():
    schedule = rt.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
    config = rt.keras.optimizers.SGD(schedule).get_config()["learning_rate"]
    assert config == {"module": "keras.optimizers.schedules", "class_name": "ExponentialDecay",
                      "config": {"initial_learning_rate": 0.1, "decay_steps": 10,
                                 "decay_rate": 0.5, "staircase": False,
                                 "name": "ExponentialDecay"},
                      "registered_name": None}
    restored = rt.keras.optimizers.SGD.from_config(rt.keras.optimizers.SGD(schedule).get_config())
    assert float(restored.learning_rate) == pytest.approx(0.1)
