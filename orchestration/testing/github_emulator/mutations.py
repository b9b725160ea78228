"""Resolvers for posting in a repository: `createDiscussion`, `createIssue`, `addComment` (on an
issue), `addDiscussionComment`, and the lookups they need (`discussionCategories`, `label`, a
repository's latest `discussions` and `issues`, `node(id:)` and a thread's `comments`).

Ids are checked as GitHub checks them: a repository, category, label or subject id that names
nothing is NOT_FOUND, a category of another repository is refused. So are GitHub's limits: a
body over 65,536 characters or a title over 256 is UNPROCESSABLE ("Body is too long (maximum
is 65536 characters)"), and nothing is created; `addComment` adds to an issue or a pull
request only (a discussion takes `addDiscussionComment`).
"""

from __future__ import annotations

from graphql import GraphQLSchema

from orchestration.testing.github_emulator.posts import NotFound, Post, parse_node_id
from orchestration.testing.github_emulator.resolvers import (
    TypedError,
    only_paging,
    page,
    query_schema,
)

MAX_BODY = 65_536
MAX_TITLE = 256


def _typed(kind: str, message: str) -> Exception:
    return TypedError(kind, message)


def _check_lengths(input: dict) -> None:
    """GitHub's length limits on what is posted, in characters."""
    for field, limit in (("title", MAX_TITLE), ("body", MAX_BODY)):
        value = input.get(field)
        if isinstance(value, str) and len(value) > limit:
            raise _typed(
                "UNPROCESSABLE", f"{field.capitalize()} is too long (maximum is {limit} characters)"
            )


def _repo_of(info, value: str):
    parsed = parse_node_id(value)
    pulls = info.context.dataset.repo(parsed[1]) if parsed and parsed[0] == "Repository" else None
    if pulls is None:
        raise _typed("NOT_FOUND", str(NotFound(value)))
    return pulls


def _first_free(pulls) -> int:
    return max(pulls.by_number, default=0) + 1


def _create_discussion(_root, info, input: dict) -> dict:
    _check_lengths(input)
    pulls = _repo_of(info, input["repositoryId"])
    posts = info.context.posts
    category = next(
        (c for c in posts.categories_of(pulls.name_with_owner) if c["id"] == input["categoryId"]),
        None,
    )
    if category is None:
        raise _typed("NOT_FOUND", str(NotFound(input["categoryId"])))
    post = posts.add(
        Post("Discussion", pulls.name_with_owner, None, input["title"], input["body"],
             category=category["name"]),
        _first_free(pulls),
    )  # fmt: skip
    return {"clientMutationId": input.get("clientMutationId"), "discussion": _node(post)}


def _create_issue(_root, info, input: dict) -> dict:
    _check_lengths(input)
    pulls = _repo_of(info, input["repositoryId"])
    posts = info.context.posts
    names = []
    for label_id in input.get("labelIds") or []:
        parsed = parse_node_id(label_id)
        repo, _, name = parsed[1].partition(":") if parsed else ("", "", "")
        same_repo = repo == pulls.name_with_owner.lower()
        label = posts.label(pulls.name_with_owner, name) if same_repo else None
        if label is None or label["id"] != label_id:
            raise _typed("NOT_FOUND", str(NotFound(label_id)))
        names.append(label["name"])
    post = posts.add(
        Post("Issue", pulls.name_with_owner, None, input["title"], input.get("body") or "",
             labels=names),
        _first_free(pulls),
    )  # fmt: skip
    return {"clientMutationId": input.get("clientMutationId"), "issue": _node(post)}


def _add_comment(_root, info, input: dict) -> dict:
    _check_lengths(input)
    subject = _subject(info, input["subjectId"], ("Issue",))
    post = info.context.posts.add(
        Post("IssueComment", subject.repo, None, "", input["body"], subject_id=subject.id), 0
    )
    return {
        "clientMutationId": input.get("clientMutationId"),
        "commentEdge": {"cursor": post.id, "node": _node(post)},
    }


def _add_discussion_comment(_root, info, input: dict) -> dict:
    _check_lengths(input)
    subject = _subject(info, input["discussionId"], ("Discussion",))
    post = info.context.posts.add(
        Post("DiscussionComment", subject.repo, None, "", input["body"], subject_id=subject.id),
        0,
    )
    return {"clientMutationId": input.get("clientMutationId"), "comment": _node(post)}


def _subject(info, value: str, kinds: tuple[str, ...]) -> Post:
    """The post `value` names, if it is of one of `kinds` (GitHub: NOT_FOUND otherwise)."""
    try:
        subject = info.context.posts.find(value)
    except NotFound as exc:
        raise _typed("NOT_FOUND", str(exc)) from None
    if subject.kind not in kinds:
        wanted = " or ".join(kinds)
        raise _typed("NOT_FOUND", f"Could not resolve to {wanted} with the global id of '{value}'")
    return subject


def _node(post: Post) -> dict:
    return {"id": post.id, "url": post.url, "number": post.number, "title": post.title,
            "body": post.body, "kind": post.kind}  # fmt: skip


def _latest(posts: list[Post], paging: dict) -> dict:
    """Newest first, as `orderBy: {field: CREATED_AT, direction: DESC}` asks."""
    return page([_node(p) for p in reversed(posts)], **only_paging(paging))


def _discussions(pulls, info, categoryId=None, **paging) -> dict:
    posts = info.context.posts
    found = posts.of_kind("Discussion", pulls.name_with_owner)
    if categoryId:
        names = {c["id"]: c["name"] for c in posts.categories_of(pulls.name_with_owner)}
        found = [p for p in found if p.category == names.get(categoryId)]
    return _latest(found, paging)


def _issues(pulls, info, labels=None, **paging) -> dict:
    found = info.context.posts.of_kind("Issue", pulls.name_with_owner)
    if labels:
        wanted = {name.lower() for name in labels}
        found = [p for p in found if wanted & {name.lower() for name in p.labels}]
    return _latest(found, paging)


def _find_node(_root, info, id: str) -> dict | None:
    try:
        return _node(info.context.posts.find(id))
    except NotFound:
        return None


def _comments(thread: dict, info, **paging) -> dict:
    return page(
        [_node(p) for p in info.context.posts.comments_on(thread["id"])], **only_paging(paging)
    )


def _categories(pulls, info, **paging) -> dict:
    return page(info.context.posts.categories_of(pulls.name_with_owner), **only_paging(paging))


def _label(pulls, info, name: str) -> dict | None:
    return info.context.posts.label(pulls.name_with_owner, name)


def install(schema: GraphQLSchema) -> None:
    mutation = schema.mutation_type
    assert mutation is not None
    mutation.fields["createDiscussion"].resolve = _create_discussion
    mutation.fields["createIssue"].resolve = _create_issue
    mutation.fields["addComment"].resolve = _add_comment
    mutation.fields["addDiscussionComment"].resolve = _add_discussion_comment
    repository = schema.type_map["Repository"]
    repository.fields["discussionCategories"].resolve = _categories
    repository.fields["label"].resolve = _label
    repository.fields["discussions"].resolve = _discussions
    repository.fields["issues"].resolve = _issues
    schema.query_type.fields["node"].resolve = _find_node
    schema.type_map["Node"].resolve_type = lambda node, *_: node["kind"]
    for kind in ("Discussion", "Issue"):
        schema.type_map[kind].fields["comments"].resolve = _comments


def build() -> GraphQLSchema:
    """The emulator's schema: the queries' resolvers (resolvers.py), and the mutations' on them."""
    schema = query_schema()
    install(schema)
    return schema
