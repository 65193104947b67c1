"""Dropout in the recurrent and attention layers draws Keras 3's masks.

Each cell (SimpleRNN, GRU, LSTM, ConvLSTM) and attention layer owns a SeedGenerator, made
where Keras's makes it; an RNN draws its cell's masks once per sequence before the steps (a
mask per gate with `implementation=1`, which `recurrent_dropout` forces), training or not, and
the attention layers drop their softmax weights at their generator's next seed. So a seeded
program gives Keras's outputs and losses.

KERAS holds what TensorFlow 2.21 + Keras 3.15 printed for the same programs (float32 values,
the first entries of `np.asarray(output).ravel()`, and `History.history["loss"]`), recorded
by running the functions below' bodies with `import keras` in place of `runtime.keras`.
"""

import re

import numpy as np
import pytest

import runtime as rt
from runtime import keras

L = keras.layers

KERAS = {'lstm_both': {'train1': [-0.17427149415016174, -0.22405919432640076, -0.023341335356235504,
                          -0.10533949732780457, -0.22465747594833374, -0.22448059916496277],
               'train2': [-0.14600877463817596, -0.007175017148256302, 0.010111769661307335,
                          -0.12571856379508972, -0.2367331087589264, -0.20971795916557312],
               'infer': [-0.12101469933986664, -0.1682821363210678, -0.1966979205608368,
                         -0.08771669119596481, -0.18498393893241882, -0.1539362668991089],
               'loss': [0.2946838438510895, 0.31628260016441345],
               'kernel': [0.27095815539360046, 0.23598921298980713, -0.15143424272537231,
                          0.3354036808013916, 0.5122005343437195, 0.2548752725124359]},
 'lstm_in': {'train1': [-0.2106139361858368, -0.23412632942199707, -0.2198057770729065,
                        -0.12388629466295242, -0.25525838136672974, -0.20928001403808594],
             'train2': [-0.16503790020942688, -0.05083966255187988, -0.2688261866569519,
                        0.004037509672343731, -0.0201116856187582, -0.2194575071334839],
             'infer': [-0.12101469933986664, -0.168282151222229, -0.1966979205608368,
                       -0.08771669119596481, -0.18498393893241882, -0.1539362668991089],
             'loss': [0.3634876012802124, 0.26060500741004944],
             'kernel': [0.2709667384624481, 0.2353876680135727, -0.15123726427555084,
                        0.33520758152008057, 0.512254536151886, 0.25482285022735596]},
 'gru_both': {'train1': [0.1644863486289978, 0.1123037114739418, -0.02106262743473053,
                         0.1206427663564682, -0.007604189217090607, 0.019573092460632324],
              'train2': [-0.07484020292758942, 0.11438646912574768, -0.017056606709957123,
                         0.0017142947763204575, -0.02802540734410286, 0.09897765517234802],
              'infer': [0.11358212679624557, 0.07666736841201782, 0.034410830587148666,
                        0.07940612733364105, 0.0913698673248291, 0.07277588546276093],
              'loss': [0.15336687862873077, 0.1329241544008255],
              'kernel': [0.3047732412815094, 0.26665163040161133, -0.17098630964756012,
                         0.3780037462711334, 0.5766366124153137, 0.2877592146396637]},
 'gru_in': {'train1': [-0.06668494641780853, 0.09901528060436249, -0.012170491740107536,
                       -0.005346070043742657, 0.11551520228385925, 0.09059702605009079],
            'train2': [0.1330576390028, -0.01962374895811081, 0.043821096420288086,
                       0.09896057844161987, 0.1016780287027359, 0.0001855716109275818],
            'infer': [0.11358213424682617, 0.07666736841201782, 0.034410830587148666,
                      0.07940612733364105, 0.0913698673248291, 0.07277588546276093],
            'loss': [0.13170292973518372, 0.14126957952976227],
            'kernel': [0.30469948053359985, 0.26663774251937866, -0.17088675498962402,
                       0.3779519200325012, 0.5766196846961975, 0.2877252995967865]},
 'gru_rec_reset_before': {'train1': [0.12713417410850525, 0.0759911984205246,
                                     0.041943371295928955, 0.09528662264347076,
                                     0.08670291304588318, 0.07059502601623535],
                          'train2': [0.13556595146656036, 0.09653560817241669,
                                     0.047304946929216385, 0.08499602973461151,
                                     0.10415720194578171, 0.09176044166088104],
                          'infer': [0.12835942208766937, 0.08623061329126358,
                                    0.04110480099916458, 0.084739089012146, 0.09830764681100845,
                                    0.07605433464050293],
                          'loss': [0.1338384598493576, 0.12529714405536652],
                          'kernel': [0.3047946095466614, 0.26658597588539124,
                                     -0.17083071172237396, 0.37788087129592896,
                                     0.5766721367835999, 0.28769218921661377]},
 'simple_both': {'train1': [-0.27298474311828613, -0.29337549209594727, -0.1433640420436859,
                            -0.3530082702636719, -0.1915910691022873, -0.494446337223053],
                 'train2': [-0.3460843563079834, -0.0039733219891786575, -0.08787545561790466,
                            -0.0980863869190216, -0.03491635620594025, -0.26037660241127014],
                 'infer': [-0.21471157670021057, -0.12898799777030945, -0.20079252123832703,
                           -0.02300567924976349, -0.1273924857378006, -0.321964293718338],
                 'loss': [0.3740648329257965, 0.19904212653636932],
                 'kernel': [0.7959520220756531, 0.12393705546855927, 0.5800665020942688,
                            0.49480053782463074, 0.061909567564725876, 0.5998104214668274]},
 'conv_lstm': [[0.2798176109790802, 0.002143226796761155, 0.05976540595293045,
                0.052468232810497284, -0.14299072325229645],
               [0.3233520984649658, 0.08752286434173584, 0.18363556265830994,
                -0.07074012607336044, 0.15301987528800964],
               [0.2256278544664383, 0.003337488044053316, 0.23487403988838196,
                0.04355206713080406, 0.10486002266407013]],
 'stacked': [[0.10039672255516052, 0.024736501276493073, -0.0003086893120780587,
              -0.001347347628325224],
             [0.13204053044319153, -0.00022901917691342533, 0.0004066694527864456,
              -0.005267884582281113]],
 'bidirectional': [0.05061481148004532, 0.015290533192455769, -0.23043577373027802,
                   -0.06541935354471207, 0.22628797590732574, 0.06257490813732147,
                   -0.3085041046142578, -0.030992455780506134],
 'mha': [[0.07845651358366013, 0.13734552264213562, -0.7121769189834595, -0.5480441451072693,
          -0.25157853960990906, -0.2510184049606323],
         [-0.05823356285691261, 0.3031935691833496, -0.762168288230896, -0.617607593536377,
          -0.13326942920684814, -0.0626322329044342],
         [0.07962573319673538, 0.31405186653137207, -1.0074100494384766, -0.9358458518981934,
          0.06568463146686554, 0.3267756700515747]],
 'mha_paths': ['multi_head_attention/query/kernel', 'multi_head_attention/query/bias',
               'multi_head_attention/key/kernel', 'multi_head_attention/key/bias',
               'multi_head_attention/value/kernel', 'multi_head_attention/value/bias',
               'multi_head_attention/seed_generator_12/seed_generator_state',
               'multi_head_attention/attention_output/kernel',
               'multi_head_attention/attention_output/bias'],
 'gqa': [[0.8691307902336121, -0.1961977481842041, -0.5902224183082581, 0.0737268328666687,
          1.0348153114318848, -0.9645481109619141],
         [0.8288208842277527, 0.14089998602867126, -0.8532586097717285, -0.5502045154571533,
          0.46473410725593567, -0.25908657908439636]],
 'Attention': [[0.742827832698822, 0.837387204170227, 0.30810022354125977, 0.26561304926872253,
                1.1460928916931152, 0.9201780557632446],
               [0.30285054445266724, 0.36819595098495483, 0.00806789193302393,
                0.33092689514160156, 0.8214787840843201, 0.9672625064849854]],
 'AdditiveAttention': [[0.8036556243896484, 0.9132813811302185, 0.3497377038002014,
                        0.304423451423645, 1.0877019166946411, 0.8667182326316833],
                       [0.27890723943710327, 0.3390864133834839, 0.007430045399814844,
                        0.30476388335227966, 0.8116861581802368, 0.982758104801178]],
 'attention_fit': [0.14900285005569458, 0.17616532742977142]}


