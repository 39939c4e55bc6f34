"""Does `migrate`'s static scan follow the code or the project's names? A metamorphic check on the labelled corpus.

Fresh blind trees are scarce (blind_corpus.py), and a tree a rule was fixed against no longer says how the scan does
on unseen code. This check makes unseen spellings out of the labelled trees instead: it copies each tree, renames
the identifiers the project itself defines (`#define NAME`, CMake `set`/`option`/`list`/`function`/`macro`,
make assignments, `-DNAME` in build files) and also reads, consistently in every file of the tree, and scores
the renamed copy against the same labels.
Renaming keeps every line where it was, so the labels' anchors still hold, and the naive-candidate count of
the original tree stays the denominator.

Variants:
- `prefix`: a project namespace (the first `_`-separated part shared by at least three defined names,
  `ROCPRIM_…`, `ck_…`) becomes a neutral one (`QZA_…`), the rest of each name kept. A rule that knows one
  project's names rather than the pattern loses findings here; the target is no change at all.
- `opaque`: every part of a defined name that is not a GPU name (`gfx90a`, `GFX9`, `RDNA3`) becomes a neutral
  token, so `PROJ_WAVE_SIZE` and `PROJ_GPU_TARGETS` lose the words a reader (or a rule) would go by. This
  measures how much the scan goes by such words; some reliance is expected, since a name is sometimes the
  only sign that a user-provided list holds GPU targets.

Names the tool is entitled to know are kept: anything spelled as a whole word in the plugin's sources or CMake
modules (GPU_TARGETS, CMAKE_HIP_ARCHITECTURES, Kokkos' public KOKKOS_ARCH_… names), names starting with `_`,
`CMAKE_`, `HIP_` or `__`, and names that are also file stems in the tree (a rename could break an include).
The corpus' trees are not held out (rules were fixed against many of them); what this measures is the
difference between a tree and its renamed copy, not recall on unseen code.

    PYTHONPATH=plugin python benchmarks/migrate_metamorphic.py [--cache DIR] [--variants prefix,opaque]
                                                               [--trees A,B] [--report-only]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from rocm_spirv.fsutil import write_atomic

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import blind_corpus  # noqa: E402
import migrate_sweep  # noqa: E402

RESULTS = HERE / "results"
PLUGIN = HERE.parent / "plugin" / "rocm_spirv"
CMAKE_MODULES = HERE.parent / "cmake"
VARIANTS = ("prefix", "opaque")

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
C_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
CMAKE_COMMAND = re.compile(r"^[ \t]*(?:function|macro)[ \t]*\([ \t]*([A-Za-z_]\w*)", re.M | re.I)
CMAKE_DEFINE = re.compile(
    r"^[ \t]*(?:(?:set|option|unset|function|macro)[ \t]*\([ \t]*"
    r"|list[ \t]*\([ \t]*(?:APPEND|PREPEND|INSERT|REMOVE_ITEM|REMOVE_DUPLICATES|FILTER|TRANSFORM)[ \t]+)"
    r"([A-Za-z_]\w*)", re.M | re.I)
BUILD_DEFINE = re.compile(r"(?<![A-Za-z0-9_])-D([A-Za-z_]\w*)")  # a macro a build file defines for the compile
MAKE_DEFINE = re.compile(r"^(?:export[ \t]+|override[ \t]+)?([A-Za-z_]\w*)[ \t]*(?::=|::=|\?=|\+=|=)", re.M)
GPU_PART = re.compile(r"(?i)^(?:gfx[0-9a-f]+x?|gfx|rdna\d*|cdna\d*|gcn\d*|navi\d*|mi\d+x?)$")
RESERVED = ("_", "CMAKE_", "HIP_", "cmake_")


def vocabulary() -> set[str]:
    """Every whole word of the plugin's Python and CMake sources: names the tool may know by name."""
    words: set[str] = set()
    for root, pattern in ((PLUGIN, "*.py"), (CMAKE_MODULES, "*.cmake"), (CMAKE_MODULES, "*.in")):
        for path in root.rglob(pattern):
            words.update(WORD.findall(path.read_text(errors="replace")))
    return words


def defined_names(root: Path) -> tuple[set[str], set[str], set[str]]:
    """(names the tree defines and also reads, the CMake commands among them, file stems of the tree).

    A name the tree defines but never reads is read outside it (`set(OpenMP_Fortran_FLAGS …)` in a toolchain
    file is FindOpenMP's input, `#define HIP_ENABLE_PRINTF` a header's): renaming it would change the program."""
    defined: Counter[str] = Counter()
    commands: set[str] = set()
    stems: set[str] = set()
    words: Counter[str] = Counter()
    folded: Counter[str] = Counter()  # CMake words, case folded: CMake calls a function in any case
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        stems.update(path.name.split("."))
        kind = blind_corpus.kind_of(path.name)
        text = path.read_text(errors="replace")
        found = WORD.findall(text)
        words.update(found)
        if kind in ("cmake", "make"):
            words.update(BUILD_DEFINE.findall(text))  # `-DNAME` reads as the word DNAME
        if kind == "source":
            defined.update(C_DEFINE.findall(text))
        elif kind == "cmake":
            defined.update(CMAKE_DEFINE.findall(text) + BUILD_DEFINE.findall(text))
            commands.update(CMAKE_COMMAND.findall(text))
            folded.update(w.lower() for w in found)
        elif kind == "make":
            defined.update(MAKE_DEFINE.findall(text) + BUILD_DEFINE.findall(text))
    by_fold: Counter[str] = Counter()
    for n, k in defined.items():
        by_fold[n.lower()] += k
    names = {n for n, k in defined.items() if (folded[n.lower()] > by_fold[n.lower()] if n in commands
                                                  else words[n] > k)}
    return names, commands & names, stems


