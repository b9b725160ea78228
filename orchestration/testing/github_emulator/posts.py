"""What clients post to the emulated repositories: discussions, issues and comments.

Each repository starts with GitHub's default discussion categories and issue labels (a test
may change them); every post is kept, so a test counts what a client created. Node ids are
opaque base64 strings, as on GitHub, and numbers continue after the repository's PRs.
"""

from __future__ import annotations

import base64
import threading
from dataclasses import dataclass, field

DEFAULT_CATEGORIES = ("Announcements", "General", "Ideas", "Polls", "Q&A", "Show and tell")
DEFAULT_LABELS = (
    "bug", "documentation", "duplicate", "enhancement", "good first issue", "help wanted",
    "invalid", "question", "wontfix",
)  # fmt: skip


COMMENT_KINDS = ("IssueComment", "DiscussionComment")


def node_id(kind: str, key: str) -> str:
    return base64.b64encode(f"{kind}:{key}".encode()).decode()


def parse_node_id(value: str) -> tuple[str, str] | None:
    """(kind, key) of an id this emulator made, else None."""
    try:
        kind, sep, key = base64.b64decode(value.encode(), validate=True).decode().partition(":")
    except ValueError:
        return None
    return (kind, key) if sep else None


def slug_of(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")


class NotFound(LookupError):
    """GitHub's NOT_FOUND for a global id that names nothing."""

    def __init__(self, value: str) -> None:
        super().__init__(f"Could not resolve to a node with the global id of '{value}'")


@dataclass
class Post:
    kind: str  # Discussion, Issue, IssueComment (on an issue) or DiscussionComment
    repo: str  # owner/name as the dataset spells it
    number: int | None
    title: str
    body: str
    id: str = ""
    url: str = ""
    category: str | None = None
    labels: list[str] = field(default_factory=list)
    subject_id: str | None = None  # a comment's discussion or issue


class Posts:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.categories: dict[str, list[str]] = {}  # repo (lower case) -> names
        self.labels: dict[str, list[str]] = {}
        self.items: list[Post] = []

    def categories_of(self, repo: str) -> list[dict]:
        names = self.categories.get(repo.lower(), list(DEFAULT_CATEGORIES))
        return [
            {"id": node_id("DiscussionCategory", f"{repo.lower()}:{slug_of(n)}"), "name": n,
             "slug": slug_of(n)}
            for n in names
        ]  # fmt: skip

    def label(self, repo: str, name: str) -> dict | None:
        for known in self.labels.get(repo.lower(), list(DEFAULT_LABELS)):
            if known.lower() == name.lower():
                return {"id": node_id("Label", f"{repo.lower()}:{known}"), "name": known}
        return None

    def of_kind(self, kind: str, repo: str | None = None) -> list[Post]:
        with self._lock:
            return [
                p
                for p in self.items
                if p.kind == kind and (repo is None or p.repo.lower() == repo.lower())
            ]

    def add(self, post: Post, first_free_number: int) -> Post:
        with self._lock:
            taken = [p.number or 0 for p in self.items if p.repo.lower() == post.repo.lower()]
            if post.kind not in COMMENT_KINDS:
                post.number = max([first_free_number, *(n + 1 for n in taken)])
                path = "discussions" if post.kind == "Discussion" else "issues"
                post.url = f"https://github.com/{post.repo}/{path}/{post.number}"
                post.id = node_id(post.kind, f"{post.repo.lower()}:{post.number}")
            else:
                post.id = node_id(post.kind, str(len(self.items) + 1))
                anchor = "discussioncomment" if post.kind == "DiscussionComment" else "issuecomment"
                post.url = f"https://github.com/{post.repo}#{anchor}-{len(self.items) + 1}"
            self.items.append(post)
            return post

    def comments_on(self, subject_id: str) -> list[Post]:
        with self._lock:
            return [p for p in self.items if p.subject_id == subject_id]

    def find(self, value: str) -> Post:
        with self._lock:
            found = next((p for p in self.items if p.id == value), None)
        if found is None:
            raise NotFound(value)
        return found
