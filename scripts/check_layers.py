#!/usr/bin/env python3
"""Checks that the engine's folders use each other in one direction only (docs/ARCHITECTURE.md).

Each Swift file's folder under Sources/Perimeter is a layer; a file may name types declared in its
own layer or in a layer below it, never above. Types are found by their declarations (struct, enum,
class, actor, protocol, typealias) and uses by capitalised words outside comments: coarse, but a use
of a type from the wrong layer shows up. Prints every upward use and exits 1 if there is one;
`--graph` prints the arrows between folders with the number of types behind each.
"""
import collections
import os
import re
import sys

# Bottom to top. A folder's subfolders belong to it (Geometry/PolygonLocator is Geometry).
LAYERS = ["Support", "Geometry", "Conditions", "Observations", "Approximation", "Events", "Profiles", "Authorization",
          "Index", "DeviceState", "Engine", "Live", "Ranging", "Monitor", "WhatIf"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "Perimeter")
DECLARATION = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate|final|indirect)\s+)*"
                         r"(?:struct|enum|class|actor|protocol|typealias)\s+(\w+)", re.M)


def layer(path):
    return os.path.relpath(path, ROOT).split(os.sep)[0]


def main():
    files = {}
    for directory, _, names in os.walk(ROOT):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as f:
                    files[path] = f.read()
    unknown = sorted({layer(p) for p in files} - set(LAYERS))
    if unknown:
        print(f"check_layers: folders not in LAYERS: {', '.join(unknown)}")
        return 1
    # A name may be declared in several layers (nested types: MonitoringEngine.Snapshot in Engine,
    # Monitor.Snapshot in Monitor); a use is upward only when no layer at or below the user's has it.
    declared = collections.defaultdict(set)
    for path, text in files.items():
        for match in DECLARATION.finditer(text):
            declared[match.group(1)].add(layer(path))
    arrows = collections.defaultdict(set)
    upward = []
    for path, text in files.items():
        code = re.sub(r"//.*", "", text)
        for word in set(re.findall(r"\b[A-Z]\w*\b", code)):
            homes = declared.get(word, set())
            here = LAYERS.index(layer(path))
            if not homes or layer(path) in homes:
                continue
            below = [h for h in homes if LAYERS.index(h) < here]
            if below:
                arrows[(layer(path), max(below, key=LAYERS.index))].add(word)
            else:
                home = min(homes, key=LAYERS.index)
                arrows[(layer(path), home)].add(word)
                upward.append(f"{os.path.relpath(path, ROOT)} uses {word} from {home}/")
    if "--graph" in sys.argv:
        for (source, target), words in sorted(arrows.items(), key=lambda a: (LAYERS.index(a[0][0]), LAYERS.index(a[0][1]))):
            print(f"{source} -> {target}: {len(words)} ({', '.join(sorted(words)[:6])}{', …' if len(words) > 6 else ''})")
    for line in sorted(upward):
        print("upward:", line)
    return 1 if upward else 0


if __name__ == "__main__":
    sys.exit(main())
