"""Email: the report's HTML with its Markdown as the plain-text alternative, over SMTP."""

from __future__ import annotations

import ipaddress
import os
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from urllib.parse import unquote, urlsplit

from orchestration.config import UsageError
from orchestration.delivery.edition import Edition
from orchestration.delivery.targets import EmailTarget, MissingSecret, check_smtp_url, expand
from orchestration.delivery.transport import DeliveryError

TIMEOUT_SECONDS = 30.0


def compose(target: EmailTarget, edition: Edition, correction: bool) -> EmailMessage:
    mail = EmailMessage()
    prefix = ("[更正] " if edition.language == "zh" else "[Corrected] ") if correction else ""
    mail["Subject"] = prefix + edition.title
    mail["From"] = target.sender
    mail["To"] = ", ".join(target.to)
    mail["Date"] = formatdate(usegmt=True)
    mail["Message-ID"] = make_msgid("prweekly", domain=target.sender.rpartition("@")[2])
    mail.set_content(edition.markdown + f"\n\n{edition.link}\n")
    mail.add_alternative(edition.html, subtype="html")
    return mail


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def send(target: EmailTarget, edition: Edition, correction: bool) -> str:
    """Send one message to every address; returns its Message-ID."""
    url = expand(target.smtp_url)

    def refuse(message: str) -> None:
        raise UsageError(message)

    check_smtp_url(url, refuse)
    parts = urlsplit(url)
    host = parts.hostname or ""
    user = unquote(parts.username) if parts.username else None
    password = os.environ.get(target.password_env) if user and target.password_env else None
    if user and not password:
        variable = target.password_env or "(password_env is not set)"
        raise MissingSecret(f"the SMTP password's environment variable {variable} is not set")
    mail = compose(target, edition, correction)
    try:
        if parts.scheme == "smtps":
            context = ssl.create_default_context()
            client = smtplib.SMTP_SSL(host, parts.port or 465, timeout=TIMEOUT_SECONDS,
                                      context=context)  # fmt: skip
        else:
            client = smtplib.SMTP(host, parts.port or 25, timeout=TIMEOUT_SECONDS)
        with client:
            client.ehlo()
            encrypted = parts.scheme == "smtps"
            if not encrypted and client.has_extn("starttls"):
                client.starttls(context=ssl.create_default_context())
                client.ehlo()
                encrypted = True
            if user:
                if not encrypted and not _loopback(host):
                    raise DeliveryError(
                        f"email: {host} offers no encryption; the SMTP password is only sent "
                        "over TLS (use smtps://, or a server with STARTTLS)"
                    )
                client.login(user, password or "")
            client.send_message(mail)
    except (TimeoutError, smtplib.SMTPException, OSError) as exc:
        text = " ".join(str(exc).split())
        if password:
            text = text.replace(password, "***")
        raise DeliveryError(f"email: {host}: {type(exc).__name__}: {text[:300]}") from None
    return str(mail["Message-ID"])
