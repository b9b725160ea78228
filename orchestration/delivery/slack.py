"""Slack: a short message through an incoming webhook (summary, key PRs, link)."""

from __future__ import annotations

import httpx

from orchestration.delivery.edition import Edition
from orchestration.delivery.targets import SlackTarget, expand
from orchestration.delivery.transport import DeliveryError, http
from orchestration.escaping.slack import slack_link, slack_text

TITLE_CHARS = 300  # GitHub allows 256; a file source anything: a message stays short

_WORDS = {
    "en": {"prs": "merged PRs", "theme": "Theme", "key": "Key PRs", "read": "Read the report",
           "corrected": "Corrected edition"},
    "zh": {"prs": "个已合并 PR", "theme": "主题", "key": "重点 PR", "read": "阅读周报",
           "corrected": "更正版"},
}  # fmt: skip


def message(edition: Edition, correction: bool) -> dict:
    """The webhook's JSON body: mrkdwn text, with links that do not unfurl."""
    words = _WORDS[edition.language]
    lines = [f"*{slack_text(edition.title)}*"]
    if correction:
        lines[0] = f"*{words['corrected']}:* " + lines[0]
    if edition.merged_prs is not None:
        figures = f"{edition.merged_prs} {words['prs']}"
        if edition.theme:
            figures += f" · {words['theme']}: {slack_text(edition.theme)}"
        lines.append(figures)
    if edition.key_prs:
        lines.append(f"{words['key']}:")
        lines += [
            f"• {slack_link(pr['url'], '#' + str(int(pr['number'])))} "
            f"{slack_text(pr['title'], TITLE_CHARS)} ({pr['importance']:.1f})"
            for pr in edition.key_prs
        ]
    link = edition.link
    read = slack_link(link, words["read"])
    lines.append(read if read != words["read"] else f"{words['read']}: {slack_text(link)}")
    return {"text": "\n".join(lines), "unfurl_links": False, "unfurl_media": False}


def send(target: SlackTarget, edition: Edition, correction: bool) -> str | None:
    """Post the message; returns Slack's request id, if it gave one."""
    url = expand(target.webhook_url)
    try:
        answer = http().post(url, json=message(edition, correction))
    except httpx.HTTPError as exc:  # the exception's text can carry the URL: name its kind
        raise DeliveryError(f"slack: could not reach the webhook ({type(exc).__name__})") from None
    if answer.status_code != 200:
        body = answer.text[:200].replace(url, "***")
        raise DeliveryError(f"slack: the webhook answered HTTP {answer.status_code}: {body}")
    return answer.headers.get("x-slack-req-id")
