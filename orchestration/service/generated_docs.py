"""The parts of the README and docs/ that the code writes, so they cannot drift from it.

The README's environment table comes from `config.ENVIRONMENT` (which `prweekly --help` prints
too), its list of documents from the files in docs/, the asset graph in docs/architecture.md
from the Dagster definitions, and its layout from the package's folders and each module's
opening line. Each sits between
`<!-- generated: NAME -->` and `<!-- end: NAME -->`; `python -m
orchestration.service.generated_docs`
(`make docs`) rewrites them, and a test fails while one is out of date.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable
from pathlib import Path

from orchestration.config import ENVIRONMENT

SEEDS_GROUP = "seeds"


def environment_table(root: Path) -> str:
    """Every setting prweekly reads from the environment, as a Markdown table."""
    rows = [f"| `{v.name}` | {v.meaning} | {v.default} |" for v in ENVIRONMENT]
    return "\n".join(["| variable | meaning | default |", "|---|---|---|", *rows])


def asset_graph(root: Path) -> str:
    """The assets of `orchestration.service.definitions` as a Mermaid flowchart, one subgraph per
    group. The seeds are drawn as one node, and an asset that reads every asset of a group
    (`published_warehouse`) gets one arrow from the group, so the picture stays legible."""
    from orchestration.service.definitions import defs

    graph = defs.resolve_asset_graph()
    nodes = {key.to_user_string(): graph.get(key) for key in graph.get_all_asset_keys()}
    depth: dict[str, int] = {}
    for name in graph.toposorted_asset_keys:
        parents = [depth[key.to_user_string()] for key in graph.get(name).parent_keys]
        depth[name.to_user_string()] = 1 + max(parents, default=-1)
    members_of: dict[str, list[str]] = {}
    for name, node in sorted(nodes.items()):
        members_of.setdefault(node.group_name, []).append(name)
    seeds = members_of.pop(SEEDS_GROUP, [])
    # in the order data flows: by the depth of a group's first and last assets
    groups = dict(
        sorted(
            members_of.items(),
            key=lambda item: (min(depth[n] for n in item[1]), max(depth[n] for n in item[1])),
        )
    )

    lines = ["```mermaid", "flowchart LR"]
    for group, members in groups.items():
        lines.append(f"    subgraph {group}")
        lines.extend(f"        {_node_id(name)}[{name}]" for name in members)
        lines.append("    end")
    if seeds:
        lines.append(f"    {SEEDS_GROUP}[({len(seeds)} CSV seeds)]")
    edges: set[str] = set()
    for name, node in sorted(nodes.items()):
        parents = {parent.to_user_string() for parent in node.parent_keys}
        for group, members in groups.items():
            if len(members) > 1 and group != node.group_name and set(members) <= parents:
                edges.add(f"    {group} --> {_node_id(name)}")
                parents -= set(members)
        for parent in parents:
            source = SEEDS_GROUP if parent in seeds else _node_id(parent)
            edges.add(f"    {source} --> {_node_id(name)}")
    lines.extend(sorted(edges))
    lines.append("```")
    return "\n".join(lines)


def _node_id(asset: str) -> str:
    return re.sub(r"\W", "_", asset)


def docs_index(root: Path) -> str:
    """One line per file in docs/: a link named by its title, and its first sentence."""
    lines = []
    for path in sorted((root / "docs").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        title = re.search(r"^# (.+)$", text, re.MULTILINE)
        if not title:
            raise ValueError(f"{path.name} has no `# title` line")
        after = text[title.end() :].strip().split("\n\n")[0]
        sentence = re.split(r"(?<=[.:])\s", " ".join(after.split()), maxsplit=1)[0]
        lines.append(f"- [{title.group(1)}](docs/{path.name}): {sentence.rstrip('.:')}.")
    return "\n".join(lines)


PACKAGE = "orchestration"
DESCRIBED_AT = 26  # the column a layout line's description starts at
WIDTH = 100
# folders of the package that hold no Python, so no docstring to say what they are
DATA_FOLDERS = {"sample": "the bundled sample repository, the demo's dataset"}


def _purpose(path: Path) -> str:
    """The first sentence of a module's docstring (every module opens with one)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    if not doc:
        raise ValueError(f"{path} opens with no docstring saying what it is for")
    first = " ".join(doc.split("\n\n")[0].split())
    return re.split(r"(?<=\.)\s", first, maxsplit=1)[0]


