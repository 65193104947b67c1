"""`keras.preprocessing.text` (deprecated by Keras 3, still exported): `Tokenizer`,
`text_to_word_sequence`, `one_hot`, `hashing_trick` and `tokenizer_from_json`, with Keras's
behaviour: words are lower-cased, the `filters` characters become separators, and indices
start at 1 in order of falling word count (the out-of-vocabulary token, if any, first)."""

from __future__ import annotations

import collections
import json
from typing import Callable, Optional

import numpy as np

FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(input_text: str, filters: str = FILTERS, lower: bool = True,
                          split: str = " ") -> list[str]:
    """The words of `input_text`: lower-cased, each character of `filters` a separator,
    split at `split`, empty words dropped."""
    if lower:
        input_text = input_text.lower()
    input_text = input_text.translate(str.maketrans({c: split for c in filters}))
    return [word for word in input_text.split(split) if word]


def hashing_trick(text: str, n: int, hash_function=None, filters: str = FILTERS,
                  lower: bool = True, split: str = " ", analyzer: Optional[Callable] = None
                  ) -> list[int]:
    """Each word of `text` as an index in [1, n): `hash_function(word) % (n - 1) + 1`, with
    Python's `hash` by default (salted per process unless PYTHONHASHSEED is set) or
    "md5" (stable)."""
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        import hashlib  # OpenSSL's bindings, loaded only for md5 hashing

        def hash_function(word):
            return int(hashlib.md5(word.encode()).hexdigest(), 16)
    words = text_to_word_sequence(text, filters, lower, split) if analyzer is None \
        else analyzer(text)
    return [hash_function(word) % (n - 1) + 1 for word in words]


def one_hot(input_text: str, n: int, filters: str = FILTERS, lower: bool = True,
            split: str = " ", analyzer: Optional[Callable] = None) -> list[int]:
    """`hashing_trick` with Python's `hash`: each word as an index in [1, n)."""
    return hashing_trick(input_text, n, hash, filters, lower, split, analyzer)


