"""Adamax, Nadam, Adadelta, Ftrl, Lion and Adafactor: each step against a NumPy float64
implementation of Keras 3's documented update rule, once against the numbers Keras 3 itself
gives (computed under TensorFlow 2.21 + Keras 3 from the same initial values and gradients),
and their state through Model.save / load_model. R2Score against NumPy's formula."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras

W0 = np.array([[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]], np.float32)
B0 = np.array([0.1, -0.2, 0.3], np.float32)
GRADS = [(np.array([[0.2, -0.4, 0.1], [0.3, 0.0, -0.6]], np.float32),
          np.array([0.5, -0.1, 0.05], np.float32)),
         (np.array([[-0.1, 0.2, 0.3], [0.05, -0.3, 0.2]], np.float32),
          np.array([-0.2, 0.4, 0.1], np.float32)),
         (np.array([[0.4, 0.1, -0.2], [-0.2, 0.1, 0.5]], np.float32),
          np.array([0.1, 0.2, -0.3], np.float32))]

FTRL = dict(learning_rate=0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02,
            l2_shrinkage_regularization_strength=0.03, beta=0.1)
CONFIGS = {"Adamax": dict(learning_rate=0.1), "Nadam": dict(learning_rate=0.1),
           "Adadelta": dict(learning_rate=1.0), "Ftrl": FTRL, "Lion": dict(learning_rate=0.1),
           "Adafactor": dict(learning_rate=0.1)}

# Keras 3.x (TensorFlow 2.21) after the three GRADS steps from W0, B0 with CONFIGS.
KERAS = {
    "Adamax": ([[0.3353840, -0.8748592, 0.0629873], [1.3329577, 0.8235627, -0.3821006]],
               [-0.0503754, -0.1850220, 0.1445332]),
    "Nadam": ([[0.3381922, -0.9533224, 0.0927125], [1.4210131, 0.8264982, -0.4818930]],
              [0.0015429, -0.2435505, 0.1953604]),
    "Adadelta": ([[0.4975794, -0.9999946, 0.2481790], [1.4993883, 0.7507670, -0.5005602]],
                 [0.0989406, -0.2017648, 0.2993000]),
    "Ftrl": ([[-0.0271670, -0.2801151, -0.0351256], [0.2779027, 0.0250095, -0.2236006]],
             [-0.0175472, -0.0746261, 0.0173997]),
    "Lion": ([[0.4, -1.1, 0.15], [1.4, 0.75, -0.6]], [0.0, -0.3, 0.2]),
    "Adafactor": ([[0.3267068, -0.9638050, 0.1970364], [1.4567050, 0.7962384, -0.5447412]],
                  [0.0816724, -0.2164899, 0.2849941]),
}


# -- NumPy float64 versions of Keras 3's update rules: step(var, grad, state, t, **hyper) ----
def _adamax(var, g, s, t, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    s["m"] = s.get("m", 0 * var) + (1 - beta_1) * (g - s.get("m", 0 * var))
    s["u"] = np.maximum(beta_2 * s.get("u", 0 * var), np.abs(g))
    return var - learning_rate * s["m"] / ((1 - beta_1 ** t) * (s["u"] + epsilon))


def _nadam(var, g, s, t, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    def mu(i):
        return beta_1 * (1 - 0.5 * 0.96 ** i)
    product = np.prod([mu(i) for i in range(1, t + 1)])
    s["m"] = s.get("m", 0 * var) + (1 - beta_1) * (g - s.get("m", 0 * var))
    s["v"] = s.get("v", 0 * var) + (1 - beta_2) * (g ** 2 - s.get("v", 0 * var))
    m_hat = mu(t + 1) * s["m"] / (1 - product * mu(t + 1)) + (1 - mu(t)) * g / (1 - product)
    return var - learning_rate * m_hat / (np.sqrt(s["v"] / (1 - beta_2 ** t)) + epsilon)


def _adadelta(var, g, s, t, learning_rate=0.001, rho=0.95, epsilon=1e-7):
    s["g2"] = rho * s.get("g2", 0 * var) + (1 - rho) * g ** 2
    delta = -np.sqrt(s.get("d2", 0 * var) + epsilon) * g / np.sqrt(s["g2"] + epsilon)
    s["d2"] = rho * s.get("d2", 0 * var) + (1 - rho) * delta ** 2
    return var + learning_rate * delta


def _ftrl(var, g, s, t, learning_rate=0.001, learning_rate_power=-0.5,
          initial_accumulator_value=0.1, l1_regularization_strength=0.0,
          l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0, beta=0.0):
    lr, p = learning_rate, -learning_rate_power
    n = s.get("n", np.full_like(var, initial_accumulator_value))
    n_new = n + g ** 2
    s["z"] = s.get("z", 0 * var) + g + 2 * l2_shrinkage_regularization_strength * var \
        - (n_new ** p - n ** p) / lr * var
    s["n"] = n_new
    l1, l2 = l1_regularization_strength, l2_regularization_strength + beta / (2 * lr)
    return (np.clip(s["z"], -l1, l1) - s["z"]) / (n_new ** p / lr + 2 * l2)


def _lion(var, g, s, t, learning_rate=0.001, beta_1=0.9, beta_2=0.99):
    m = s.get("m", 0 * var)
    new = var - learning_rate * np.sign(beta_1 * m + (1 - beta_1) * g)
    s["m"] = beta_2 * m + (1 - beta_2) * g
    return new


def _adafactor(var, g, s, t, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30,
               epsilon_2=1e-3, clip_threshold=1.0):
    def rms(x):
        return np.sqrt(np.mean(x ** 2))
    rho = min(learning_rate, 1 / np.sqrt(t))
    alpha = max(epsilon_2, rms(var)) * rho
    g2 = g ** 2 + epsilon_1
    beta = 1 - t ** beta_2_decay
    if var.ndim >= 2:
        s["r"] = beta * s.get("r", 0) + (1 - beta) * g2.mean(axis=-1)
        s["c"] = beta * s.get("c", 0) + (1 - beta) * g2.mean(axis=-2)
        v = (s["r"] / s["r"].mean(axis=-1, keepdims=True))[..., None] * s["c"][..., None, :]
    else:
        v = s["v"] = beta * s.get("v", 0) + (1 - beta) * g2
    u = g / np.sqrt(v)
    u = u / max(1.0, rms(u) / clip_threshold)
    return var - alpha * u


NUMPY = {"Adamax": _adamax, "Nadam": _nadam, "Adadelta": _adadelta, "Ftrl": _ftrl,
         "Lion": _lion, "Adafactor": _adafactor}


def _numpy_steps(name, config, steps, weight_decay=None, clipnorm=None):
    values = [W0.astype(np.float64), B0.astype(np.float64)]
    states = [{}, {}]
    for t, grads in enumerate(steps, start=1):
        for i, grad in enumerate(grads):
            grad = grad.astype(np.float64)
            if clipnorm is not None:
                grad = grad * clipnorm / max(np.linalg.norm(grad), clipnorm)
            var = values[i]
            if weight_decay:
                var = var - var * weight_decay * config["learning_rate"]
            values[i] = NUMPY[name](var, grad, states[i], t, **config)
    return values


def _runtime_steps(optimizer, steps, compiled):
    w, b = rt.Variable(W0), rt.Variable(B0)

    def step(gw, gb):
        optimizer.apply_gradients([(gw, w), (gb, b)])

    run = rt.function(step) if compiled else step
    for gw, gb in steps:
        run(rt.constant(gw), rt.constant(gb))
    return w.numpy(), b.numpy()


MANY_STEPS = GRADS + [(0.5 * gw[::-1].copy(), -gb) for gw, gb in GRADS]  # six steps


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "function"])
@pytest.mark.parametrize("name", sorted(NUMPY))
def test_each_step_follows_the_numpy_update_rule(name, compiled):
    optimizer = getattr(keras.optimizers, name)(**CONFIGS[name])
    w, b = _runtime_steps(optimizer, MANY_STEPS, compiled)
    expected_w, expected_b = _numpy_steps(name, CONFIGS[name], MANY_STEPS)
    np.testing.assert_allclose(w, expected_w, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(b, expected_b, rtol=2e-5, atol=2e-6)
    assert int(optimizer.iterations.numpy()) == len(MANY_STEPS)


@pytest.mark.parametrize("name", sorted(KERAS))
def test_three_steps_give_keras_numbers(name):
    optimizer = getattr(rt.optimizers, name)(**CONFIGS[name])
    w, b = _runtime_steps(optimizer, GRADS, compiled=True)
    np.testing.assert_allclose(w, KERAS[name][0], rtol=1e-5, atol=3e-6)
    np.testing.assert_allclose(b, KERAS[name][1], rtol=1e-5, atol=3e-6)


@pytest.mark.parametrize("name", ["Adamax", "Nadam", "Adadelta", "Adafactor"])
def test_weight_decay_and_clipnorm_apply_as_for_the_other_optimizers(name):
    config = dict(CONFIGS[name])
    optimizer = getattr(keras.optimizers, name)(**config, weight_decay=0.1, clipnorm=0.3)
    w, b = _runtime_steps(optimizer, MANY_STEPS, compiled=True)
    expected = _numpy_steps(name, config, MANY_STEPS, weight_decay=0.1, clipnorm=0.3)
    plain = _numpy_steps(name, config, MANY_STEPS)
    assert not np.allclose(expected[0], plain[0], rtol=1e-4)  # the options change the result
    np.testing.assert_allclose(w, expected[0], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(b, expected[1], rtol=2e-5, atol=2e-6)


def test_a_learning_rate_schedule_is_read_at_each_step():
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)
    w, _ = _runtime_steps(keras.optimizers.Adamax(schedule), MANY_STEPS, compiled=True)
    values, state = W0.astype(np.float64), {}
    for t, (grad, _) in enumerate(MANY_STEPS, start=1):
        values = _adamax(values, grad.astype(np.float64), state, t,
                         learning_rate=0.1 * 0.5 ** (t - 1))
    np.testing.assert_allclose(w, values, rtol=2e-5, atol=2e-6)


def test_adafactor_keeps_factored_slots_for_matrices_and_a_full_one_for_vectors():
    optimizer = keras.optimizers.Adafactor()
    w, b = rt.Variable(np.ones((2, 3, 4), np.float32)), rt.Variable(np.ones(4, np.float32))
    optimizer.apply_gradients([(np.ones((2, 3, 4), np.float32), w),
                               (np.ones(4, np.float32), b)])
    assert optimizer.get_slot(w, "r").shape.as_list() == [2, 3]
    assert optimizer.get_slot(w, "c").shape.as_list() == [2, 4]
    assert optimizer.get_slot(b, "velocity").shape.as_list() == [4]
    with pytest.raises(KeyError, match="no slot 'r'"):
        optimizer.get_slot(b, "r")


@pytest.mark.parametrize("name", sorted(NUMPY))
def test_compile_takes_the_keras_string(name):
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    model.compile(optimizer=name.lower(), loss="mse")
    assert type(model.optimizer) is getattr(keras.optimizers, name)
    assert type(keras.optimizers.get(name)) is getattr(rt.optimizers, name)




@pytest.mark.parametrize("name", sorted(NUMPY))
def test_config_round_trips_and_keeps_every_keyword(name):
    optimizer = getattr(keras.optimizers, name)(**CONFIGS[name], clipvalue=0.5)
    config = optimizer.get_config()
    for key, value in CONFIGS[name].items():
        assert config[key] == pytest.approx(value), key
    assert config["clipvalue"] == 0.5
    again = keras.optimizers.deserialize(keras.optimizers.serialize(optimizer))
    assert type(again) is type(optimizer) and again.get_config() == config


@pytest.mark.parametrize("make, message", [
    (lambda: keras.optimizers.Lion(beta_1=0.0), "beta_1"),
    (lambda: keras.optimizers.Ftrl(learning_rate_power=0.5), "learning_rate_power"),
    (lambda: keras.optimizers.Ftrl(l1_regularization_strength=-1.0),
     "l1_regularization_strength"),
    (lambda: keras.optimizers.Adadelta(rho="0.9"), "rho"),
    (lambda: keras.optimizers.Adamax(learning_rate=None), "learning_rate"),
])
def test_bad_values_are_refused_when_made(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_an_unknown_keyword_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="beta1"):
        keras.optimizers.Nadam(beta1=0.9)


RNG = np.random.default_rng(3)
X = RNG.normal(size=(8, 3)).astype(np.float32)
Y = RNG.normal(size=(8, 1)).astype(np.float32)


@pytest.mark.parametrize("name", sorted(NUMPY))
def test_model_save_keeps_the_state_and_training_resumes_exactly(tmp_path, name):
    def fit(model, epochs):
        model.fit(X, Y, epochs=epochs, batch_size=len(X), shuffle=False, verbose=0)

    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4, activation="tanh"),
                              keras.layers.Dense(1)])
    model.compile(optimizer=getattr(keras.optimizers, name)(**CONFIGS[name]), loss="mse")
    fit(model, 2)
    model.save(str(tmp_path / "m.keras"))
    loaded = keras.models.load_model(str(tmp_path / "m.keras"))
    assert type(loaded.optimizer) is type(model.optimizer)
    assert int(loaded.optimizer.iterations.numpy()) == 2
    ours, theirs = loaded.optimizer.variables, model.optimizer.variables
    assert len(ours) == len(theirs) > 1
    for mine, original in zip(ours, theirs):
        np.testing.assert_array_equal(mine.numpy(), original.numpy(), err_msg=original.name)
    fit(model, 2)
    fit(loaded, 2)
    for mine, original in zip(loaded.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(mine, original)


# -- R2Score -----------------------------------------------------------------------------
def _numpy_r2(y, p, w, aggregation, regressors):
    w = np.broadcast_to(w[:, None], y.shape)
    mean = (w * y).sum(0) / w.sum(0)
    total = (w * (y - mean) ** 2).sum(0)
    raw = 1 - (w * (y - p) ** 2).sum(0) / total
    score = {"uniform_average": raw.mean(), None: raw,
             "variance_weighted_average": (total * raw).sum() / total.sum()}[aggregation]
    if regressors:
        n = y.size
        score = 1 - (1 - score) * (n - 1) / (n - regressors - 1)
    return score


@pytest.mark.parametrize("regressors", [0, 2])
@pytest.mark.parametrize("aggregation", ["uniform_average", "variance_weighted_average", None])
def test_r2_score_is_numpys_formula_over_weighted_batches(aggregation, regressors):
    rng = np.random.default_rng(1)
    y = rng.normal(size=(10, 3))
    p = y + rng.normal(size=(10, 3)) * 0.5
    w = np.concatenate([rng.uniform(size=6), np.ones(4)])
    metric = keras.metrics.R2Score(class_aggregation=aggregation, num_regressors=regressors)
    metric.update_state(y[:6].astype(np.float32), p[:6].astype(np.float32),
                        sample_weight=w[:6].astype(np.float32))
    metric.update_state(y[6:].astype(np.float32), p[6:].astype(np.float32))
    np.testing.assert_allclose(metric.result().numpy(), _numpy_r2(y, p, w, aggregation,
                                                                  regressors), rtol=1e-5)
    metric.reset_state()
    metric.update_state(y.astype(np.float32), y.astype(np.float32))
    np.testing.assert_allclose(metric.result().numpy(), 1.0)


def test_r2_score_keras_documented_example_and_its_errors():
    metric = keras.metrics.R2Score()  # the example of Keras's docstring: 0.57142854
    result = metric([[1], [4], [3]], [[2], [4], [4]])
    assert float(result.numpy()) == pytest.approx(0.57142854, rel=1e-6)
    assert metric.get_config()["class_aggregation"] == "uniform_average"
    with pytest.raises(ValueError, match="class_aggregation"):
        keras.metrics.R2Score(class_aggregation="mean")
    with pytest.raises(ValueError, match="num_regressors"):
        keras.metrics.R2Score(num_regressors=-1)
    with pytest.raises(ValueError, match="2D inputs"):
        keras.metrics.R2Score().update_state(np.zeros((2, 2, 2)), np.zeros((2, 2, 2)))
    with pytest.warns(UserWarning, match="Falling back to standard R2"):
        adjusted = keras.metrics.R2Score(num_regressors=5)
        adjusted.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])
        assert float(adjusted.result().numpy()) == pytest.approx(0.57142854, rel=1e-6)


def test_r2_score_is_a_compile_metric_and_updates_inside_fit():
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", metrics=["r2_score"])
    model.fit(X, Y, epochs=1, batch_size=len(X), verbose=0, shuffle=False)
    _, score = model.evaluate(X, Y, verbose=0, batch_size=len(X))
    prediction = model.predict(X, verbose=0).astype(np.float64)
    expected = _numpy_r2(Y.astype(np.float64), prediction, np.ones(len(X)), "uniform_average", 0)
    assert score == pytest.approx(expected, rel=1e-4)


@pytest.mark.parametrize("jit_compile", [True, "xla"], ids=["numba", "xla"])
@pytest.mark.parametrize("name", sorted(NUMPY))
def test_the_compiler_tiers_take_the_same_steps(name, jit_compile):
    pytest.importorskip("numba" if jit_compile is True else "jax")
    optimizer = getattr(keras.optimizers, name)(**CONFIGS[name])
    w, b = rt.Variable(W0), rt.Variable(B0)
    step = rt.function(lambda gw, gb: optimizer.apply_gradients([(gw, w), (gb, b)]),
                       jit_compile=jit_compile)
    for gw, gb in MANY_STEPS:
        step(rt.constant(gw), rt.constant(gb))
    expected_w, expected_b = _numpy_steps(name, CONFIGS[name], MANY_STEPS)
    np.testing.assert_allclose(w.numpy(), expected_w, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(b.numpy(), expected_b, rtol=2e-5, atol=2e-6)


def test_nadam_far_into_training_uses_the_momentum_product_of_its_step_counter():
    optimizer = keras.optimizers.Nadam(learning_rate=0.1)
    w = rt.Variable(W0)
    optimizer.build([w])
    optimizer.iterations.assign(np.int64(39))  # as a restored optimizer would be
    optimizer.apply_gradients([(GRADS[0][0], w)])
    expected = _nadam(W0.astype(np.float64), GRADS[0][0].astype(np.float64), {}, 40,
                      learning_rate=0.1)
    at_step_one = _nadam(W0.astype(np.float64), GRADS[0][0].astype(np.float64), {}, 1,
                         learning_rate=0.1)
    assert not np.allclose(expected, at_step_one, rtol=1e-3)  # the step number matters
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-5, atol=3e-6)


@pytest.mark.parametrize("name", ["Ftrl", "Adagrad", "Adafactor", "Nadam"])
def test_a_checkpoint_restores_slots_that_do_not_start_at_zero_or_are_factored(tmp_path, name):
    def model_and_checkpoint():
        model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])
        model.compile(getattr(keras.optimizers, name)(0.1), "mse")
        return model, rt.train.Checkpoint(model=model, optimizer=model.optimizer)

    def fit(model, epochs):
        model.fit(X, np.tile(Y, 2), epochs=epochs, batch_size=4, shuffle=False, verbose=0)

    model, checkpoint = model_and_checkpoint()
    fit(model, 2)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    restored, checkpoint = model_and_checkpoint()
    checkpoint.restore(path)  # deferred: the slots are made, then filled, by the first step
    fit(model, 1)
    fit(restored, 1)
    assert int(restored.optimizer.iterations.numpy()) == 6
    for mine, original in zip(restored.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(mine, original)


# -- Muon ----------------------------------------------------------------------------------
def _newton_schulz(x, steps=5, a=3.4445, b=-4.7750, c=2.0315):
    tall = x.shape[0] > x.shape[1]
    x = x.T if tall else x
    x = x / (np.linalg.norm(x) + 1e-7)
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    return x.T if tall else x


def _numpy_muon(steps, learning_rate=0.1, momentum=0.95, nesterov=True, rms_rate=0.2,
                weight_decay=0.004, adam_weight_decay=0.004):
    """Muon on W0, B0 and W0.T: the matrices by Newton-Schulz, the bias by AdamW."""
    w, wt, b = W0.astype(np.float64), W0.T.astype(np.float64), B0.astype(np.float64)
    moments = {"w": 0 * w, "wt": 0 * wt}
    adam = {}
    for t, (gw, gb) in enumerate(steps, start=1):
        b = b - b * adam_weight_decay * learning_rate
        adam["m"] = adam.get("m", 0 * b) + (1 - 0.9) * (gb - adam.get("m", 0 * b))
        adam["v"] = adam.get("v", 0 * b) + (1 - 0.999) * (gb ** 2 - adam.get("v", 0 * b))
        alpha = learning_rate * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        b = b - alpha * adam["m"] / (np.sqrt(adam["v"]) + 1e-7)
        new = {}
        for key, var, grad in (("w", w, gw), ("wt", wt, gw.T)):
            var = var - var * weight_decay * learning_rate
            moments[key] = momentum * moments[key] + grad
            g = grad + momentum * moments[key] if nesterov else moments[key]
            update = learning_rate * _newton_schulz(g.astype(np.float64))
            if rms_rate is not None:
                update = update * np.sqrt(max(var.shape)) * rms_rate
            new[key] = var - update
        w, wt = new["w"], new["wt"]
    return w, b, wt


MUON_KERAS = {  # Keras 3 (TensorFlow 2.21) after the three GRADS steps
    "default": ([[0.4526109, -0.9827533, 0.2156511], [1.4682673, 0.7796688, -0.4801068]],
                [-0.0725237, -0.2225717, 0.1370739]),
    "plain": ([[0.3651628, -0.9011849, 0.1492026], [1.3614517, 0.8716169, -0.3678907]],
              [-0.0725237, -0.2225717, 0.1370739]),
}
MUON_CONFIGS = {"default": dict(learning_rate=0.1),
                "plain": dict(learning_rate=0.1, nesterov=False, rms_rate=None,
                              weight_decay=0.1)}


def _muon_run(config, steps, compiled=True):
    optimizer = keras.optimizers.Muon(**config)
    w, b, wt = rt.Variable(W0), rt.Variable(B0), rt.Variable(W0.T.copy())

    def step(gw, gb):
        optimizer.apply_gradients([(gw, w), (gb, b), (rt.transpose(gw), wt)])

    run = rt.function(step) if compiled else step
    for gw, gb in steps:
        run(rt.constant(gw), rt.constant(gb))
    return optimizer, (w, b, wt)


@pytest.mark.parametrize("kind", sorted(MUON_CONFIGS))
def test_muon_gives_keras_numbers_and_follows_numpy(kind):
    optimizer, (w, b, wt) = _muon_run(MUON_CONFIGS[kind], GRADS)
    np.testing.assert_allclose(w.numpy(), MUON_KERAS[kind][0], rtol=1e-5, atol=3e-6)
    np.testing.assert_allclose(b.numpy(), MUON_KERAS[kind][1], rtol=1e-5, atol=3e-6)
    np.testing.assert_allclose(wt.numpy(), np.transpose(MUON_KERAS[kind][0]), rtol=1e-5,
                               atol=3e-6)
    assert optimizer.get_slot_names() == ["momentum", "velocity"]
    with pytest.raises(KeyError, match="velocity"):
        optimizer.get_slot(w, "velocity")  # a matrix has only Muon's momentum
    assert optimizer.get_slot(b, "velocity").shape.as_list() == [3]
    _, eager = _muon_run(MUON_CONFIGS[kind], MANY_STEPS, compiled=False)
    for got, want in zip(eager, _numpy_muon(MANY_STEPS, **MUON_CONFIGS[kind])):
        np.testing.assert_allclose(got.numpy(), want, rtol=2e-5, atol=3e-6)


def test_muon_gives_embeddings_and_excluded_layers_adamw_steps():
    model = keras.Sequential([keras.Input(shape=(2,), dtype="int32"),
                              keras.layers.Embedding(5, 3, name="embedding"),
                              keras.layers.Dense(2, name="head"),
                              keras.layers.Dense(2, name="out")])
    optimizer = keras.optimizers.Muon(exclude_layers=["head"])
    optimizer.build(model.trainable_variables)
    adamw = [v.path for v in model.trainable_variables if v.ref() in optimizer._slots and
             "velocity" in optimizer._slots[v.ref()]]
    assert adamw == [f"{model.name}/{path}" for path in (
        "embedding/embeddings", "head/kernel", "head/bias", "out/bias")]
    again = keras.optimizers.deserialize(keras.optimizers.serialize(optimizer))
    assert again.get_config() == optimizer.get_config()
    assert again.exclude_layers == ["head"] and again.weight_decay == 0.004


def test_muon_state_survives_model_save(tmp_path):
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4, activation="tanh"),
                              keras.layers.Dense(1)])
    model.compile(optimizer="muon", loss="mse")
    model.fit(X, Y, epochs=2, batch_size=len(X), shuffle=False, verbose=0)
    model.save(str(tmp_path / "m.keras"))
    loaded = keras.models.load_model(str(tmp_path / "m.keras"))
    assert type(loaded.optimizer) is keras.optimizers.Muon
    model.fit(X, Y, epochs=1, batch_size=len(X), shuffle=False, verbose=0)
    loaded.fit(X, Y, epochs=1, batch_size=len(X), shuffle=False, verbose=0)
    for mine, original in zip(loaded.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(mine, original)
