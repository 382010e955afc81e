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


# Is the heading's CJK text drawn with real glyphs? Each distinct Hangul or Han character of
# the <h1> is drawn alone on a canvas in the heading's own font, and compared with what a
# missing glyph looks like (U+0378 is unassigned: every font draws it as its "tofu" box).
# Without a CJK font all characters come out as that same box: tofu > 0, distinct == 1.
GLYPHS_JS = r"""(() => {
  const h1 = document.querySelector('h1'), style = getComputedStyle(h1);
  const canvas = document.createElement('canvas'); canvas.width = canvas.height = 48;
  const g = canvas.getContext('2d', {willReadFrequently: true});
  const draw = ch => {
    g.clearRect(0, 0, 48, 48); g.font = `${style.fontWeight} 32px ${style.fontFamily}`;
    g.textBaseline = 'top'; g.fillStyle = '#000'; g.fillText(ch, 4, 4);
    const alpha = g.getImageData(0, 0, 48, 48).data.filter((_, i) => i % 4 === 3);
    return {shape: alpha.join(','), inked: alpha.filter(a => a > 127).length};
  };
  const tofu = draw('\u0378');
  const chars = [...new Set([...h1.textContent].filter(ch => /[\uac00-\ud7a3\u4e00-\u9fff]/.test(ch)))];
  const drawn = chars.map(draw);
  return JSON.stringify({heading: h1.textContent, family: style.fontFamily, chars: chars.length,
    tofu: drawn.filter(d => d.shape === tofu.shape).length, blank: drawn.filter(d => d.inked === 0).length,
    distinct: new Set(drawn.map(d => d.shape)).size});
})()"""


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


async def _visit(ws_url: str, url: str, checks: dict[str, str] | None = None) -> dict:
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
                checked = {name: json.loads((await call("Runtime.evaluate", expression=js,
                                                        returnByValue=True))["result"]["value"])
                           for name, js in (checks or {}).items()}
                shot = await call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
            finally:
                task.cancel()
    return {"problems": problems, "layout": layout, "png": base64.b64decode(shot["data"]), **checked}


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


@pytest.mark.slow
@pytest.mark.parametrize("lang, heading", [("ko", "같은 계산 그래프로 역전파를 두 번 수행함"),
                                           ("zh", "对同一个计算图第二次执行反向传播")])
def test_korean_and_chinese_entry_pages_render_their_text_at_phone_width(served, tmp_path, lang, heading):
    """A Korean and a Chinese entry page at 375 px: the heading's characters are drawn with
    real glyphs (not tofu boxes; .ci/services.sh installs fonts-noto-cjk), and nothing
    scrolls sideways. The screenshots are kept for a person to look at."""
    browser = Chromium(tmp_path / "profile")
    try:
        seen = asyncio.run(_visit(browser.page_ws(), f"{served.url}/kb/pytorch/backward-twice?lang={lang}",
                                  {"glyphs": GLYPHS_JS}))
    finally:
        browser.close()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"entry-{lang}-cjk-{WIDTH}px.png").write_bytes(seen["png"])
    glyphs = seen["glyphs"]
    assert glyphs["heading"].startswith(heading)
    assert glyphs["chars"] >= 10, glyphs
    assert glyphs["tofu"] == 0 and glyphs["blank"] == 0, f"CJK text drawn as tofu (no CJK font?): {glyphs}"
    assert glyphs["distinct"] == glyphs["chars"], f"different characters drawn alike (tofu): {glyphs}"
    assert seen["problems"] == []
    layout = seen["layout"]
    assert layout["innerWidth"] == WIDTH
    assert layout["scrollWidth"] <= WIDTH and layout["wide"] == [], f"scrolls sideways at {WIDTH}px: {layout}"