def _first(value, k=6):
    return np.asarray(value).ravel()[:k]


def _close(actual, expected, rtol=2e-5, atol=2e-6):
    np.testing.assert_allclose(_first(actual, len(expected)), expected, rtol=rtol, atol=atol)


def _sequences():
    rs = np.random.RandomState(0)
    return rs.rand(6, 5, 3).astype("float32"), rs.rand(6, 1).astype("float32")


RECURRENT = {
    "lstm_both": lambda: L.LSTM(4, dropout=0.3, recurrent_dropout=0.2),
    "lstm_in": lambda: L.LSTM(4, dropout=0.3),
    "gru_both": lambda: L.GRU(4, dropout=0.3, recurrent_dropout=0.2),
    "gru_in": lambda: L.GRU(4, dropout=0.3),
    "gru_rec_reset_before": lambda: L.GRU(4, recurrent_dropout=0.2, reset_after=False),
    "simple_both": lambda: L.SimpleRNN(4, dropout=0.3, recurrent_dropout=0.2),
}


def _seeded_run(name, call=None, jit_compile=False):
    """Keras's program: two training calls, an inference call, then two epochs of fit."""
    x, y = _sequences()
    keras.utils.set_random_seed(5)
    model = keras.Sequential([keras.Input((5, 3)), RECURRENT[name](), L.Dense(1)])
    call = call or (lambda v, training: model(v, training=training))
    found = {"train1": call(x, True), "train2": call(x, True), "infer": call(x, False)}
    model.compile("sgd", "mse", jit_compile=jit_compile)
    found["loss"] = model.fit(x, y, batch_size=3, epochs=2, shuffle=False,
                              verbose=0).history["loss"]
    found["kernel"] = model.get_weights()[0]
    return found