def _neutral(seed: str, like: str) -> str:
    """A neutral token for seed, in like's case: Q and six consonants from a hash (20**6 tokens)."""
    h = hashlib.sha256(seed.encode()).digest()
    token = "Q" + "".join("BCDFGHJKLMNPQRSTVWXZ"[b % 20] for b in h[:6])
    return token.lower() if like.islower() else token


def renames(names: set[str], keep: set[str], variant: str) -> dict[str, str]:
    candidates = sorted(n for n in names if n not in keep and not n.startswith(RESERVED))
    out: dict[str, str] = {}
    if variant == "prefix":
        heads = Counter(n.split("_", 1)[0] for n in candidates if "_" in n.strip("_"))
        spaces = {h for h, k in heads.items() if k >= 3 and len(h) >= 2 and h not in keep and not GPU_PART.match(h)}
        for n in candidates:
            head, _, rest = n.partition("_")
            if rest and head in spaces:
                out[n] = f"{_neutral(head, head)}_{rest}"
    else:
        for n in candidates:
            parts = n.split("_")
            new = [p if (not p or GPU_PART.match(p) or p.isdigit()) else _neutral(n + p, p) for p in parts]
            if new != parts:
                out[n] = "_".join(new)
    # Two names made one would change the program; a hash collision is rare but must not pass unseen.
    if len(set(out.values())) != len(out) or set(out.values()) & names:
        raise SystemExit(f"rename collision in the {variant} table; change _neutral's alphabet")
    return out


def _name_rx(names: list[str], flags: int = 0) -> re.Pattern[str]:
    # A name counts where it stands alone or right after -D/-U (a compile definition); not inside a path
    # (before or after `.` or `/`), where it would be a file name.
    alternatives = "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
    return re.compile(r"(?:(?<=-D)|(?<=-U)|(?<![A-Za-z0-9_./]))(" + alternatives + r")(?![A-Za-z0-9_./])", flags)


def rewrite(text: str, table: dict[str, str], commands: set[str]) -> str:
    """table applied to text; CMake command names (function, macro) in any case, as CMake calls them."""
    plain = [n for n in table if n not in commands]
    if plain:
        text = _name_rx(plain).sub(lambda m: table[m.group(1)], text)
    folded = {n.lower(): table[n] for n in table if n in commands}
    if folded:
        text = _name_rx(list(folded), re.I).sub(lambda m: folded[m.group(1).lower()], text)
    return text


def renamed_copy(root: Path, dest: Path, table: dict[str, str], commands: set[str]) -> int:
    """Copy root to dest with table applied to every text file; returns the number of files that changed."""
    changed = 0
    for path in sorted(root.rglob("*")):
        target = dest / path.relative_to(root)
        if path.is_dir():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        raw = path.read_bytes()
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            shutil.copyfile(path, target)
            continue
        new = rewrite(text, table, commands)
        if new.count("\n") != text.count("\n"):  # never: renames stay on their line
            raise SystemExit(f"{path}: a rename changed the line count")
        changed += new != text
        target.write_text(new)
    return changed


def score_copy(name: str, root: Path, labels: dict[str, Any], naive: int) -> dict[str, Any]:
    row = blind_corpus.score_tree(name, root, labels)
    # The denominator is the original tree's naive count: a rename can move a name in or out of the grep.
    row["naive_candidates"] = naive
    row["false_positive_share_of_naive"] = row["false_positives"] / naive if naive else 0.0
    row.pop("unlabelled_candidates", None)
    return row


