"""The entry page and the dashboard in headless Chromium (Debian's `chromium`), at a
phone's width (375 px): no console errors (a CSP violation or a failed load is one),
nothing wider than the screen, and a screenshot of each kept as a test artefact
(var/test-artifacts/pages/, or TROUBLESHOOT_TEST_ARTIFACTS). The browser is driven over
the DevTools protocol with aiohttp's WebSocket client (a project dependency)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from .conftest import REPO

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WIDTH = 375
ARTIFACTS = Path(os.environ.get("TROUBLESHOOT_TEST_ARTIFACTS") or REPO / "var" / "test-artifacts") / "pages"
# Wider than the screen is a fault unless it scrolls inside its own box (code, tables).
OVERFLOW_JS = """JSON.stringify({
  scrollWidth: document.documentElement.scrollWidth,
  innerWidth: window.innerWidth,
  wide: [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('pre, .table'))
    .map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '')).slice(0, 10),
  scrollers: [...document.querySelectorAll('pre, .table')].filter(e => e.scrollWidth > e.clientWidth).length
})"""


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no headless Chromium here (install Debian's `chromium`: apt-get install chromium)")


class Chromium:
    def __init__(self, tmp: Path):
        args = [_browser(), "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--remote-debugging-port=0", f"--user-data-dir={tmp}", "--disable-extensions",
                "--disable-dev-shm-usage", "about:blank"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.port = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line and self.proc.poll() is not None:
                break
            match = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if match:
                self.port = int(match.group(1))
                break
        if self.port is None:
            self.close()
            pytest.skip("Chromium did not start (no DevTools endpoint within 60 s)")

    def page_ws(self) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list", timeout=10) as resp:
            targets = json.load(resp)
        return next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


async def _visit(ws_url: str, url: str) -> dict:
    import aiohttp

    problems: list[str] = []
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(ws_url, max_msg_size=0) as ws:
            counter = 0
            pending: dict[int, asyncio.Future] = {}
            loaded = asyncio.get_running_loop().create_future()

            async def reader():
                async for msg in ws:
                    data = json.loads(msg.data)
                    if "id" in data and data["id"] in pending:
                        pending.pop(data["id"]).set_result(data)
                        continue
                    method, params = data.get("method"), data.get("params", {})
                    if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                        problems.append("console: " + " ".join(str(a.get("value", a.get("description")))
                                                               for a in params.get("args", [])))
                    elif method == "Runtime.exceptionThrown":
                        problems.append("exception: " + json.dumps(params.get("exceptionDetails", {}))[:300])
                    elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                        problems.append("log: " + params["entry"].get("text", ""))
                    elif method == "Page.loadEventFired" and not loaded.done():
                        loaded.set_result(True)

            async def call(method: str, **params):
                nonlocal counter
                counter += 1
                future = asyncio.get_running_loop().create_future()
                pending[counter] = future
                await ws.send_str(json.dumps({"id": counter, "method": method, "params": params}))
                reply = await asyncio.wait_for(future, 60)
                if "error" in reply:
                    raise AssertionError(f"{method}: {reply['error']}")
                return reply.get("result", {})

            task = asyncio.create_task(reader())
            try:
                for domain in ("Runtime", "Log", "Page"):
                    await call(f"{domain}.enable")
                await call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=800, deviceScaleFactor=1,
                           mobile=True)
                await call("Page.navigate", url=url)
                await asyncio.wait_for(loaded, 60)
                await asyncio.sleep(0.3)  # late console messages
                layout = json.loads((await call("Runtime.evaluate", expression=OVERFLOW_JS,
                                                returnByValue=True))["result"]["value"])
                shot = await call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
            finally:
                task.cancel()
    return {"problems": problems, "layout": layout, "png": base64.b64decode(shot["data"])}


@pytest.mark.slow
@pytest.mark.parametrize("path, name", [("/kb/pytorch/backward-twice", "entry"),
                                        ("/kb/pytorch/backward-twice?lang=zh", "entry-zh"),
                                        ("/kb/stats", "dashboard")])
def test_page_in_headless_chromium_at_phone_width(served, tmp_path, path, name):
    browser = Chromium(tmp_path / "profile")
    try:
        seen = asyncio.run(_visit(browser.page_ws(), served.url + path))
    finally:
        browser.close()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"{name}-{WIDTH}px.png"
    shot.write_bytes(seen["png"])
    assert seen["png"][:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    assert seen["problems"] == [], f"console errors on {path}: {seen['problems']}"
    layout = seen["layout"]
    assert layout["innerWidth"] == WIDTH
    assert layout["scrollWidth"] <= WIDTH and layout["wide"] == [], f"wider than {WIDTH}px on {path}: {layout}"
