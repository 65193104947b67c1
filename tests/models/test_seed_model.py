"""The seed's model example, as written: a compiled `call`, two graphs, one training step."""

import numpy as np

import runtime as rt


class MyModel(rt.Model):
    def __init__(self, keep_probability=0.2):
        super().__init__()
        self.dense1 = rt.layers.Dense(4, activation=rt.nn.relu)
        self.dense2 = rt.layers.Dense(5, activation=rt.nn.softmax)
        self.keep_probability = keep_probability

    @rt.defun
    def call(self, inputs, training=True):
        x = self.dense2(self.dense1(inputs))
        if training:
            return rt.nn.dropout(x, self.keep_probability)
        else:
            return x


def _op_types(concrete):
    return [op.type for op in concrete.graph.operations]


def test_training_true_and_false_run_two_graphs():
    model = MyModel()
    x = rt.ones([1, 10])
    y_train = model(x, training=True)
    y_infer = model(x, training=False)
    assert y_train.shape.as_list() == y_infer.shape.as_list() == [1, 5]
    np.testing.assert_allclose(np.asarray(y_infer).sum(), 1.0, rtol=1e-5)  # softmax
    assert model.call.experimental_get_tracing_count() == 2
    concretes = model.call.list_concrete_functions()
    assert len(concretes) == 2
    train_graph = model.call.get_concrete_function(x, training=True)
    infer_graph = model.call.get_concrete_function(x, training=False)
    assert train_graph is not infer_graph
    assert "Dropout" in _op_types(train_graph)
    assert "Dropout" not in _op_types(infer_graph)
    assert _op_types(infer_graph).count("MatMul") == 2


def test_the_default_call_is_the_training_graph_and_calls_reuse_graphs():
    model = MyModel()
    x = rt.ones([1, 10])
    model(x, training=True)
    model(x)
    model(x, training=True)
    model(x, training=False)
    model(x, training=False)
    assert model.call.experimental_get_tracing_count() == 2


def test_the_two_graphs_share_the_four_variables():
    model = MyModel()
    x = rt.ones([1, 10])
    model(x, training=True)
    model(x, training=False)
    shapes = [v.shape.as_list() for v in model.trainable_variables]
    assert shapes == [[10, 4], [4], [4, 5], [5]]
    assert model.variables == model.trainable_variables
    for training in (True, False):
        concrete = model.call.get_concrete_function(x, training=training)
        read = {id(op.attrs["var"]) for op in concrete.graph.operations
                if op.type == "ReadVariableOp"}
        assert read == {id(v) for v in model.trainable_variables}


def test_inference_matches_numpy():
    model = MyModel()
    x = np.random.default_rng(1).standard_normal((3, 10)).astype(np.float32)
    y = np.asarray(model(x, training=False))
    w1, b1, w2, b2 = model.get_weights()
    z = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    e = np.exp(z - z.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_each_model_instance_has_its_own_graphs_and_weights():
    a, b = MyModel(), MyModel()
    x = rt.ones([1, 10])
    a(x, training=False)
    b(x, training=False)
    assert a.call.experimental_get_tracing_count() == 1
    assert b.call.experimental_get_tracing_count() == 1
    assert not set(map(id, a.variables)) & set(map(id, b.variables))


def test_one_training_step_as_the_seed_writes_it():
    model = MyModel()
    x = rt.ones([1, 10])
    before = model.get_weights()
    optimizer = rt.train.GradientDescentOptimizer(learning_rate=0.001)
    with rt.GradientTape() as tape:
        loss = rt.reduce_mean(model(x))
    gradients = tape.gradient(loss, model.trainable_variables)
    assert len(gradients) == 4
    assert [g.shape.as_list() for g in gradients] == [[10, 4], [4], [4, 5], [5]]
    optimizer.apply_gradients((g, v) for g, v in zip(gradients, model.trainable_variables))
    after = model.get_weights()
    for g, old, new in zip(gradients, before, after):
        np.testing.assert_allclose(new, old - 0.001 * np.asarray(g), rtol=1e-6, atol=1e-9)


def test_the_example_script_runs(capsys):
    import runpy
    from pathlib import Path
    script = Path(__file__).resolve().parents[2] / "examples" / "seed_model.py"
    runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    assert "gradient shapes: [[10, 4], [4], [4, 5], [5]]" in out