def run(cache: Path, variants: list[str], only: set[str] | None) -> dict[str, Any]:
    data = json.loads(blind_corpus.MANIFEST.read_text())
    labels = json.loads(blind_corpus.LABELS.read_text())["trees"]
    keep = vocabulary()
    rows: dict[str, list[dict[str, Any]]] = {"original": [], **{v: [] for v in variants}}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="migrate-metamorphic-") as scratch:
        for i, tree in enumerate(data["trees"]):
            name = tree["name"]
            if name not in labels or (only and name not in only):
                continue
            root = cache / name
            if not root.is_dir():
                print(f"{name}: not extracted under {cache}; run blind_corpus.py extract --tree {name}",
                      file=sys.stderr)
                continue
            base = blind_corpus.score_tree(name, root, labels[name])
            base.pop("unlabelled_candidates", None)
            rows["original"].append(base)
            names, commands, stems = defined_names(root)
            for v in variants:
                table = renames(names, keep | stems, v)
                dest = Path(scratch) / v / name
                changed = renamed_copy(root, dest, table, commands)
                row = score_copy(name, dest, labels[name], base["naive_candidates"])
                row["renamed_names"] = len(table)
                row["changed_files"] = changed
                row["renames"] = dict(sorted(table.items()))
                rows[v].append(row)
                shutil.rmtree(dest)
            print(f"[{i + 1}/{len(data['trees'])}] {name}", file=sys.stderr, flush=True)
    return {"schema": "rocm-spirv/benchmark-migrate-metamorphic/1", "plugin": migrate_sweep.plugin_commit(),
            "seconds": round(time.monotonic() - t0, 1),
            "totals": {k: blind_corpus._total(v) for k, v in rows.items()}, "trees": rows}


def differences(result: dict[str, Any], variant: str) -> list[dict[str, Any]]:
    base = {r["tree"]: r for r in result["trees"]["original"]}
    out = []
    for r in result["trees"][variant]:
        b = base[r["tree"]]
        lost = sorted(set(r["missed_list"]) - set(b["missed_list"]))
        new_fp = sorted(set(r["false_positive_list"]) - set(b["false_positive_list"]))
        gone_fp = sorted(set(b["false_positive_list"]) - set(r["false_positive_list"]))
        found = sorted(set(b["missed_list"]) - set(r["missed_list"]))
        if lost or new_fp or gone_fp or found:
            out.append({"tree": r["tree"], "lost": lost, "found": found, "new_false_positives": new_fp,
                        "gone_false_positives": gone_fp, "renamed_names": r["renamed_names"]})
    return out


def markdown(result: dict[str, Any]) -> str:
    lines = ["# migrate static scan: renamed copies of the labelled corpus", "",
             "Generated by `benchmarks/migrate_metamorphic.py`. Each labelled tree is scored as it is and as a copy",
             "whose project-defined names are renamed (see the script's docstring). The trees are not held out: the",
             "figures say how much the findings depend on the project's names, not how the scan does on unseen code.",
             "", f"Plugin of {result.get('plugin', 'unknown')}; {result['seconds']} s for all variants.", "",
             "| variant | trees | renamed names | recall | false positives / naive | trees that differ |",
             "|---|---|---|---|---|---|"]
    for k, t in result["totals"].items():
        trees = result["trees"][k]
        nren = sum(r.get("renamed_names", 0) for r in trees)
        diff = len(differences(result, k)) if k != "original" else 0
        lines.append(f"| {k} | {len(trees)} | {nren if k != 'original' else 'n/a'} | {100 * t['recall']:.1f} % "
                     f"({t['true_positives']}/{t['constructs']}) | {100 * t['false_positive_share_of_naive']:.1f} % "
                     f"({t['false_positives']}/{t['naive_candidates']}) | {diff if k != 'original' else 'n/a'} |")
    for k in result["trees"]:
        if k == "original":
            continue
        diffs = differences(result, k)
        lines += ["", f"## {k}: trees whose findings changed", ""]
        if not diffs:
            lines.append("None.")
        for d in diffs:
            lines.append(f"- **{d['tree']}** ({d['renamed_names']} names renamed)")
            for key, what in (("lost", "construct no longer found"), ("found", "construct found only renamed"),
                              ("new_false_positives", "new false positive"),
                              ("gone_false_positives", "false positive gone")):
                for item in d[key]:
                    lines.append(f"  - {what}: `{item}`")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--cache", type=Path, default=blind_corpus.default_cache())
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--trees", default=None, help="comma-separated tree names (default: every labelled tree)")
    ap.add_argument("--report-only", action="store_true", help="rewrite the Markdown from the JSON")
    args = ap.parse_args()
    out = RESULTS / "migrate_metamorphic.json"
    if args.report_only:
        result = json.loads(out.read_text())
    else:
        variants = [v for v in args.variants.split(",") if v]
        bad = [v for v in variants if v not in VARIANTS]
        if bad:
            print(f"error: unknown variant {', '.join(bad)}; use {', '.join(VARIANTS)}", file=sys.stderr)
            return 2
        result = run(args.cache, variants, set(args.trees.split(",")) if args.trees else None)
        for v in variants:  # the rename tables of the trees that changed only: enough to reproduce, small to keep
            changed = {d["tree"] for d in differences(result, v)}
            for row in result["trees"][v]:
                if row["tree"] not in changed:
                    del row["renames"]
        write_atomic(out, json.dumps(result, indent=1) + "\n")
    write_atomic(RESULTS / "migrate_metamorphic.md", markdown(result))
    for k, t in result["totals"].items():
        print(f"{k}: recall {t['true_positives']}/{t['constructs']}, false positives {t['false_positives']} "
              f"of {t['naive_candidates']} naive")
    return 0


if __name__ == "__main__":
    sys.exit(main())
