"""The bot's HTTP endpoint, as Slack uses it: signatures, the URL check, health,
acks before the work, non-ASCII bodies."""

from __future__ import annotations

import json
import time

from slack_harness import SIGNING_SECRET, http_get

ERROR = "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been freed"


def mention(text: str, *, ts: str = "1700000100.000100", channel: str = "C0GENERAL", **extra) -> dict:
    return {"type": "app_mention", "user": "U0ASKER", "channel": channel, "ts": ts, "text": f"<@UBOT01> {text}",
            "event_ts": ts, **extra}


def test_bad_signature_and_stale_timestamp_get_401_and_nothing_is_posted(bot, fake_slack):
    body = json.dumps({"type": "event_callback", "event_id": "Ev1", "team_id": "T0001",
                       "event": mention(ERROR)}).encode()
    assert bot.sender.raw(body, "application/json", secret="not-the-secret").status == 401
    stale = int(time.time()) - 10 * 60  # Slack's rule: reject requests older than five minutes
    assert bot.sender.raw(body, "application/json", timestamp=stale).status == 401
    # Signed, but the body was changed after signing.
    from slack_harness import http_post, sign
    headers = {"Content-Type": "application/json", **sign(body, SIGNING_SECRET)}
    assert http_post(bot.sender.events_url, body.replace(b"Ev1", b"Ev2"), headers).status == 401
    # No signature at all.
    assert http_post(bot.sender.events_url, body, {"Content-Type": "application/json"}).status == 401
    bot.ctx.work_pool.wait_idle(30)
    assert [r.method for r in fake_slack.requests if r.method != "auth.test"] == []


def test_url_verification_challenge(bot):
    body = json.dumps({"token": "legacy", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
                       "type": "url_verification"}).encode()
    reply = bot.sender.raw(body, "application/json")
    assert reply.status == 200
    assert "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" in reply.body.decode()


def test_health_endpoint(bot):
    reply = http_get(bot.url + "/health")
    assert reply.status == 200
    assert reply.json()["ok"] is True and reply.json()["store"] == "ok"
    assert http_get(bot.url + "/nothing-here").status == 404


def test_the_ack_does_not_wait_for_the_answer(bot, fake_slack):
    """Slack's postMessage is held: the event is still acknowledged, and the answer
    goes out once Slack lets it through."""
    release = fake_slack.hold("chat.postMessage")
    reply = bot.sender.event(mention(ERROR))
    assert reply.status == 200
    assert fake_slack.bodies("chat.postMessage") == []  # the answer had not been posted when we were acked
    release.set()
    fake_slack.wait_for(lambda: fake_slack.bodies("chat.postMessage"), what="the answer")


def test_korean_and_chinese_mentions_are_answered_in_their_language(bot, fake_slack):
    fake_slack.add_message("C0GENERAL", {"ts": "1700000200.000100", "user": "U0ASKER", "text": "..."})
    bot.sender.event(mention(f"역전파를 두 번 하니까 이런 오류가 나요 ```{ERROR}```", ts="1700000200.000100"))
    bot.sender.event(mention(f"第二次反向传播时报错了，怎么办？```{ERROR}```", ts="1700000201.000100"))
    fake_slack.wait_for(lambda: len(fake_slack.bodies("chat.postMessage")) == 2, what="two answers")
    by_thread = {b["thread_ts"]: b for b in fake_slack.bodies("chat.postMessage")}
    ko = json.dumps(by_thread["1700000200.000100"]["blocks"], ensure_ascii=False)
    zh = json.dumps(by_thread["1700000201.000100"]["blocks"], ensure_ascii=False)
    assert "가장 좋은 해결책" in ko and "pytorch/backward-twice" in ko
    assert "最佳修复" in zh and "pytorch/backward-twice" in zh
    assert fake_slack.violations == []


def test_what_reaches_retrieval_decodes_to_exactly_what_the_user_typed(bot_factory, fake_slack):
    """Slack escapes & < > once; the bot and retrieval's cleaning must undo that once, not
    twice: a user who typed `&lt;` literally keeps those four characters."""
    from bot.answer import answer
    from bot.retrieval.clean import clean

    received = []

    def recording_answer(text, lang=None, top=3):
        received.append(text)
        return answer(text, lang=lang, top=top)

    bot = bot_factory(answer_fn=recording_answer)
    typed = 'if a < b && c > d: print("&lt;")\n' + ERROR
    sent = typed.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")  # as Slack sends it
    bot.sender.event(mention(sent, ts="1700000300.000100"))
    assert bot.ctx.work_pool.wait_idle(60)
    [text] = received
    assert clean(text).text == typed
    assert "pytorch/backward-twice" in json.dumps(fake_slack.bodies("chat.postMessage")[0]["blocks"])


def test_ready_says_503_before_the_index_and_while_stopping_health_stays_200(bot):
    assert http_get(bot.url + "/ready").status == 200
    bot.ctx.ready = False                                     # the index is still loading
    reply = http_get(bot.url + "/ready")
    assert reply.status == 503 and reply.json()["ready"] is False
    assert http_get(bot.url + "/health").status == 200        # alive all the same
    bot.ctx.ready = True
    bot.ctx.work_queue.stop(1)                                # SIGTERM: draining
    reply = http_get(bot.url + "/ready")
    assert reply.status == 503 and reply.json()["stopping"] is True
    assert http_get(bot.url + "/health").status == 200


def test_a_body_over_the_limit_is_refused_and_keep_alive_serves_several_requests(bot_factory, monkeypatch):
    import http.client

    monkeypatch.setenv("TROUBLESHOOT_HTTP_MAX_BODY_BYTES", "4096")
    bot = bot_factory()
    host, port = bot.url.rsplit("/", 1)[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        for _ in range(3):                                    # one connection, kept alive
            conn.request("GET", "/health")
            reply = conn.getresponse()
            reply.read()
            assert reply.status == 200 and reply.getheader("Connection", "").lower() != "close"
        body = json.dumps({"type": "event_callback", "event": mention("x" * 8000)}).encode()
        conn.request("POST", "/slack/events", body=body, headers={"Content-Type": "application/json"})
        reply = conn.getresponse()
        assert reply.status == 413                            # the server's limit, before any parsing
    finally:
        conn.close()
