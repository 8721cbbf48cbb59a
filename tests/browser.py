"""Headless Chromium for the page tests: one launch, driven over the DevTools protocol on a pipe (a unique module name:
tests/ are not packages; no package beyond the standard library, no network port)."""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

SKIP_REASON = "no Chromium on PATH (.ci/run installs it: apt-get install -y chromium)"


def chromium() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


needs_chromium = pytest.mark.skipif(chromium() is None, reason=SKIP_REASON)


class Browser:
    """`with Browser(tmp_path) as b: b.open(url, width=1280); b.evaluate(js); b.screenshot(path)`."""

    def __init__(self, home: Path, timeout: float = 60):
        self.home, self.timeout = Path(home), timeout
        self._id, self._buf, self._session = 0, b"", None

    def __enter__(self) -> Browser:
        to_chrome, self._out = os.pipe()  # Chromium reads commands on fd 3 and writes replies on fd 4
        self._in, from_chrome = os.pipe()

        def fds():
            os.dup2(to_chrome, 3)
            os.dup2(from_chrome, 4)

        self.proc = subprocess.Popen(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--hide-scrollbars", "--remote-debugging-pipe", f"--user-data-dir={self.home / 'chromium-profile'}",
             "about:blank"],
            pass_fds=(3, 4), preexec_fn=fds, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={**os.environ, "HOME": str(self.home)})
        os.close(to_chrome)
        os.close(from_chrome)
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.send("Browser.close", session=False)
        except Exception:  # noqa: BLE001 - it is going away either way
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._out)
        os.close(self._in)

    def send(self, method: str, params: dict | None = None, session: bool = True) -> dict:
        """One DevTools command and its result (events in between are dropped)."""
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session and self._session:
            msg["sessionId"] = self._session
        os.write(self._out, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\0" not in self._buf:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"Chromium did not answer {method} in {self.timeout} s")
                chunk = os.read(self._in, 1 << 16)
                if not chunk:
                    raise RuntimeError(f"Chromium exited: {self.proc.stderr.read().decode(errors='replace')[-2000:]}")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def open(self, url: str, width: int = 1280, height: int = 900) -> None:
        """A fresh tab at `width` x `height` CSS pixels, loaded."""
        if self._session is None:
            target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
            self._session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                      session=False)["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        nav = self.send("Page.navigate", {"url": url})
        if nav.get("errorText"):
            raise RuntimeError(f"{url}: {nav['errorText']}")
        deadline = time.monotonic() + self.timeout
        while self.evaluate("document.readyState") != "complete" or self.evaluate("location.href") != url:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not load in {self.timeout} s")
            time.sleep(0.05)

    def evaluate(self, expression: str):
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in reply:
            raise RuntimeError(f"{expression[:80]}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = True) -> Path:
        """A PNG of the page (all of it, or the viewport)."""
        params: dict = {"format": "png"}
        if full_page:
            w, h = self.evaluate("[document.documentElement.clientWidth, document.documentElement.scrollHeight]")
            params |= {"captureBeyondViewport": True, "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}}
        Path(path).write_bytes(base64.b64decode(self.send("Page.captureScreenshot", params)["data"]))
        return Path(path)


# Layout facts a page test asserts: the body's overflow and each chart's box (run in the page).
LAYOUT = """(() => {
  const de = document.documentElement;
  return {
    viewport: de.clientWidth, scroll_width: de.scrollWidth, body_width: document.body.scrollWidth,
    svgs: [...document.querySelectorAll('svg')].map(s => {
      const r = s.getBoundingClientRect();
      return {label: s.getAttribute('aria-label'), width: r.width, height: r.height, right: r.right,
              children: s.childElementCount};
    }),
    boxes: [...document.querySelectorAll('table')].map(t => {
      const box = t.parentElement.getBoundingClientRect();
      return {right: box.right, scrolls: getComputedStyle(t.parentElement).overflowX};
    }),
  };
})()"""
