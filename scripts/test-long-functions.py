#!/usr/bin/env python3
"""Self-test of scripts/long-functions.py on a fixture crate: the check must
read whole files and skip only test modules (a `#[cfg(test)] mod` with its
body, and the file of a `#[cfg(test)] mod NAME;`), so a long function after
any other `#[cfg(test)]` item is still found. Exit status 1 on a failure.

    scripts/test-long-functions.py
"""
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "long-functions.py")


def body(n):
    """`n` lines of a function body."""
    return "".join(f"    let _x{i} = {i};\n" for i in range(n))


def long_fn(name, lines=12, prefix=""):
    return f"{prefix}fn {name}() {{\n{body(lines)}}}\n"


FIXTURE = {
    # A long function after a test-only function and a test-only use: found.
    "lib.rs": "#[cfg(test)]\nuse std::fmt;\n\n#[cfg(test)]\nfn helper() {}\n\n"
    + long_fn("after_a_test_item")
    + "\n#[cfg(test)]\n"
    + long_fn("test_only_but_not_a_module")
    + "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
    + long_fn("inside_the_test_module", prefix="    ")
    + "}\n\n"
    + long_fn("after_the_test_module")
    + "\n#[cfg(test)]\nmod more;\n\nmod part;\n"
    + "\n// long-function: table (one arm per option)\n"
    + long_fn("a_marked_table"),
    # The file of `#[cfg(test)] mod more;`: skipped whole.
    "more.rs": long_fn("in_a_test_module_file"),
    # The file of an ordinary module, with a test module of its own.
    "part.rs": "#[cfg(test)]\n#[allow(dead_code)]\nmod tests {\n"
    + long_fn("nested_test", prefix="    ")
    + "}\n"
    + long_fn("in_part"),
    "part/more.rs": long_fn("not_a_test_module_file"),
}

FOUND = ["after_a_test_item", "test_only_but_not_a_module", "after_the_test_module",
         "in_part", "not_a_test_module_file"]
SKIPPED = ["inside_the_test_module", "in_a_test_module_file", "nested_test"]


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        for name, text in FIXTURE.items():
            path = os.path.join(src, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        run = subprocess.run([sys.executable, SCRIPT, "--max", "10", "--check", src],
                             capture_output=True, text=True, check=False)
    listed = {line.split()[2]: line for line in run.stdout.splitlines() if " lines  " in line}
    if run.returncode != 1:
        failures.append(f"exit status {run.returncode}, expected 1")
    for name in FOUND:
        if name not in listed or "marked as a table" in listed[name]:
            failures.append(f"{name} is not listed as too long")
    for name in SKIPPED:
        if name in listed:
            failures.append(f"{name} (test code) is listed")
    if "marked as a table" not in listed.get("a_marked_table", ""):
        failures.append("a_marked_table is not listed as a table")
    if f"{len(FOUND)} function(s) over 10 lines" not in run.stdout:
        failures.append("the count of long functions is wrong")
    if failures:
        print("test-long-functions.py: " + "; ".join(failures), file=sys.stderr)
        print(run.stdout + run.stderr, file=sys.stderr)
        return 1
    print(f"test-long-functions.py: ok ({len(FOUND)} found, {len(SKIPPED)} skipped, 1 table)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
