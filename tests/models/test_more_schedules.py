"""keras.optimizers.schedules.PolynomialDecay, CosineDecayRestarts, serialize and deserialize,
against values printed by Keras 3.15 (TensorFlow 2.21) for the same arguments."""

import numpy as np
import pytest

import runtime as rt

schedules = rt.keras.optimizers.schedules


def _values(schedule, steps):
    return [float(schedule(s)) for s in steps]


def test_polynomial_decay_matches_keras():
    p = schedules.PolynomialDecay(0.1, 10, end_learning_rate=0.01, power=2.0)
    np.testing.assert_allclose(_values(p, [0, 3, 10, 15]), [0.1, 0.0541, 0.01, 0.01], rtol=1e-6)
    assert p.get_config() == {"initial_learning_rate": 0.1, "decay_steps": 10,
                              "end_learning_rate": 0.01, "power": 2.0, "cycle": False,
                              "name": "PolynomialDecay"}
    cycled = schedules.PolynomialDecay(0.1, 10, cycle=True)
    np.testing.assert_allclose(_values(cycled, [0, 3, 10, 15, 25]),
                               [0.1, 0.07003, 9.999999747378752e-05, 0.025075, 0.01675],
                               rtol=1e-5)


def test_cosine_decay_restarts_matches_keras():
    c = schedules.CosineDecayRestarts(1.0, 10, t_mul=2.0, m_mul=0.5, alpha=0.1)
    np.testing.assert_allclose(
        _values(c, [0, 5, 10, 15, 29, 30, 31]),
        [1.0, 0.55, 0.55, 0.48409903, 0.10277012, 0.325, 0.32465321], rtol=1e-5)
    assert c.get_config() == {"initial_learning_rate": 1.0, "first_decay_steps": 10,
                              "t_mul": 2.0, "m_mul": 0.5, "alpha": 0.1, "name": "SGDRDecay"}
    even = schedules.CosineDecayRestarts(1.0, 10, t_mul=1.0)
    np.testing.assert_allclose(_values(even, [0, 5, 10, 15]), [1.0, 0.5, 1.0, 0.5], atol=1e-6)


def test_serialize_and_deserialize():
    p = schedules.PolynomialDecay(0.1, 10, cycle=True)
    assert schedules.serialize(p) == {
        "module": "keras.optimizers.schedules", "class_name": "PolynomialDecay",
        "config": {"initial_learning_rate": 0.1, "decay_steps": 10, "end_learning_rate": 0.0001,
                   "power": 1.0, "cycle": True, "name": "PolynomialDecay"},
        "registered_name": None}
    again = schedules.deserialize(schedules.serialize(schedules.CosineDecayRestarts(1.0, 10)))
    assert isinstance(again, schedules.CosineDecayRestarts)
    # a config as Keras writes it, without module: the defaults fill in
    decay = schedules.deserialize({"class_name": "ExponentialDecay", "config": {
        "initial_learning_rate": 0.1, "decay_steps": 2, "decay_rate": 0.5}})
    assert decay.get_config() == {"initial_learning_rate": 0.1, "decay_steps": 2,
                                  "decay_rate": 0.5, "staircase": False,
                                  "name": "ExponentialDecay"}
    with pytest.raises(ValueError, match="Unknown learning rate schedule"):
        schedules.deserialize({"class_name": "Nope", "config": {}})


def test_an_optimizer_takes_the_new_schedules_and_reads_them_back():
    optimizer = rt.keras.optimizers.SGD(schedules.PolynomialDecay(0.1, 10))
    again = rt.keras.optimizers.SGD.from_config(optimizer.get_config())
    assert again.get_config()["learning_rate"]["class_name"] == "PolynomialDecay"
