#!/usr/bin/env python3
"""Check that every integration test file of every crate is compiled.

    scripts/check-test-targets.py

A crate whose integration tests are merged into one binary (`autotests =
false` and a `[[test]]` root such as `tests/integration.rs`, see
docs/CONTRIBUTING.md) builds only the files its roots name with `mod`:
a `crates/*/tests/*.rs` file that is neither a test target's root (from
`cargo metadata`) nor named by a `mod` line of one would silently never
run. Exit status 1, naming each such file and the root to list it in.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# `mod name;`, possibly `pub`, with a `#[path = "file.rs"]` before it.
MOD = re.compile(r'^\s*(?:#\[path\s*=\s*"([^"]+)"\]\s*)?(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;', re.M)


def test_roots():
    """Each package's directory and the source files of its test targets."""
    out = subprocess.run(
        ["cargo", "metadata", "--no-deps", "--format-version", "1"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    roots = {}
    for p in json.loads(out)["packages"]:
        d = os.path.dirname(p["manifest_path"])
        roots[d] = [os.path.realpath(t["src_path"]) for t in p["targets"] if "test" in t["kind"]]
    return roots


def named_by(root):
    """The files a test root's `mod` lines name (next to the root)."""
    with open(root, encoding="utf-8") as f:
        text = f.read()
    here = os.path.dirname(root)
    files = set()
    for path, name in MOD.findall(text):
        for cand in ([path] if path else [name + ".rs", os.path.join(name, "mod.rs")]):
            files.add(os.path.realpath(os.path.join(here, cand)))
    return files


def main():
    missing = []
    for crate, roots in sorted(test_roots().items()):
        tests = os.path.join(crate, "tests")
        if not os.path.isdir(tests):
            continue
        covered = set(roots)
        for r in roots:
            covered |= named_by(r)
        for f in sorted(os.listdir(tests)):
            p = os.path.realpath(os.path.join(tests, f))
            if f.endswith(".rs") and p not in covered:
                where = ", ".join(os.path.relpath(r, ROOT) for r in roots) or "Cargo.toml"
                missing.append(f"{os.path.relpath(p, ROOT)}: not compiled by any test target "
                               f"(add `#[path = \"{f}\"] mod {f[:-3]};` to {where})")
    for m in missing:
        print(f"check-test-targets.py: {m}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
