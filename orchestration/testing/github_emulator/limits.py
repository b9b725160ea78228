"""GitHub's static query limits, checked before anything runs.

- Every connection that selects `nodes` or `edges` needs `first` or `last`, at most 100.
- The nodes a query could return (the product of nested `first`s) may not pass 500,000.
- The rate-limit cost is GitHub's documented formula: add up how many times each connection
  would be fetched (a child of `search(first: 100)` is fetched 100 times), divide by 100 and
  round, with a minimum of 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLInt,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    get_named_type,
    value_from_ast,
)

MAX_PAGE = 100
MAX_NODES = 500_000


class QueryLimitError(ValueError):
    """A query GitHub refuses before running it; `kind` is the error `type` GitHub reports."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class QueryCost:
    requests: int = 0
    nodes: int = 0

    @property
    def points(self) -> int:
        return max(1, round(self.requests / 100))


def analyse(
    schema: GraphQLSchema, document: DocumentNode, variables: dict, operation: str | None = None
) -> QueryCost:
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    chosen = next(
        (o for o in operations if operation is None or (o.name and o.name.value == operation)),
        None,
    )
    cost = QueryCost()
    if chosen is not None and schema.query_type is not None:
        _walk(schema, chosen.selection_set, schema.query_type, 1, None, fragments, variables, cost)
    if cost.nodes > MAX_NODES:
        raise QueryLimitError(
            "MAX_NODE_LIMIT_EXCEEDED",
            f"This query requests up to {cost.nodes:,} possible nodes which exceeds "
            f"the maximum limit of {MAX_NODES:,}.",
        )
    return cost


def _walk(schema, selection_set: SelectionSetNode, parent, mult, item_mult, fragments, vars_, cost):
    for selection in selection_set.selections:
        if isinstance(selection, InlineFragmentNode):
            target = (
                schema.get_type(selection.type_condition.name.value)
                if (selection.type_condition)
                else parent
            )
            _walk(schema, selection.selection_set, target, mult, item_mult, fragments, vars_, cost)
        elif isinstance(selection, FragmentSpreadNode):
            fragment = fragments.get(selection.name.value)
            if fragment is not None:
                target = schema.get_type(fragment.type_condition.name.value)
                _walk(
                    schema, fragment.selection_set, target, mult, item_mult, fragments, vars_, cost
                )
        elif isinstance(selection, FieldNode):
            _field(schema, selection, parent, mult, item_mult, fragments, vars_, cost)


def _field(schema, node: FieldNode, parent, mult, item_mult, fragments, vars_, cost):
    if not isinstance(parent, GraphQLObjectType) or node.selection_set is None:
        return
    field = parent.fields.get(node.name.value)
    if field is None:
        return
    child_type = get_named_type(field.type)
    own_mult = item_mult if node.name.value in ("nodes", "edges") and item_mult else mult
    if child_type.name.endswith("Connection"):
        size = _page_size(node, vars_)
        selected = {s.name.value for s in node.selection_set.selections if isinstance(s, FieldNode)}
        if size is None and selected & {"nodes", "edges"}:
            raise QueryLimitError(
                "MISSING_PAGINATION_BOUNDARIES",
                f"You must provide a `first` or `last` value to properly paginate the "
                f"`{node.name.value}` connection.",
            )
        if size is not None and size > MAX_PAGE:
            raise QueryLimitError(
                "EXCESSIVE_PAGINATION",
                f"Requesting {size} records on the `{node.name.value}` connection exceeds the "
                f"`first` limit of {MAX_PAGE} records.",
            )
        cost.requests += own_mult
        cost.nodes += own_mult * (size or 0)
        _walk(
            schema,
            node.selection_set,
            child_type,
            own_mult,
            own_mult * (size or 0),
            fragments,
            vars_,
            cost,
        )
    else:
        _walk(schema, node.selection_set, child_type, own_mult, None, fragments, vars_, cost)


def _page_size(node: FieldNode, vars_: dict) -> int | None:
    sizes = []
    for argument in node.arguments:
        if argument.name.value in ("first", "last"):
            value = value_from_ast(argument.value, GraphQLInt, vars_)
            if isinstance(value, int):
                if value < 0:
                    raise QueryLimitError(
                        "INVALID_PAGINATION", f"`{argument.name.value}` must be non-negative"
                    )
                sizes.append(value)
    return max(sizes) if sizes else None
