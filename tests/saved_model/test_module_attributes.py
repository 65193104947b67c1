"""A module saved without signatures= loads as TensorFlow's: no signatures, its functions
callable as attributes, its variables reachable by their attribute paths (the values below are
what TensorFlow 2.21 prints for the same program, the saved_model guide's CustomModule)."""

import numpy as np
import pytest

import runtime as rt


class Inner(rt.Module):
    def __init__(self):
        super().__init__()
        self.k = rt.Variable([1.0, 2.0])


class Custom(rt.Module):
    def __init__(self):
        super().__init__()
        self.v = rt.Variable(1.0)
        self.inner = Inner()

    @rt.function
    def __call__(self, x):
        return x * self.v + rt.reduce_sum(self.inner.k)

    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def mutate(self, new_v):
        self.v.assign(new_v)


@pytest.fixture
def module():
    m = Custom()
    m(rt.constant(0.0))
    return m


def test_no_signatures_but_functions_and_variable_attributes(module, tmp_path):
    rt.saved_model.save(module, str(tmp_path / "a"))
    imported = rt.saved_model.load(str(tmp_path / "a"))
    assert len(imported.signatures) == 0
    assert imported.v.numpy() == 1.0
    np.testing.assert_array_equal(imported.inner.k.numpy(), [1.0, 2.0])
    assert imported(rt.constant(3.0)).numpy() == 6.0
    imported.mutate(rt.constant(2.0))
    assert imported.v.numpy() == 2.0 and imported(rt.constant(3.0)).numpy() == 9.0
    with pytest.raises(AttributeError, match="nope"):
        imported.nope  # noqa: B018


def test_a_gradient_step_trains_the_loaded_variable(module, tmp_path):
    rt.saved_model.save(module, str(tmp_path / "a"))
    imported = rt.saved_model.load(str(tmp_path / "a"))
    with rt.GradientTape() as tape:
        loss = (10.0 - imported(rt.constant(2.0))) ** 2
    grads = tape.gradient(loss, [imported.v])
    # d/dv (10 - (2 v + 3))^2 = -4 (7 - 2 v) = -20 at v = 1
    assert grads[0].numpy() == pytest.approx(-20.0)


def test_explicit_signatures_and_saving_again(module, tmp_path):
    call = module.__call__.get_concrete_function(rt.TensorSpec(None, rt.float32))
    rt.saved_model.save(module, str(tmp_path / "b"), signatures=call)
    with_signature = rt.saved_model.load(str(tmp_path / "b"))
    assert sorted(with_signature.signatures) == ["serving_default"]
    assert with_signature.v.numpy() == 1.0 and with_signature(rt.constant(3.0)).numpy() == 6.0
    imported = rt.saved_model.load(str(tmp_path / "b"))
    imported.v.assign(2.0)
    rt.saved_model.save(rt.saved_model.load(str(tmp_path / "b")), str(tmp_path / "c"))
    again = rt.saved_model.load(str(tmp_path / "c"))
    assert sorted(again.signatures) == ["serving_default"]
    assert again.v.numpy() == 1.0
    np.testing.assert_array_equal(again.inner.k.numpy(), [1.0, 2.0])
