"""Saving traces a function without an input_signature once more, as TensorFlow's save does
(TensorFlow's saved_model guide shows the second "Tracing with" line; recorded with
TensorFlow 2.21 for the same program)."""

import runtime as rt


class _Module(rt.Module):
    def __init__(self):
        super().__init__()
        self.v = rt.Variable(1.0)

    @rt.function
    def __call__(self, x):
        print("Tracing with", x)
        return x * self.v

    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def mutate(self, new_v):
        print("Tracing mutate")
        self.v.assign(new_v)


def test_saving_traces_each_trace_once_more(tmp_path, capsys):
    module = _Module()
    module(rt.constant(0.0))
    assert capsys.readouterr().out == 'Tracing with Tensor("x:0", shape=(), dtype=float32)\n'
    rt.saved_model.save(module, str(tmp_path / "a"))
    # __call__'s trace again; mutate (an input_signature) traced once, not again
    assert capsys.readouterr().out == ('Tracing with Tensor("x:0", shape=(), dtype=float32)\n'
                                       "Tracing mutate\n")
    loaded = rt.saved_model.load(str(tmp_path / "a"))
    loaded.mutate(rt.constant(2.0))
    assert float(loaded(rt.constant(3.0))) == 6.0
    call = module.__call__.get_concrete_function(rt.TensorSpec(None, rt.float32))
    rt.saved_model.save(module, str(tmp_path / "b"), signatures=call)
    # the new trace, then once more when saved; the first trace is not traced a third time
    assert capsys.readouterr().out == 'Tracing with Tensor("x:0", dtype=float32)\n' * 2
    assert module.__call__.experimental_get_tracing_count() == 4   # TensorFlow's count
    assert list(rt.saved_model.load(str(tmp_path / "b")).signatures) == ["serving_default"]