class Tokenizer:
    """Turns texts into sequences of word indices (or count / TF-IDF matrices).

        tokenizer = Tokenizer(num_words=1000, oov_token="<OOV>")
        tokenizer.fit_on_texts(texts)
        sequences = tokenizer.texts_to_sequences(texts)

    `num_words` keeps the `num_words - 1` most frequent words when converting (the fitted
    `word_index` holds them all); `oov_token` stands for the words left out."""

    def __init__(self, num_words: Optional[int] = None, filters: str = FILTERS,
                 lower: bool = True, split: str = " ", char_level: bool = False,
                 oov_token: Optional[str] = None, analyzer: Optional[Callable] = None,
                 document_count: int = 0, **kwargs) -> None:
        if kwargs:
            raise TypeError(f"Tokenizer got unexpected keyword arguments {sorted(kwargs)}.")
        self.word_counts: collections.OrderedDict = collections.OrderedDict()
        self.word_docs: collections.defaultdict = collections.defaultdict(int)
        self.filters, self.split, self.lower = filters, split, lower
        self.num_words, self.char_level, self.oov_token = num_words, char_level, oov_token
        self.analyzer = analyzer
        self.document_count = document_count
        self.index_docs: collections.defaultdict = collections.defaultdict(int)
        self.word_index: dict = {}
        self.index_word: dict = {}

    def _words(self, text) -> list:
        if self.char_level or isinstance(text, list):
            if self.lower:
                return [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        if self.analyzer is not None:
            return self.analyzer(text)
        return text_to_word_sequence(text, self.filters, self.lower, self.split)

    def fit_on_texts(self, texts) -> None:
        """Counts the words of `texts` (strings, or lists of words) and numbers them."""
        for text in texts:
            self.document_count += 1
            words = self._words(text)
            for word in words:
                self.word_counts[word] = self.word_counts.get(word, 0) + 1
            for word in set(words):
                self.word_docs[word] += 1
        ranked = sorted(self.word_counts.items(), key=lambda item: item[1], reverse=True)
        vocabulary = ([] if self.oov_token is None else [self.oov_token]) + \
            [word for word, _ in ranked]
        self.word_index = dict(zip(vocabulary, range(1, len(vocabulary) + 1)))
        self.index_word = {index: word for word, index in self.word_index.items()}
        for word, count in self.word_docs.items():
            self.index_docs[self.word_index[word]] = count

    def fit_on_sequences(self, sequences) -> None:
        """Counts the documents each index appears in (for `sequences_to_matrix`'s TF-IDF)."""
        self.document_count += len(sequences)
        for sequence in sequences:
            for index in set(sequence):
                self.index_docs[index] += 1

    def _oov_index(self) -> Optional[int]:
        return self.word_index.get(self.oov_token) if self.oov_token is not None else None

    def texts_to_sequences(self, texts) -> list[list[int]]:
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts):
        """Each text's word indices; a word beyond `num_words` or never seen is the
        out-of-vocabulary token's index, or left out when there is none."""
        oov = self._oov_index()
        for text in texts:
            sequence = []
            for word in self._words(text):
                index = self.word_index.get(word)
                if index is not None and not (self.num_words and index >= self.num_words):
                    sequence.append(index)
                elif oov is not None:
                    sequence.append(oov)
            yield sequence

    def sequences_to_texts(self, sequences) -> list[str]:
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences):
        """Each sequence's words joined by spaces (indices as `texts_to_sequences` keeps them)."""
        oov = self._oov_index()
        for sequence in sequences:
            words = []
            for index in sequence:
                word = self.index_word.get(index)
                if word is not None and not (self.num_words and index >= self.num_words):
                    words.append(word)
                elif oov is not None:
                    words.append(self.index_word[oov])
            yield " ".join(words)

    def texts_to_matrix(self, texts, mode: str = "binary") -> np.ndarray:
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode: str = "binary") -> np.ndarray:
        """A [len(sequences), num_words] matrix: per index, "binary" (present), "count",
        "freq" (count / length) or "tfidf" ((1 + log count) * log(1 + documents / (1 +
        documents with the index)))."""
        if mode not in ("binary", "count", "tfidf", "freq"):
            raise ValueError(f"Unknown vectorization mode: {mode!r}; use 'binary', 'count', "
                             "'tfidf' or 'freq'.")
        if self.num_words:
            width = self.num_words
        elif self.word_index:
            width = len(self.word_index) + 1
        else:
            raise ValueError("Specify a dimension (`num_words` argument), or fit on some text "
                             "data first.")
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        out = np.zeros((len(sequences), width))
        for row, sequence in enumerate(sequences):
            if not sequence:
                continue
            counts = collections.Counter(j for j in sequence if j < width)
            for j, count in counts.items():
                if mode == "count":
                    out[row, j] = count
                elif mode == "freq":
                    out[row, j] = count / len(sequence)
                elif mode == "binary":
                    out[row, j] = 1
                else:
                    tf = 1 + np.log(count)
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    out[row, j] = tf * idf
        return out

    def get_config(self) -> dict:
        return {"num_words": self.num_words, "filters": self.filters, "lower": self.lower,
                "split": self.split, "char_level": self.char_level,
                "oov_token": self.oov_token, "document_count": self.document_count,
                "word_counts": json.dumps(self.word_counts),
                "word_docs": json.dumps(self.word_docs),
                "index_docs": json.dumps(self.index_docs),
                "index_word": json.dumps(self.index_word),
                "word_index": json.dumps(self.word_index)}

    def to_json(self, **kwargs) -> str:
        """The tokenizer as JSON (`tokenizer_from_json` reads it); kwargs go to json.dumps."""
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()},
                          **kwargs)


def tokenizer_from_json(json_string: str) -> Tokenizer:
    """The Tokenizer `Tokenizer.to_json` wrote."""
    config = dict(json.loads(json_string).get("config"))
    word_counts = json.loads(config.pop("word_counts"))
    word_docs = json.loads(config.pop("word_docs"))
    index_docs = {int(k): v for k, v in json.loads(config.pop("index_docs")).items()}
    index_word = {int(k): v for k, v in json.loads(config.pop("index_word")).items()}
    word_index = json.loads(config.pop("word_index"))
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = collections.OrderedDict(word_counts)
    tokenizer.word_docs = collections.defaultdict(int, word_docs)
    tokenizer.index_docs = collections.defaultdict(int, index_docs)
    tokenizer.index_word, tokenizer.word_index = index_word, word_index
    return tokenizer


__all__ = ["Tokenizer", "hashing_trick", "one_hot", "text_to_word_sequence",
           "tokenizer_from_json"]
