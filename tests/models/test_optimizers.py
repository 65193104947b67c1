"""Optimizers' update rules against NumPy, on hand-given gradients, eagerly and compiled."""

import numpy as np
import pytest

import runtime as rt

GRADS = [np.array([0.5, -1.0, 2.0], np.float32), np.array([-0.25, 0.5, 1.0], np.float32),
         np.array([1.0, 1.0, -3.0], np.float32), np.array([0.0, -2.0, 0.5], np.float32)]
START = np.array([1.0, -2.0, 3.0], np.float32)


def _run(optimizer, grads=GRADS, compiled=False):
    var = rt.Variable(START.copy())
    if compiled:
        @rt.function
        def step(g):
            optimizer.apply_gradients([(g, var)])
        for g in grads:
            step(rt.constant(g))
        assert step.experimental_get_tracing_count() == 1
    else:
        for g in grads:
            optimizer.apply_gradients([(rt.constant(g), var)])
    return var.numpy()


def _sgd_reference(lr, momentum=0.0, nesterov=False):
    w = START.astype(np.float64)
    velocity = np.zeros_like(w)
    for g in GRADS:
        g = g.astype(np.float64)
        if momentum == 0:
            w = w - lr * g
            continue
        velocity = momentum * velocity - lr * g
        w = w + (momentum * velocity - lr * g if nesterov else velocity)
    return w


def _adam_reference(lr, b1, b2, eps, amsgrad=False):
    w = START.astype(np.float64)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    vhat = np.zeros_like(w)
    for t, g in enumerate(GRADS, start=1):
        g = g.astype(np.float64)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vhat = np.maximum(vhat, v)
        alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - alpha * m / (np.sqrt(vhat if amsgrad else v) + eps)
    return w


@pytest.mark.parametrize("compiled", [False, True])
def test_sgd(compiled):
    np.testing.assert_allclose(_run(rt.optimizers.SGD(0.1), compiled=compiled),
                               _sgd_reference(0.1), rtol=1e-6)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("nesterov", [False, True])
def test_sgd_with_momentum(compiled, nesterov):
    opt = rt.optimizers.SGD(0.05, momentum=0.9, nesterov=nesterov)
    np.testing.assert_allclose(_run(opt, compiled=compiled),
                               _sgd_reference(0.05, 0.9, nesterov), rtol=1e-5)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam(compiled, amsgrad):
    opt = rt.optimizers.Adam(0.1, amsgrad=amsgrad)
    np.testing.assert_allclose(_run(opt, compiled=compiled),
                               _adam_reference(0.1, 0.9, 0.999, 1e-7, amsgrad), rtol=1e-5)


def test_adam_hyperparameters_and_default_learning_rate():
    opt = rt.optimizers.Adam(beta_1=0.5, beta_2=0.75, epsilon=1e-3)
    assert opt.learning_rate == pytest.approx(0.001)
    np.testing.assert_allclose(_run(opt), _adam_reference(0.001, 0.5, 0.75, 1e-3), rtol=1e-5)


def test_adam_on_float64_variables():
    opt = rt.optimizers.Adam(0.1)
    var = rt.Variable(START.astype(np.float64))
    for g in GRADS:
        opt.apply_gradients([(g.astype(np.float64), var)])
    assert var.dtype is rt.float64
    np.testing.assert_allclose(var.numpy(), _adam_reference(0.1, 0.9, 0.999, 1e-7), rtol=1e-12)


def test_seed_names():
    opt = rt.train.GradientDescentOptimizer(learning_rate=0.1)
    assert isinstance(opt, rt.optimizers.SGD)
    np.testing.assert_allclose(_run(opt), _sgd_reference(0.1), rtol=1e-6)
    np.testing.assert_allclose(_run(rt.train.MomentumOptimizer(0.05, 0.9)),
                               _sgd_reference(0.05, 0.9), rtol=1e-5)
    np.testing.assert_allclose(_run(rt.train.AdamOptimizer(0.1, epsilon=1e-7)),
                               _adam_reference(0.1, 0.9, 0.999, 1e-7), rtol=1e-5)


# -- apply_gradients ------------------------------------------------------------------------