def _check(found, expected):
    for key in ("train1", "train2", "infer", "loss", "kernel"):
        _close(found[key], expected[key])


@pytest.mark.parametrize("name", sorted(RECURRENT))
def test_recurrent_dropout_gives_keras_outputs_and_losses(name):
    _check(_seeded_run(name), KERAS[name])


def test_lstm_dropout_under_function():
    # the calls traced by rt.function (the steps a staged while loop): the same masks, drawn
    # from the generator's variable state (jit_compile=True compiles with Numba: minutes)
    jit_compile = False
    holder = {}

    def call(x, training):
        if training not in holder:
            model = holder["model"]
            holder[training] = rt.function(lambda v: model(v, training=training),
                                           jit_compile=jit_compile)
        return holder[training](x)

    original = keras.Sequential

    def capture(*args, **kwargs):
        holder["model"] = original(*args, **kwargs)
        return holder["model"]

    keras.Sequential = capture
    try:
        found = _seeded_run("lstm_both", call, jit_compile)
    finally:
        keras.Sequential = original
    _check(found, KERAS["lstm_both"])


def test_conv_lstm_stacked_cells_and_bidirectional_draw_keras_masks():
    rs = np.random.RandomState(2)
    x = rs.rand(2, 3, 5, 5, 2).astype("float32")
    keras.utils.set_random_seed(8)
    layer = L.ConvLSTM2D(2, 3, dropout=0.3, recurrent_dropout=0.2)
    for found, expected in zip([layer(x, training=True), layer(x, training=True), layer(x)],
                               KERAS["conv_lstm"]):
        _close(found, expected)
    assert [v.path for v in layer.variables][-1].endswith("/seed_generator_state")
    steps = rs.rand(2, 4, 3).astype("float32")
    keras.utils.set_random_seed(9)
    stack = L.RNN([L.LSTMCell(3, dropout=0.2, recurrent_dropout=0.1),
                   L.GRUCell(2, dropout=0.4)])
    for expected in KERAS["stacked"]:
        _close(stack(steps, training=True), expected)
    keras.utils.set_random_seed(10)
    both = L.Bidirectional(L.GRU(2, dropout=0.3, recurrent_dropout=0.3,
                                 return_sequences=True))
    _close(both(steps, training=True), KERAS["bidirectional"])