def _entry(indent: int, name: str, text: str) -> list[str]:
    """`name` at `indent`, `text` from the description column on, wrapped to the width."""
    head = " " * indent + name
    pad = " " * DESCRIBED_AT
    first_width = WIDTH - max(DESCRIBED_AT, len(head) + 2)
    words, lines, line = text.split(), [], ""
    for word in words:
        limit = first_width if not lines else WIDTH - DESCRIBED_AT
        if line and len(line) + 1 + len(word) > limit:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    if len(head) + 2 > DESCRIBED_AT:
        return [head, *(pad + line for line in lines)]
    return [head.ljust(DESCRIBED_AT) + lines[0], *(pad + line for line in lines[1:])]


def _folder(folder: Path, indent: int) -> list[str]:
    """A package folder: its purpose, then its files by name, then its sub-folders the same
    way."""
    init = folder / "__init__.py"
    purpose = _purpose(init) if init.exists() else DATA_FOLDERS[folder.name]
    files = sorted(
        p.name
        for p in folder.iterdir()
        if p.is_file() and p.name != "__init__.py" and not p.name.startswith(".")
    )
    lines = _entry(indent, f"{folder.name}/", purpose)
    if files:
        lines += _entry(0, "", " ".join(files))
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and p.name != "__pycache__"):
        lines += _folder(sub, indent + 2)
    return lines


def layout(root: Path) -> str:
    """The package as it stands: each module at its top with its opening line, and each folder
    with its own and the names of the files in it."""
    package = root / PACKAGE
    lines = _entry(0, f"{PACKAGE}/", _purpose(package / "__init__.py"))
    for path in sorted(package.glob("*.py")):
        if path.name != "__init__.py":
            lines += _entry(2, path.name, _purpose(path))
    for folder in sorted(p for p in package.iterdir() if p.is_dir() and p.name != "__pycache__"):
        lines += _folder(folder, 2)
    return "\n".join(["```", *(line.rstrip() for line in lines), "```"])


BLOCKS: dict[str, tuple[str, Callable[[Path], str]]] = {
    "environment": ("README.md", environment_table),
    "docs-index": ("README.md", docs_index),
    "asset-graph": ("docs/architecture.md", asset_graph),
    "layout": ("docs/architecture.md", layout),
}


def render(text: str, name: str, body: str) -> str:
    """`text` with the block `name` replaced by `body`; refuses a file without the block."""
    start, end = (
        rf"<!-- generated: {re.escape(name)} [^\n]*?-->\n",
        rf"<!-- end: {re.escape(name)} -->",
    )
    pattern = re.compile(rf"({start})(?:.*?\n)?({end})", re.DOTALL)
    if not pattern.search(text):
        raise ValueError(f"no generated block {name!r} (<!-- generated: {name} ... -->)")
    return pattern.sub(lambda match: f"{match.group(1)}{body}\n{match.group(2)}", text, count=1)


def outdated(root: Path) -> list[str]:
    """The blocks whose text differs from what the code generates now."""
    stale = []
    for name, (path, generate) in BLOCKS.items():
        text = (root / path).read_text(encoding="utf-8")
        if render(text, name, generate(root)) != text:
            stale.append(f"{path}: {name}")
    return stale


def write(root: Path) -> list[str]:
    """Rewrite every block; returns the files that changed."""
    changed = []
    for name, (path, generate) in BLOCKS.items():
        file = root / path
        text = file.read_text(encoding="utf-8")
        new = render(text, name, generate(root))
        if new != text:
            file.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    for path in write(root):
        print(f"rewrote {path}")
