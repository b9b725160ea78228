"""Slack: a short message through an incoming webhook (summary, key PRs, link)."""

from __future__ import annotations

import httpx

from orchestration.delivery.edition import Edition
from orchestration.delivery.limits import SLACK_TEXT_CHARS
from orchestration.delivery.transport import DeliveryError, http
from orchestration.escaping.slack import slack_link, slack_text
from orchestration.repositories.targets import SlackTarget, expand

TITLE_CHARS = 300  # GitHub allows 256; a file source anything: a message stays short

_WORDS = {
    "en": {"prs": "merged PRs", "theme": "Theme", "key": "Key PRs", "read": "Read the report",
           "corrected": "Corrected edition"},
    "zh": {"prs": "个已合并 PR", "theme": "主题", "key": "重点 PR", "read": "阅读周报",
           "corrected": "更正版"},
}  # fmt: skip


def message(edition: Edition, correction: bool) -> dict:
    """The webhook's JSON body: mrkdwn text, with links that do not unfurl, within
    SLACK_TEXT_CHARS (key PRs are left out from the last while it is longer)."""
    words = _WORDS[edition.language]
    head = [f"*{slack_text(edition.title)}*"]
    if correction:
        head[0] = f"*{words['corrected']}:* " + head[0]
    if edition.merged_prs is not None:
        figures = f"{edition.merged_prs} {words['prs']}"
        if edition.theme:
            figures += f" · {words['theme']}: {slack_text(edition.theme, TITLE_CHARS)}"
        head.append(figures)
    prs = [
        f"• {slack_link(pr['url'], '#' + str(int(pr['number'])))} "
        f"{slack_text(pr['title'], TITLE_CHARS)} ({pr['importance']:.1f})"
        for pr in edition.key_prs
    ]
    read = slack_link(edition.link, words["read"])
    if read == words["read"]:
        read = f"{words['read']}: {slack_text(edition.link)}"
    while True:
        lines = [*head, *([f"{words['key']}:", *prs] if prs else []), read]
        text = "\n".join(lines)
        if len(text) <= SLACK_TEXT_CHARS or not prs:
            break
        prs = prs[:-1]
    return {"text": text[:SLACK_TEXT_CHARS], "unfurl_links": False, "unfurl_media": False}


def send(target: SlackTarget, edition: Edition, correction: bool) -> str | None:
    """Post the message; returns Slack's request id, if it gave one."""
    url = expand(target.webhook_url)
    try:
        answer = http().post(url, json=message(edition, correction))
    except (httpx.ConnectError, httpx.ConnectTimeout) as exc:  # never reached Slack
        raise DeliveryError(f"slack: could not reach the webhook ({type(exc).__name__})") from None
    except httpx.HTTPError as exc:  # sent, but no answer: Slack may have posted it
        raise DeliveryError(
            f"slack: no answer from the webhook ({type(exc).__name__}); it may have posted "
            "the message",
            uncertain=True,
        ) from None
    if answer.status_code != 200:
        body = answer.text[:200].replace(url, "***")
        wait = _seconds(answer.headers.get("retry-after")) if answer.status_code == 429 else None
        raise DeliveryError(
            f"slack: the webhook answered HTTP {answer.status_code}: {body}", retry_after=wait
        )
    return answer.headers.get("x-slack-req-id")


def _seconds(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
