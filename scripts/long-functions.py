#!/usr/bin/env python3
"""List Rust functions longer than a limit (default 80 lines).

    scripts/long-functions.py [--max N] [--check] [DIR ...]

DIRs default to every crate's src/. Whole files are scanned; only test
modules are skipped: the body of a `#[cfg(test)] mod NAME { ... }`, wherever
it stands in the file, and the file of a `#[cfg(test)] mod NAME;` (NAME.rs or
NAME/mod.rs beside it). Any other item after a `#[cfg(test)]` (a test-only
function, impl or use) is scanned like the rest. A function's length runs
from its `fn` line to its closing brace. A function that is a table (one arm or one field per
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


MOD = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?mod\s+(\w+)\s*(;|\{|$)")


def after_attributes(lines, i):
    """The 0-based line of the item that the attribute at line `i` marks:
    the next line that is not an attribute, a comment or blank."""
    first = i + 1
    while first < len(lines) and (lines[first].strip().startswith("#[")
                                  or lines[first].strip().startswith("//")
                                  or not lines[first].strip()):
        first += 1
    return first


def test_modules(lines):
    """The 0-based lines of every test module's body in the file (a module
    marked `#[cfg(test)]`), and the names of the test modules declared
    without a body (`#[cfg(test)] mod tests;`, whose file is skipped)."""
    skip, files = set(), []
    for i, line in enumerate(lines):
        if not CFG_TEST.match(line):
            continue
        first = after_attributes(lines, i)
        m = MOD.match(lines[first]) if first < len(lines) else None
        if not m:
            continue  # a test-only function, impl or use: scanned
        if m.group(4) == ";":
            files.append(m.group(3))
            continue
        skip.update(range(i, item_end(lines, first) + 1))
    return skip, files


def module_files(path, names):
    """Where the files of the modules `names` declared in `path` lie."""
    d, stem = os.path.split(path)
    stem = stem[:-3]
    if stem not in ("mod", "lib", "main"):
        d = os.path.join(d, stem)
    out = []
    for n in names:
        out += [os.path.join(d, n + ".rs"), os.path.join(d, n, "mod.rs")]
    return [os.path.normpath(p) for p in out]


def read_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().split("\n")


def functions(path, lines=None):
    """(name, first line, length, is a marked table) of every function in the
    file outside its test modules, outer and nested."""
    lines = read_lines(path) if lines is None else lines
    end = len(lines)
    skip, _ = test_modules(lines)
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


def rust_files(dirs):
    """Every .rs file under `dirs`, in order."""
    for top in dirs:
        for dirpath, subdirs, files in os.walk(top):
            subdirs.sort()
            for name in sorted(files):
                if name.endswith(".rs"):
                    yield os.path.normpath(os.path.join(dirpath, name))


def scan(dirs, limit):
    """The functions over `limit` lines in `dirs`, outside test modules and
    their files: (not marked, marked as tables), each (name, path, first
    line, length)."""
    texts = {path: read_lines(path) for path in rust_files(dirs)}
    test_files = set()
    for path, lines in texts.items():
        test_files.update(module_files(path, test_modules(lines)[1]))
    long, tables = [], []
    for path, lines in texts.items():
        if path in test_files:
            continue
        for n, s, k, table in functions(path, lines):
            if k > limit:
                (tables if table else long).append((n, path, s, k))
    return long, tables


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max", type=int, default=80)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("dirs", nargs="*", default=DEFAULT_DIRS)
    args = ap.parse_args()
    for top in args.dirs:
        if not os.path.isdir(top):
            print(f"long-functions.py: {top}: no such directory", file=sys.stderr)
            return 2
    long, tables = scan(args.dirs, args.max)
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
