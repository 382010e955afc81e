"""Read the text of files users attach (snippets, .py, .txt, .log) with the bot token.

Slack serves `url_private` only with `Authorization: Bearer <bot token>`; without
it (or without the files:read scope) it answers 200 with its HTML sign-in page, so
the body is checked, not just the status. The token is sent to Slack's own host
only: a redirect elsewhere is followed without it.
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from bot.text import InputError
from bot.text.inputs import decode_bytes

MAX_FILE_BYTES = 512 * 1024
TEXT_SUFFIXES = (".py", ".txt", ".log", ".out", ".err", ".ipynb.txt")
TEXT_FILETYPES = {"python", "text", "log", "txt", "plain", "shell", "markdown", "json", "yaml"}


class FileRejected(Exception):
    """A file we will not read; the message says which file and why, for the user."""


@dataclass
class FetchedFile:
    name: str
    text: str


def _is_text_file(info: dict) -> bool:
    name = (info.get("name") or info.get("title") or "").lower()
    return (info.get("mode") == "snippet" or (info.get("filetype") or "").lower() in TEXT_FILETYPES
            or name.endswith(TEXT_SUFFIXES) or (info.get("mimetype") or "").startswith("text/plain"))


def looks_like_html_page(body: bytes, content_type: str) -> bool:
    head = body[:512].lstrip().lower()
    return "text/html" in content_type.lower() or head.startswith((b"<!doctype html", b"<html"))


class _SameHostAuthRedirect(urllib.request.HTTPRedirectHandler):
    """Follow redirects, dropping the Authorization header when the host changes."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and urllib.parse.urlsplit(newurl).netloc != urllib.parse.urlsplit(req.full_url).netloc:
            new.remove_header("Authorization")
        return new


def download(url: str, token: str, *, limit: int = MAX_FILE_BYTES, timeout: float = 15.0) -> tuple[bytes, str]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    opener = urllib.request.build_opener(_SameHostAuthRedirect)
    with opener.open(request, timeout=timeout) as response:
        body = response.read(limit + 1)
        return body, response.headers.get("Content-Type", "")


def fetch_file_text(client, info: dict, token: str, *, limit: int = MAX_FILE_BYTES) -> FetchedFile:
    """The text of one attached file, or FileRejected saying what is wrong with it."""
    if not info.get("url_private_download") and not info.get("url_private") and info.get("id"):
        # file_share events may carry only the id ("file_access": "check_file_info").
        info = client.files_info(file=info["id"])["file"]
    name = info.get("name") or info.get("title") or info.get("id") or "file"
    if not _is_text_file(info):
        raise FileRejected(f"{name}: only text and code files (.py, .txt, .log, snippets) are read, "
                           f"not {info.get('filetype') or info.get('mimetype') or 'this type'}")
    size = info.get("size")
    if isinstance(size, int) and size > limit:
        raise FileRejected(f"{name}: {size} bytes is over the {limit}-byte limit; attach the traceback "
                           "and a minimal snippet instead")
    url = info.get("url_private_download") or info.get("url_private")
    if not url:
        raise FileRejected(f"{name}: Slack gave no download address for it")
    try:
        body, content_type = download(url, token, limit=limit)
    except urllib.error.HTTPError as exc:
        raise FileRejected(f"{name}: Slack refused the download (HTTP {exc.code})") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise FileRejected(f"{name}: the download failed ({type(exc).__name__})") from None
    if looks_like_html_page(body, content_type):
        raise FileRejected(f"{name}: Slack sent a sign-in page instead of the file; the app needs the "
                           "files:read scope and must be in this channel")
    if len(body) > limit:
        raise FileRejected(f"{name}: over the {limit}-byte limit")
    try:
        return FetchedFile(name=name, text=decode_bytes(body))
    except InputError as exc:  # binary data
        raise FileRejected(f"{name}: {exc}") from None
