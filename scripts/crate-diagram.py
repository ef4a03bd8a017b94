#!/usr/bin/env python3
"""Draw the workspace's crate diagram from `cargo metadata`, never by hand.

    scripts/crate-diagram.py            print the diagram
    scripts/crate-diagram.py --check    exit 1 when README.md's differs
    scripts/crate-diagram.py --write    put it into README.md

The diagram is an indented text tree of the workspace crates and their
workspace dependencies (normal and build dependencies; a crate that only
tests use says which crates use it, as a dev-dependency). Each crate is
drawn once, the ones with the longest chain of dependencies below them
first, with the crates it uses directly indented under it. In README.md it
stands between the marker comments `<!-- crate-diagram: begin ... -->` and
`<!-- crate-diagram: end -->` (in a text block), so scripts/test.sh can
check that it has not drifted from the manifests.
"""
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
BEGIN = "<!-- crate-diagram: begin (scripts/crate-diagram.py --write draws it) -->"
END = "<!-- crate-diagram: end -->"


def workspace(metadata):
    """{crate: (directory relative to the root, normal deps, dev-only deps)}."""
    root = metadata["workspace_root"]
    names = {p["name"] for p in metadata["packages"]}
    crates = {}
    for p in metadata["packages"]:
        deps = {d["name"]: d["kind"] for d in p["dependencies"] if d["name"] in names}
        normal = sorted(n for n, k in deps.items() if k in (None, "build"))
        dev = sorted(n for n, k in deps.items() if k == "dev" and n not in normal)
        where = os.path.relpath(os.path.dirname(p["manifest_path"]), root)
        crates[p["name"]] = (where, normal, dev)
    return crates


def height(crates, name, memo):
    """The longest chain of normal dependencies below `name`."""
    if name not in memo:
        memo[name] = 1 + max((height(crates, d, memo) for d in crates[name][1]), default=-1)
    return memo[name]


def wrap(text):
    """`text` indented under its crate, in lines of at most 76 characters."""
    return textwrap.wrap(text, 76, initial_indent="    ", subsequent_indent="        ",
                         break_on_hyphens=False)


def diagram(crates):
    """The diagram's lines: each crate (highest first) with its directory,
    and under it the workspace crates it uses directly (without the common
    `pario-` prefix), highest first."""
    memo = {}
    key = lambda n: (-height(crates, n, memo), n)  # noqa: E731
    short = lambda n: n[len("pario-"):] if n.startswith("pario-") else n  # noqa: E731
    width = max(len(n) for n in crates) + 2
    lines = []
    for name in sorted(crates, key=key):
        where, normal, dev = crates[name]
        lines.append(f"{name:<{width}}{where}")
        if normal:
            lines += wrap("uses " + ", ".join(short(d) for d in sorted(normal, key=key)))
        users = sorted(n for n, c in crates.items() if name in c[2] and name not in c[1])
        if users and not any(name in c[1] for c in crates.values()):
            lines += wrap("tests only: a dev-dependency of " + ", ".join(short(u) for u in users))
    return lines


def generated():
    """The diagram as README.md holds it: markers, text block and all."""
    out = subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1",
                          "--offline"], cwd=ROOT, capture_output=True, text=True, check=True)
    body = diagram(workspace(json.loads(out.stdout)))
    return "\n".join([BEGIN, "```text", *body, "```", END])


def in_readme(text):
    """(before, diagram, after) of README.md's text, or None without markers."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return None
    return text[:start], text[start:end + len(END)], text[end + len(END):]


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("", "--check", "--write"):
        print(f"crate-diagram.py: {mode}: unknown option (--check or --write)", file=sys.stderr)
        return 2
    new = generated()
    if not mode:
        print(new)
        return 0
    with open(README, encoding="utf-8") as f:
        text = f.read()
    parts = in_readme(text)
    if parts is None:
        print(f"crate-diagram.py: README.md: no '{BEGIN}' ... '{END}' markers", file=sys.stderr)
        return 1
    if mode == "--write":
        with open(README, "w", encoding="utf-8") as f:
            f.write(parts[0] + new + parts[2])
        return 0
    if parts[1] != new:
        print("crate-diagram.py: README.md's crate diagram differs from the manifests; "
              "run scripts/crate-diagram.py --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