def test_apply_gradients_takes_a_generator_and_skips_none():
    a, b = rt.Variable([1.0, 1.0]), rt.Variable([5.0])
    grads = [rt.constant([1.0, 2.0]), None]
    opt = rt.optimizers.SGD(0.5)
    opt.apply_gradients((g, v) for g, v in zip(grads, [a, b]))
    np.testing.assert_allclose(a.numpy(), [0.5, 0.0])
    np.testing.assert_allclose(b.numpy(), [5.0])
    assert int(opt.iterations.numpy()) == 1


def test_apply_gradients_accepts_numpy_gradients():
    var = rt.Variable([1.0, 2.0])
    rt.optimizers.SGD(1.0).apply_gradients([(np.array([1.0, 1.0]), var)])
    np.testing.assert_allclose(var.numpy(), [0.0, 1.0])


def test_apply_gradients_errors_name_the_problem():
    var = rt.Variable([1.0, 2.0])
    opt = rt.optimizers.SGD()
    with pytest.raises(ValueError, match="no gradients"):
        opt.apply_gradients([(None, var)])
    with pytest.raises(TypeError, match="not an rt.Variable"):
        opt.apply_gradients([(rt.ones([2]), rt.ones([2]))])
    with pytest.raises(ValueError, match="shape"):
        opt.apply_gradients([(rt.ones([3]), var)])
    with pytest.raises(TypeError, match="float64"):
        opt.apply_gradients([(rt.constant(np.ones(2)), var)])
    with pytest.raises(TypeError, match="pairs"):
        opt.apply_gradients([var])
    with pytest.raises(ValueError, match="twice"):
        opt.apply_gradients([(rt.ones([2]), var), (rt.ones([2]), var)])


# -- slots and state ----------------------------------------------------------------------------

def test_slots_are_created_once_inside_a_compiled_step():
    w = rt.Variable(np.ones((2, 3), np.float32))
    b = rt.Variable(np.zeros(3, np.float32))
    opt = rt.optimizers.Adam(0.01)

    @rt.function
    def step(gw, gb):
        opt.apply_gradients(zip([gw, gb], [w, b]))
    assert opt.variables == []
    step(rt.ones([2, 3]), rt.ones([3]))
    state = opt.variables
    slots = [opt.get_slot(w, "m"), opt.get_slot(w, "v"), opt.get_slot(b, "m"), opt.get_slot(b, "v")]
    assert all(isinstance(s.numpy(), np.ndarray) for s in slots)  # eager variables
    assert [s.shape.as_list() for s in slots] == [[2, 3], [2, 3], [3], [3]]
    for _ in range(3):
        step(rt.ones([2, 3]), rt.ones([3]))
    assert step.experimental_get_tracing_count() == 1
    assert [id(v) for v in opt.variables] == [id(v) for v in state]
    assert int(opt.iterations.numpy()) == 4
    assert step.get_concrete_function(rt.ones([2, 3]), rt.ones([3])).graph.variables == []


def test_get_slot_names_and_missing_slots():
    opt = rt.optimizers.SGD(0.1, momentum=0.5)
    assert opt.get_slot_names() == ["momentum"]
    assert rt.optimizers.SGD(0.1).get_slot_names() == []
    with pytest.raises(KeyError, match="momentum"):
        opt.get_slot(rt.Variable(1.0), "momentum")


def test_a_new_learning_rate_reaches_a_compiled_step():
    var = rt.Variable([0.0])
    opt = rt.optimizers.SGD(1.0)

    @rt.function
    def step():
        opt.apply_gradients([(rt.constant([1.0]), var)])
    step()
    opt.learning_rate = 0.25
    assert opt.learning_rate == 0.25
    step()
    np.testing.assert_allclose(var.numpy(), [-1.25])
    assert step.experimental_get_tracing_count() == 1


def test_a_callable_learning_rate_gets_the_step_number():
    var = rt.Variable([0.0])
    opt = rt.optimizers.SGD(lambda step: 1.0 / (rt.cast(step, rt.float32) + 1.0))

    @rt.function
    def step():
        opt.apply_gradients([(rt.constant([1.0]), var)])
    for _ in range(3):
        step()
    np.testing.assert_allclose(var.numpy(), [-(1 + 1 / 2 + 1 / 3)], rtol=1e-6)


def test_hyperparameters_are_checked():
    with pytest.raises(ValueError, match="momentum"):
        rt.optimizers.SGD(0.1, momentum=2.0)
    with pytest.raises(ValueError, match="beta_1"):
        rt.optimizers.Adam(beta_1=1.0)