@pytest.mark.parametrize("kwargs,lstm,gru,simple", [
    (dict(dropout=0.3, recurrent_dropout=0.2), 16, 12, 4),
    (dict(dropout=0.3), 2, 2, 2),
    (dict(recurrent_dropout=0.5), 8, 6, 2),
    (dict(dropout=1.0), 0, 0, 0),
])
def test_calls_move_the_seed_generator_on_as_keras(kwargs, lstm, gru, simple):
    # Keras 3.15: the state after an inference call and a training=False call of each layer
    # (seed=11); a mask per gate with recurrent_dropout, none drawn at rate 1
    x = np.ones((2, 3, 4), np.float32)
    for cls, count in (("LSTM", lstm), ("GRU", gru), ("SimpleRNN", simple)):
        layer = getattr(L, cls)(2, seed=11, **kwargs)
        layer(x)
        layer(x, training=False)
        assert layer.cell.seed_generator.state.numpy().tolist() == [11, count], cls


def test_cells_keep_their_masks_for_a_sequence_and_check_their_arguments():
    cell = L.LSTMCell(3, dropout=0.5, recurrent_dropout=0.5, seed=1)
    x, h = np.ones((2, 4), np.float32), np.zeros((2, 3), np.float32)
    cell(x, [h, h], training=True)
    first = [m.numpy() for m in cell.get_dropout_mask(x)]
    assert len(first) == 4 and cell.dropout_mask_count == 4 and cell.implementation == 1
    cell(x, [h, h], training=True)  # the same masks until reset
    np.testing.assert_array_equal([m.numpy() for m in cell.get_dropout_mask(x)], first)
    cell.reset_dropout_mask()
    assert not np.array_equal([m.numpy() for m in cell.get_dropout_mask(x)], first)
    assert L.GRUCell(2, dropout=0.2).implementation == 2
    assert L.LSTM(2, dropout=7).dropout == 1.0  # clipped to [0, 1], as Keras
    with pytest.raises(TypeError, match="dropout"):
        L.LSTMCell(2, dropout="0.1")
    with pytest.raises(ValueError, match="implementation"):
        L.GRU(2, implementation=0)


def _unnumbered(path: str) -> str:
    return re.sub(r"_\d+(?=/|$)", "", path.split("/", 1)[1])


def _attention_inputs():
    rs = np.random.RandomState(1)
    return [rs.rand(*shape).astype("float32") for shape in ((2, 3, 4), (2, 5, 4), (2, 3, 4))]


def test_attention_dropout_draws_keras_masks():
    q, v, _ = _attention_inputs()
    keras.utils.set_random_seed(3)
    mha = L.MultiHeadAttention(num_heads=2, key_dim=3, dropout=0.4)
    found = [mha(q, v, training=True), mha(q, v, training=True), mha(q, v)]
    for actual, expected in zip(found, KERAS["mha"]):
        _close(actual, expected)
    # the generator's state sits where Keras's Dropout sublayer puts it
    # (numbered by the generators made before, as Keras numbers them)
    assert [_unnumbered(w.path) for w in mha.variables] == \
        [_unnumbered(path) for path in KERAS["mha_paths"]]
    keras.utils.set_random_seed(3)
    gqa = L.GroupQueryAttention(head_dim=3, num_query_heads=2, num_key_value_heads=1,
                                dropout=0.4)
    for expected in KERAS["gqa"]:
        _close(gqa(q, v, training=True), expected)
    for cls in ("Attention", "AdditiveAttention"):
        keras.utils.set_random_seed(4)
        layer = getattr(L, cls)(dropout=0.5)
        for expected in KERAS[cls]:
            _close(layer([q, v], training=True), expected)


def test_attention_model_with_dropout_fits_as_keras():
    q, v, target = _attention_inputs()
    keras.utils.set_random_seed(6)
    query, value = keras.Input((3, 4)), keras.Input((5, 4))
    out = L.MultiHeadAttention(num_heads=2, key_dim=2, dropout=0.3)(query, value)
    out = L.Attention(dropout=0.2)([out, value])
    model = keras.Model([query, value], out)
    model.compile("sgd", "mse")
    history = model.fit([q, v], target, batch_size=1, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], KERAS["attention_fit"], rtol=2e-5)


def test_multi_head_attention_names_its_sublayers_as_keras():
    # Keras's layer makes a Softmax and a Dropout when built: the next ones made are
    # numbered after them
    before = int((L.Dropout(0.1).name + "_0").split("_")[1])
    mha = L.MultiHeadAttention(num_heads=1, key_dim=2)
    mha(np.ones((1, 2, 3), np.float32), np.ones((1, 2, 3), np.float32))
    assert L.Dropout(0.1).name == f"dropout_{before + 2}"
