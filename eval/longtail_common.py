"""Shared pieces of the long-tail evaluation set (the 65 classes after the first 25).

The messages that torch 2.13 can raise on this CPU machine come from
eval/messages_longtail_torch213.json (written by eval/capture_longtail.py); the layouts
(traceback, chained, Colab, rich box, Slack escaping) come from eval/render.py.

Every line's `note` starts with one of three sources, which eval/README.md counts:
- "error text from a public thread <url>": the message (and, where it says so, the
  frames) as a person pasted it in that public issue or forum thread; the prose around
  it is written by hand, and any changed names or paths are named in the note;
- "message ran on torch 2.13 CPU" / "output ran on torch 2.13 CPU": what torch 2.13
  printed here (eval/capture_longtail.py);
- "written from the known PyTorch <version> message": typed from the wording of that
  release where neither a thread nor a run gave the text.
"""

from __future__ import annotations

import json
from pathlib import Path

from .render import SITES

HERE = Path(__file__).resolve().parent
CAPTURED = json.loads((HERE / "messages_longtail_torch213.json").read_text(encoding="utf-8"))

RAN = "message ran on torch 2.13 CPU (eval/capture_longtail.py); frames and prose written by hand"
RAN_FRAMES = "message and PyTorch frames ran on torch 2.13 CPU (eval/capture_longtail.py); user frames and prose written by hand"
RAN_LOG = "output ran on torch 2.13 CPU (eval/capture_longtail.py) with paths and script names changed"
QUESTION = "question written by hand; contains no English error text"


def thread(url: str, extra: str = "") -> str:
    """Note of a line whose error message was pasted in a public thread."""
    note = f"error text from a public thread {url}; frames and prose written by hand"
    return note + ("; " + extra if extra else "")


def thread_tb(url: str, extra: str = "") -> str:
    """Note of a line whose message and traceback frames come from a public thread."""
    note = f"error text from a public thread {url} (message and frames as pasted, trimmed); prose written by hand"
    return note + ("; " + extra if extra else "")


def known(version: str, extra: str = "") -> str:
    note = f"written from the known PyTorch {version} message"
    return note + ("; " + extra if extra else "")


def known_gpu(version: str, extra: str = "") -> str:
    note = f"written from the known PyTorch {version} message (needs a GPU, cannot be raised on this CPU machine)"
    return note + ("; " + extra if extra else "")


def ran(extra: str) -> str:
    return RAN + "; " + extra


def err(key: str) -> dict:
    return CAPTURED["errors"][key]


def msg(key: str) -> str:
    """The message torch 2.13 raised (source paths of the capture script named {SCRIPT})."""
    return err(key)["message"]


def line(key: str) -> str:
    """'Type: message' as the captured error printed it."""
    e = err(key)
    return f"{e['type']}: {e['message']}"


def rows(key: str) -> list[tuple]:
    """The PyTorch frames that torch 2.13 really printed for one captured error."""
    return [(f["file"], f["line"], f["func"], f["code"]) for f in err(key)["frames"]]


def warning(key: str) -> dict:
    return CAPTURED["warnings"][key]


def log(key: str, site: str, script: str, python: str = "/opt/conda", directory: str = "/workspace") -> str:
    """A captured multi-process log placed in another install."""
    text = CAPTURED["logs"][key]
    base = SITES.get(site, site)
    return (text.replace("{SITE}", base).replace("{SCRIPT}", script).replace("{PYTHON}", python)
            .replace("{BINARY}", python + "/bin/python").replace("{DIR}", directory)).strip("\n")
