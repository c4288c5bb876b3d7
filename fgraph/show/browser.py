"""Headless Chromium, to check a report page as a browser shows it: its DOM
after loading, the messages it logged to the console, and screenshots.
Used by the tests and ``python -m fgraph.show.demo``; never needed to make
a report."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from ..errors import FgraphError

_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) program on PATH, or None."""
    for name in _NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(args: list, timeout: float) -> subprocess.CompletedProcess:
    exe = find_chromium()
    if exe is None:
        raise FgraphError("no Chromium found on PATH: apt-get install chromium (Debian) or install Google Chrome")
    # a profile of its own: runs side by side (pytest -n) must not share one, and none is left behind
    with tempfile.TemporaryDirectory(prefix="fgraph-chromium-") as profile:
        cmd = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--hide-scrollbars",
               f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args]
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise FgraphError(f"Chromium did not finish within {timeout} s: {' '.join(cmd)}") from None


def load(path: str, timeout: float = 90) -> tuple[str, list[str]]:
    """(the DOM after loading ``path``, the console messages it logged)."""
    url = "file://" + os.path.abspath(path)
    got = _run(["--dump-dom", url], timeout)
    console = [line for line in got.stderr.splitlines() if ":CONSOLE" in line]
    if got.returncode != 0 or "<html" not in got.stdout:
        raise FgraphError(f"Chromium could not load {url} (exit {got.returncode}): {got.stderr[-2000:]}")
    return got.stdout, console


def screenshot(path: str, png: str, width: int = 1280, height: int = 3000, timeout: float = 90) -> str:
    """A PNG of the page at ``path``, ``width`` x ``height`` pixels; returns ``png``."""
    png = os.path.abspath(png)
    got = _run([f"--window-size={width},{height}", f"--screenshot={png}", "file://" + os.path.abspath(path)],
               timeout)
    if got.returncode != 0 or not os.path.exists(png):
        raise FgraphError(f"Chromium took no screenshot of {path} (exit {got.returncode}): {got.stderr[-2000:]}")
    return png
