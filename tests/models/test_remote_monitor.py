"""keras.callbacks.RemoteMonitor: each epoch's logs posted to a server as Keras posts them
(a form field of JSON, or a JSON body), and a warning when the server cannot be reached."""

import http.server
import json
import threading
import urllib.parse

import numpy as np
import pytest

import runtime as rt

keras = rt.keras


@pytest.fixture
def server():
    received = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            length = int(self.headers["Content-Length"])
            received.append((self.path, self.headers["Content-Type"],
                             self.rfile.read(length).decode()))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", received
    httpd.shutdown()


def _fit(callback, epochs=2):
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 1), "float32"), np.ones((4, 1), "float32"), epochs=epochs, verbose=0,
              callbacks=[callback])


def test_posts_each_epoch_as_a_form_field(server):
    root, received = server
    _fit(keras.callbacks.RemoteMonitor(root=root))
    assert [path for path, _, _ in received] == ["/publish/epoch/end/"] * 2
    form = urllib.parse.parse_qs(received[1][2])
    sent = json.loads(form["data"][0])
    assert sent["epoch"] == 1 and isinstance(sent["loss"], float)


def test_posts_json_bodies(server):
    root, received = server
    _fit(keras.callbacks.RemoteMonitor(root=root, path="/logs", send_as_json=True), epochs=1)
    path, kind, body = received[0]
    assert path == "/logs" and kind == "application/json"
    assert set(json.loads(body)) == {"epoch", "loss"}


def test_an_unreachable_server_is_warned_about():
    with pytest.warns(UserWarning, match="Could not reach RemoteMonitor root server"):
        _fit(keras.callbacks.RemoteMonitor(root="http://127.0.0.1:9"), epochs=1)
