#!/usr/bin/env python3
"""Check that every repository path README.md and docs/*.md name exists.

    scripts/check-doc-paths.py

A path is a word that starts with one of the repository's top-level
directories (crates/, scripts/, schemas/, docs/, tests/fixtures/, bench/,
suites/, .ci/) and runs up to a character that cannot be part of a path; a path
with a placeholder (`<name>`, `*`, `{...}`, `$VAR`) is checked up to the
placeholder's directory. Exit status 1, naming each file and path, when
one is missing: a moved or renamed file must take the docs with it.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# `tests/` alone is also a crate's own test directory (`tests/bad_input.rs`
# of each front end): only the top-level fixtures are checked.
TOPS = ("crates", "scripts", "schemas", "docs", "tests/fixtures", "bench", "suites", ".ci")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./<>*{}$-]*)" % "|".join(re.escape(t) for t in TOPS))


def named_paths(text):
    """The repository paths named in `text`, placeholders cut off."""
    out = set()
    for m in PATH.finditer(text):
        p = m.group(1)
        cut = re.search(r"[<*{$]", p)
        if cut:
            p = p[:cut.start()]
            p = p[:p.rfind("/") + 1] if "/" in p else p
        p = p.rstrip(".,:;")
        out.add(p)
    return sorted(out)


def docs():
    files = [os.path.join(ROOT, "README.md")]
    d = os.path.join(ROOT, "docs")
    files += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".md"))
    return files


def main():
    missing = []
    for f in docs():
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        for p in named_paths(text):
            if not os.path.exists(os.path.join(ROOT, p)):
                missing.append(f"{os.path.relpath(f, ROOT)}: {p}: no such file or directory")
    for m in missing:
        print(f"check-doc-paths.py: {m}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
