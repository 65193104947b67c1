"""keras.preprocessing.text and .sequence's Keras 2 helpers against the values
tf.keras.preprocessing (Keras 3.15 under TensorFlow 2.21) prints for the same calls."""

import numpy as np
import pytest

import runtime as rt

text = rt.keras.preprocessing.text
sequence = rt.keras.preprocessing.sequence

TEXTS = ["The cat sat on the mat.", "The dog ate my homework!", "cat, dog; cat?"]


def test_text_to_word_sequence():
    assert text.text_to_word_sequence("Hello, World! it's  fine\tnow") == \
        ["hello", "world", "it's", "fine", "now"]


def test_tokenizer_as_keras():
    t = text.Tokenizer(num_words=5, oov_token="<OOV>")
    t.fit_on_texts(TEXTS)
    assert t.word_index == {"<OOV>": 1, "the": 2, "cat": 3, "dog": 4, "sat": 5, "on": 6,
                            "mat": 7, "ate": 8, "my": 9, "homework": 10}
    assert dict(t.word_counts) == {"the": 3, "cat": 3, "sat": 1, "on": 1, "mat": 1, "dog": 2,
                                   "ate": 1, "my": 1, "homework": 1}
    assert dict(t.index_docs) == {7: 1, 3: 2, 6: 1, 5: 1, 2: 2, 8: 1, 4: 2, 9: 1, 10: 1}
    assert t.texts_to_sequences(TEXTS + ["unknown cat words"]) == \
        [[2, 3, 1, 1, 2, 1], [2, 4, 1, 1, 1], [3, 4, 3], [1, 3, 1]]
    assert t.sequences_to_texts([[1, 2, 3, 4, 7]]) == ["<OOV> the cat dog <OOV>"]
    matrices = {
        "binary": [[0, 1, 1, 1, 0], [0, 1, 1, 0, 1]],
        "count": [[0, 3, 2, 1, 0], [0, 3, 1, 0, 1]],
        "freq": [[0, 0.5, 0.333333, 0.166667, 0], [0, 0.6, 0.2, 0, 0.2]],
        "tfidf": [[0, 2.909294, 1.1736, 0.693147, 0], [0, 2.909294, 0.693147, 0, 0.693147]]}
    for mode, expected in matrices.items():
        np.testing.assert_allclose(t.texts_to_matrix(TEXTS[:2], mode=mode), expected,
                                   atol=1e-6)
    with pytest.raises(ValueError, match="mode"):
        t.texts_to_matrix(TEXTS, mode="bm25")
    again = text.tokenizer_from_json(t.to_json())
    assert again.word_index == t.word_index and again.num_words == 5
    assert again.texts_to_sequences(TEXTS[:1]) == [[2, 3, 1, 1, 2, 1]]


def test_character_level_and_sequences():
    t = text.Tokenizer(char_level=True)
    t.fit_on_texts(["abca"])
    assert t.word_index == {"a": 1, "b": 2, "c": 3}
    assert t.texts_to_sequences(["cab"]) == [[3, 1, 2]]
    counted = text.Tokenizer()
    counted.fit_on_sequences([[1, 2], [2, 3]])
    assert counted.document_count == 2 and dict(counted.index_docs) == {1: 1, 2: 2, 3: 1}
    with pytest.raises(ValueError, match="num_words"):
        text.Tokenizer().texts_to_matrix(["a"])


def test_hashing():
    assert text.hashing_trick("the cat The", 10, hash_function="md5") == [6, 3, 6]
    indices = text.one_hot("a b c a", 5)
    assert len(indices) == 4 and indices[0] == indices[3] and all(1 <= i < 5 for i in indices)


def test_sampling_table_and_skipgrams():
    np.testing.assert_allclose(sequence.make_sampling_table(6, 1e-2),
                               [0.099683, 0.099683, 0.173165, 0.234501, 0.288658, 0.337869],
                               atol=1e-6)
    assert sequence.skipgrams([1, 2, 0, 3], 5, window_size=1, negative_samples=0,
                              shuffle=False) == ([[1, 2], [2, 1]], [1, 1])
    assert sequence.skipgrams([1, 2], 5, window_size=1, negative_samples=0, categorical=True,
                              shuffle=False) == ([[1, 2], [2, 1]], [[0, 1], [0, 1]])
    couples, labels = sequence.skipgrams([1, 2, 3, 4], 10, window_size=2, seed=1)
    assert len(couples) == 20 and sorted(labels) == [0] * 10 + [1] * 10
    for (word, other), label in zip(couples, labels):
        assert 1 <= other < 10 and (label == 0 or abs(word - other) <= 2)


def test_timeseries_generator():
    data, targets = np.arange(20).reshape(10, 2), np.arange(10) * 10
    g = sequence.TimeseriesGenerator(data, targets, length=3, stride=2, batch_size=2)
    assert len(g) == 2
    x, y = g[0]
    assert x.tolist() == [[[0, 1], [2, 3], [4, 5]], [[4, 5], [6, 7], [8, 9]]]
    assert y.tolist() == [30, 50]
    x, y = g[1]
    assert x.tolist() == [[[8, 9], [10, 11], [12, 13]], [[12, 13], [14, 15], [16, 17]]]
    assert y.tolist() == [70, 90]
    g = sequence.TimeseriesGenerator(data, targets, length=4, sampling_rate=2, reverse=True,
                                     start_index=1, end_index=8, batch_size=3)
    assert len(g) == 2
    x, y = g[1]
    assert x.tolist() == [[[12, 13], [8, 9]]] and y.tolist() == [80]
    with pytest.raises(ValueError, match="same length"):
        sequence.TimeseriesGenerator(data, targets[:3], length=2)
    assert isinstance(g, rt.keras.utils.PyDataset)  # fit reads it as any PyDataset
    model = rt.keras.Sequential([rt.keras.Input((3, 2)), rt.keras.layers.Flatten(),
                                 rt.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(sequence.TimeseriesGenerator(data.astype("float32"), targets.astype("float32"),
                                           length=3, batch_size=2), epochs=1, verbose=0)
