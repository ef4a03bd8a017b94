#!/usr/bin/env python3
"""List Rust functions longer than a limit (default 80 lines).

    scripts/long-functions.py [--max N] [--check] [DIR ...]

DIRs default to every crate's src/. Whole files are scanned; only items
marked `#[cfg(test)]` (a test module with its body, or a test-only function
or impl) are skipped, wherever they stand in the file. A function's length runs from its `fn` line to
its closing brace. A function that is a table (one arm or one field per
option, independent of each other) may be longer when the line
`// long-function: table (why)` stands above its `fn` line, among its doc
comments and attributes; such functions are listed separately and do not
fail the check. With --check the exit status is 1 when any other function is
over the limit (CI uses this); otherwise it is 0.
"""
import argparse
import os
import re
import sys

DEFAULT_DIRS = sorted(
    os.path.join("crates", c, "src")
    for c in (os.listdir("crates") if os.path.isdir("crates") else [])
    if os.path.isdir(os.path.join("crates", c, "src"))
)
TABLE = re.compile(r"^\s*// long-function: table\b")


def is_table(lines, start):
    """Whether the `// long-function: table` line stands above line `start`
    (0-based), among the doc comments and attributes right above it."""
    i = start - 1
    while i >= 0:
        text = lines[i].strip()
        if TABLE.match(lines[i]):
            return True
        if not (text.startswith("///") or text.startswith("#[") or text.startswith("//")):
            return False
        i -= 1
    return False
FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?((const|unsafe|async|extern\s+\"C\")\s+)*fn\s+(\w+)")


def code_only(line):
    """The line without string/char literals and // comments, for brace counting."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])'", "''", line)
    return line.split("//", 1)[0]


CFG_TEST = re.compile(r"^\s*#\[cfg\(test\)\]")


def item_end(lines, start):
    """The 0-based line where the item starting at `start` ends: its closing
    brace, or the line with its `;` when it has no body (`mod tests;`)."""
    depth, opened = 0, False
    for i in range(start, len(lines)):
        text = code_only(lines[i])
        if not opened and ";" in text and "{" not in text:
            return i
        depth += text.count("{") - text.count("}")
        opened = opened or "{" in text
        if opened and depth <= 0:
            return i
    return len(lines) - 1


def test_only_lines(lines):
    """The 0-based lines of every item marked `#[cfg(test)]`: a test module's
    whole body, a test-only function or impl. Everything else is scanned."""
    skip = set()
    i = 0
    while i < len(lines):
        if not CFG_TEST.match(lines[i]):
            i += 1
            continue
        first = i + 1
        while first < len(lines) and (lines[first].strip().startswith("#[")
                                      or lines[first].strip().startswith("//")
                                      or not lines[first].strip()):
            first += 1
        last = item_end(lines, first) if first < len(lines) else i
        skip.update(range(i, last + 1))
        i = last + 1
    return skip


def functions(path):
    """(name, first line, length, is a marked table) of every function in the
    file, outer and nested."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    end = len(lines)
    skip = test_only_lines(lines)
    found = []
    for start in range(end):
        if start in skip:
            continue
        m = FN.match(lines[start])
        if not m or lines[start].rstrip().endswith(";"):
            continue
        depth, opened = 0, False
        for i in range(start, end):
            text = code_only(lines[i])
            if not opened and ";" in text and "{" not in text:
                break  # a declaration without a body (trait method)
            depth += text.count("{") - text.count("}")
            opened = opened or "{" in text
            if opened and depth <= 0:
                found.append((m.group(5), start + 1, i - start + 1, is_table(lines, start)))
                break
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max", type=int, default=80)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("dirs", nargs="*", default=DEFAULT_DIRS)
    args = ap.parse_args()
    long, tables = [], []
    for top in args.dirs:
        if not os.path.isdir(top):
            print(f"long-functions.py: {top}: no such directory", file=sys.stderr)
            return 2
        for dirpath, _, files in os.walk(top):
            for name in sorted(files):
                if name.endswith(".rs"):
                    path = os.path.join(dirpath, name)
                    for n, s, k, table in functions(path):
                        if k > args.max:
                            (tables if table else long).append((n, path, s, k))
    for name, path, start, length in sorted(tables, key=lambda t: -t[3]):
        print(f"{length:5} lines  {name}  {path}:{start}  (marked as a table)")
    for name, path, start, length in sorted(long, key=lambda t: -t[3]):
        print(f"{length:5} lines  {name}  {path}:{start}")
    where = "every crate" if args.dirs == DEFAULT_DIRS else ", ".join(args.dirs)
    print(f"{len(long)} function(s) over {args.max} lines in {where}"
          f" (and {len(tables)} marked as tables)")
    return 1 if (args.check and long) else 0


if __name__ == "__main__":
    sys.exit(main())
