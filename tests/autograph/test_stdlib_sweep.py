"""Converting real code: whole standard-library modules, converted function by function,
must compute exactly what the originals compute."""

from __future__ import annotations

import bisect
import configparser
import difflib
import fractions
import heapq
import html.parser
import ipaddress
import json
import json.decoder
import json.encoder
import random
import shlex
import statistics
import textwrap
import types
import urllib.parse

import autograph as ag

MODULES = [textwrap, difflib, statistics, fractions, shlex, json.decoder, json.encoder, heapq,
           bisect, urllib.parse, ipaddress, configparser, html.parser]
_PLAIN = 0x20 | 0x80 | 0x200     # generators and coroutines are not converted


def _convert_module(mod) -> list:
    saved = []

    def swap(owner, name, fn):
        saved.append((owner, name, fn))
        setattr(owner, name, ag.to_graph(fn))

    for name, obj in list(vars(mod).items()):
        if isinstance(obj, types.FunctionType) and obj.__module__ == mod.__name__ \
                and not obj.__code__.co_flags & _PLAIN:
            swap(mod, name, obj)
        elif isinstance(obj, type) and obj.__module__ == mod.__name__:
            for n, v in list(vars(obj).items()):
                if isinstance(v, types.FunctionType) and not v.__code__.co_flags & _PLAIN:
                    swap(obj, n, v)
    return saved


def _workload() -> list:
    rng = random.Random(0)
    texts = ["The quick brown fox jumps over the lazy dog " * 5, "a\n  b\n    c\n", "x" * 100]
    out = []
    for t in texts:
        out += [textwrap.wrap(t, 17), textwrap.dedent(t), textwrap.fill(t, 23), textwrap.shorten(t, 30)]
    a, b = "the quick brown fox".split(), "the quick red fox jumps".split()
    out.append(list(difflib.unified_diff(a, b)))
    out.append(difflib.SequenceMatcher(None, texts[0], texts[1]).ratio())
    out.append(difflib.get_close_matches("appel", ["ape", "apple", "peach", "puppy"]))
    for _ in range(10):
        n = [rng.randint(-50, 50) for _ in range(rng.randint(1, 15))]
        out.append((statistics.mean(n), statistics.median(n), statistics.mode(n)))
        out.append(sum(fractions.Fraction(x, 7) for x in n))
        h = list(n)
        heapq.heapify(h)
        out.append([heapq.heappop(h) for _ in range(len(h))])
        out += [heapq.nlargest(3, n), bisect.bisect(sorted(n), 0)]
    out.append(shlex.split("a 'b c' \"d e\" f\\ g"))
    out.append(json.dumps({"a": [1, 2.5, None, "x\n"], "b": {"c": True}}, indent=2, sort_keys=True))
    out.append(json.loads('{"a": [1, 2.5, null, "x\\n", {"q": "\\u00e9"}]}'))
    out += [urllib.parse.urlparse("http://user:pw@host:80/p/a?q=1#f"), urllib.parse.quote("a b&c")]
    out.append(str(ipaddress.ip_network("10.0.0.0/24").supernet()))
    out.append(list(ipaddress.ip_network("192.168.0.0/30").hosts()))
    cp = configparser.ConfigParser()
    cp.read_string("[s]\na = 1\nb = x\n")
    out.append(dict(cp["s"]))

    class Tags(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags = []

        def handle_starttag(self, tag, attrs):
            self.tags.append((tag, attrs))

    p = Tags()
    p.feed("<html><b class='x'>hi</b><br/></html>")
    out.append(p.tags)
    return out


def test_converted_standard_library_modules_compute_the_same():
    expected = _workload()
    saved = []
    try:
        for mod in MODULES:
            saved += _convert_module(mod)
        assert len(saved) > 300
        actual = _workload()
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)
    assert actual == expected


def test_private_names_are_mangled_in_converted_methods():
    class Secret:
        def __init__(self):
            self.__hidden = 3

        def __helper(self, x):
            return x * self.__hidden

        def reveal(self, x):
            if x > 0:
                return self.__helper(x)
            return self.__hidden

    s = Secret()
    assert ag.to_graph(s.reveal)(2) == 6 and ag.to_graph(s.reveal)(-1) == 3
    assert "self._Secret__helper" in ag.to_code(Secret.reveal)
