#!/usr/bin/env python3
"""Checks that #include lines run one way between flowlab's layers and folders.

The order is read from docs/ARCHITECTURE.md, from the fenced block marked
```layers: each line is `FOLDER: A B C ...`, the folder's parts from the
bottom up (`.` stands for the files directly in FOLDER). A file in part X may
include its own part and the parts before X in that line, never one after it.
A part not named in its folder's line counts as the folder's own.

    scripts/check-includes.py [ROOT]     exit 0: clean; 1: the wrong includes, one a line

`make test` runs it (ctest: include_order).
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_order(arch_path):
    text = open(arch_path, encoding="utf-8").read()
    block = re.search(r"```layers\n(.*?)```", text, re.S)
    if not block:
        sys.exit(f"{arch_path}: no ```layers block with the include order")
    order = {}
    for line in block.group(1).splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        folder, _, parts = line.partition(":")
        order[folder.strip()] = parts.split()
    return order


def rank_of(path, order):
    """(folder, rank) pairs for every ordered folder `path` lies in, outermost first."""
    ranks = []
    for folder, parts in order.items():
        prefix = folder + "/"
        if not path.startswith(prefix):
            continue
        rest = path[len(prefix):]
        part = rest.split("/", 1)[0] if "/" in rest else "."
        if part in parts:
            ranks.append((folder, parts.index(part), part))
    return ranks


def check(root):
    order = read_order(os.path.join(root, "docs", "ARCHITECTURE.md"))
    problems = []
    src = os.path.join(root, "src")
    for dirpath, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".h", ".cpp", ".c")):
                continue
            full = os.path.join(dirpath, name)
            here = "src/" + os.path.relpath(full, src)
            here_ranks = {f: (r, p) for f, r, p in rank_of(here, order)}
            with open(full, encoding="utf-8", errors="replace") as fh:
                for lineno, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = "src/" + m.group(1)
                    for folder, rank, part in rank_of(target, order):
                        if folder not in here_ranks:
                            continue
                        my_rank, my_part = here_ranks[folder]
                        if rank > my_rank:
                            problems.append(
                                f"{here}:{lineno}: includes {m.group(1)}: {folder}/{part} "
                                f"comes after {folder}/{my_part} in the order of docs/ARCHITECTURE.md")
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = check(os.path.abspath(root))
    for p in problems:
        print(p)
    if problems:
        print(f"check-includes: {len(problems)} include(s) against the layer order")
        return 1
    print("check-includes: every include runs down the layer order")
    return 0


if __name__ == "__main__":
    sys.exit(main())
