"""Resolvers for posting in a repository: `createDiscussion`, `createIssue`, `addComment`, and
the lookups they need (`discussionCategories`, `label`).

Ids are checked as GitHub checks them: a repository, category, label or subject id that names
nothing is NOT_FOUND, a category of another repository is refused.
"""

from __future__ import annotations

from graphql import GraphQLSchema

from orchestration.emulator.posts import NotFound, Post, parse_node_id
from orchestration.emulator.resolvers import TypedError, only_paging, page


def _typed(kind: str, message: str) -> Exception:
    return TypedError(kind, message)


def _repo_of(info, value: str):
    parsed = parse_node_id(value)
    pulls = info.context.dataset.repo(parsed[1]) if parsed and parsed[0] == "Repository" else None
    if pulls is None:
        raise _typed("NOT_FOUND", str(NotFound(value)))
    return pulls


def _first_free(pulls) -> int:
    return max(pulls.by_number, default=0) + 1


def _create_discussion(_root, info, input: dict) -> dict:
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
    posts = info.context.posts
    try:
        subject = posts.find(input["subjectId"])
    except NotFound as exc:
        raise _typed("NOT_FOUND", str(exc)) from None
    if subject.kind not in ("Discussion", "Issue"):
        raise _typed("UNPROCESSABLE", "Comments can only be added to issues and discussions")
    post = posts.add(
        Post("IssueComment", subject.repo, None, "", input["body"], subject_id=subject.id), 0
    )
    return {
        "clientMutationId": input.get("clientMutationId"),
        "commentEdge": {"cursor": post.id, "node": _node(post)},
    }


def _node(post: Post) -> dict:
    return {"id": post.id, "url": post.url, "number": post.number, "title": post.title,
            "body": post.body}  # fmt: skip


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
    repository = schema.type_map["Repository"]
    repository.fields["discussionCategories"].resolve = _categories
    repository.fields["label"].resolve = _label
