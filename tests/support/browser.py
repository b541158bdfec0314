"""A headless chromium spoken to over the DevTools protocol, for the browser tests of the site and
of `atif view`."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import threading
import urllib.request
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
    "--remote-allow-origins=*",
]


class Browser:
    """A headless chromium and one page, spoken to over the DevTools protocol."""

    def __init__(self, profile: Path) -> None:
        assert CHROMIUM is not None
        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = profile / "DevToolsActivePort"
        for _ in range(600):  # chromium writes the port once it listens (bounded wait)
            if port_file.is_file() and port_file.read_text().strip():
                break
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.proc.returncode}")
            threading.Event().wait(0.1)
        else:
            raise RuntimeError("chromium did not open its DevTools port")
        port = port_file.read_text().split()[0]
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
        with direct.open(f"http://127.0.0.1:{port}/json/list", timeout=10) as resp:
            pages = [t for t in json.load(resp) if t["type"] == "page"]
        from websockets.sync.client import connect

        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(
            connect(pages[0]["webSocketDebuggerUrl"], max_size=None, open_timeout=30)
        )
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        for method in ("Runtime.enable", "Log.enable", "Page.enable", "Network.enable"):
            self.call(method)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send a command; collect events until its reply arrives."""
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = self.receive(timeout=60)
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return dict(msg.get("result", {}))

    def receive(self, timeout: float) -> dict[str, Any]:
        msg = json.loads(self.ws.recv(timeout=timeout))
        if "method" in msg:
            self.events.append(msg)
        return dict(msg)

    def load(self, url: str) -> list[str]:
        """Navigate, wait for the load event and for the network to go idle; return the errors
        seen on the way (console errors, exceptions, failed loads, HTTP errors)."""
        self.events = []
        self.call("Page.navigate", url=url)
        loaded = False
        while not loaded:
            loaded = self.receive(timeout=60).get("method") == "Page.loadEventFired"
        # Events already emitted arrive before the reply to this round trip.
        self.call("Runtime.evaluate", expression="document.readyState")
        return errors(self.events)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def close(self) -> None:
        self.stack.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def errors(events: list[dict[str, Any]]) -> list[str]:
    """The problems a page reported, as text."""
    out = []
    for e in events:
        method, params = e["method"], e.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            out.append("console: " + " ".join(str(a.get("value")) for a in params["args"]))
        elif method == "Runtime.exceptionThrown":
            out.append("exception: " + str(params["exceptionDetails"].get("text")))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            out.append("log: " + str(params["entry"].get("text")))
        elif method == "Network.loadingFailed":
            out.append("network: " + str(params.get("errorText")))
        elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
            out.append(f"http {params['response']['status']}: {params['response']['url']}")
    return out
