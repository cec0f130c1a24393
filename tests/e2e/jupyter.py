"""A real JupyterLab server for the notebook widget's tests, kept off the network; and the README's screenshot.

    python -m tests.e2e.jupyter [--out docs]

writes ``notebook-widget.png``: the widget in JupyterLab after a few answers, its learning curve drawn.

The server runs in a temporary folder with its own configuration, data, runtime and settings folders (nothing of
the user's Jupyter set-up is read or written), a random token, on 127.0.0.1. Everything that would reach the
network is off: the news feed, the update check, the PyPI extension manager; a proxy on a closed local port catches
any request that slips through (it fails at once and shows in the log, which the tests read).
"""

import argparse
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from tests.e2e.helpers import CHROMIUM, CHROMIUM_ARGS, REPO

DEAD_PROXY = "http://127.0.0.1:9"  # the discard port: nothing listens, so a request through it fails at once
# JupyterLab's own switches for what it fetches, and the front end's settings for news and update notices
CONFIG = {"LabApp": {"news_url": None, "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
                     "extension_manager": "readonly"},
          # allow_root: CI runs as root; the server is on loopback with a token, in a throw-away folder
          "ServerApp": {"open_browser": False, "ip": "127.0.0.1", "allow_remote_access": False, "allow_root": True,
                        "terminals_enabled": False}}
SETTINGS = {"@jupyterlab/apputils-extension/notification.jupyterlab-settings":
            {"fetchNews": "false", "checkForUpdates": False}}
# a log line that says something tried the network (the dead proxy refused it, or a name did not resolve)
NETWORK_TRIED = re.compile(r"127\.0\.0\.1:9\b|Name or service not known|Temporary failure in name resolution|"
                           r"getaddrinfo|ProxyError|Failed to (?:fetch|connect)", re.I)


def notebook(cells):
    """A notebook (nbformat 4) of the code ``cells`` for the venv's Python kernel."""
    return {"nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "cells": [{"cell_type": "code", "id": f"cell-{k}", "metadata": {}, "execution_count": None, "outputs": [],
                       "source": source} for k, source in enumerate(cells)]}


class JupyterLab:
    """``jupyter lab`` in a subprocess serving ``root``; ``url(name)`` opens a notebook there with the token."""

    def __init__(self, root):
        self.root = Path(root)
        home = Path(tempfile.mkdtemp(prefix="lab-"))
        for name in ("config", "data", "runtime", "ipython", "settings", "workspaces"):
            (home / name).mkdir()
        (home / "config" / "jupyter_server_config.json").write_text(json.dumps(CONFIG))
        for name, values in SETTINGS.items():
            (home / "settings" / name).parent.mkdir(parents=True, exist_ok=True)
            (home / "settings" / name).write_text(json.dumps(values))
        with socket.socket() as sock:  # a free port (the server binds it a moment later)
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.token = secrets.token_hex(24)
        env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", "JUPYTER_CONFIG_DIR": str(home / "config"),
               "JUPYTER_DATA_DIR": str(home / "data"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
               "IPYTHONDIR": str(home / "ipython"), "JUPYTER_PLATFORM_DIRS": "1",
               "HTTP_PROXY": DEAD_PROXY, "HTTPS_PROXY": DEAD_PROXY, "http_proxy": DEAD_PROXY,
               "https_proxy": DEAD_PROXY, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
        self.log_path = home / "server.log"
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", f"--port={self.port}", "--port-retries=0",
             f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root}",
             f"--LabApp.user_settings_dir={home / 'settings'}", f"--LabApp.workspaces_dir={home / 'workspaces'}"],
            cwd=self.root, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        self.origin = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("jupyter lab stopped:\n" + self.log())
            try:
                if httpx.get(f"{self.origin}/api/status", params={"token": self.token}, timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("jupyter lab did not answer in 60 s:\n" + self.log())

    def url(self, name):
        return f"{self.origin}/lab/tree/{name}?token={self.token}"

    def log(self):
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self):
        """Stop the server as Ctrl+C does (its kernels with it)."""
        if self.process.poll() is None:
            self.process.send_signal(2)  # SIGINT twice: JupyterLab asks to confirm the first
            time.sleep(0.3)
            self.process.send_signal(2)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        self._log.close()


def open_notebook(page, lab, name):
    """Open notebook ``name`` and run its one cell by keyboard (Shift+Enter); wait until the widget shows a question."""
    page.goto(lab.url(name))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.get_by_text(re.compile(r"\(ipykernel\) \| Idle")).wait_for(timeout=60_000)  # the status bar: kernel ready
    page.locator(".jp-Cell .jp-InputArea-editor").first.click()
    page.keyboard.press("Shift+Enter")
    page.wait_for_selector(".linkwise-widget[data-position]", timeout=90_000)


def _screenshot(out):
    from playwright.sync_api import sync_playwright

    import linkwise as lw

    X, y = lw.datasets.load("iris")
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        root = Path(folder)
        cells = ["import linkwise as lw\nX, y = lw.datasets.load('iris')\n"
                 "session = lw.session.open_session('iris.db', X, lw.COBRAS(random_state=0))\nsession.widget(y=y)"]
        (root / "clusters.ipynb").write_text(json.dumps(notebook(cells)))
        lab = JupyterLab(root)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1060})
            open_notebook(page, lab, "clusters.ipynb")
            for k in range(12):
                i, j = (int(t) for t in page.locator(".linkwise-widget .pair .item-id").all_text_contents())
                page.click(".linkwise-widget button." + ("same" if y[i] == y[j] else "different"))
                page.wait_for_selector(f".linkwise-widget[data-answered='{k + 1}']")
            page.mouse.move(0, 0)
            page.click("li[data-id='filebrowser']")  # the file browser folded away: the notebook's full width
            page.locator(".jp-Cell").first.scroll_into_view_if_needed()
            page.screenshot(path=str(Path(out) / "notebook-widget.png"))
        finally:
            browser.close()
            lab.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="docs")
    _screenshot(parser.parse_args().out)
