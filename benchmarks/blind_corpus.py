"""A blind corpus for `rocm-spirv migrate`'s static scan: real HIP code no rule was written against.

The files come from public repositories at pinned commits (data/blind_corpus.json: upstream, commit,
path, sha256 per file). They are never committed here: `extract` copies them out of a local git mirror
(the repository cloned or fetched anywhere, `--mirror OWNER/NAME=GIT_DIR`, default
/work/.mirror/OWNER+NAME/repo) into a cache folder and checks every sha256.

    PYTHONPATH=plugin python benchmarks/blind_corpus.py extract    [--cache DIR] [--mirror R=DIR ...] [--tree NAME]
    PYTHONPATH=plugin python benchmarks/blind_corpus.py candidates [--cache DIR] [--tree NAME]
    PYTHONPATH=plugin python benchmarks/blind_corpus.py score      [--cache DIR] [--label TEXT]
    PYTHONPATH=plugin python benchmarks/blind_corpus.py trial      --out FILE [--cache DIR] [--trees A,B]
    python benchmarks/blind_corpus.py diff OLD NEW

`candidates` lists the naive scanner's lines (no rule of migrate runs): the lines a person labels yes/no
in data/blind_labels.json before `score` is ever run. A naive candidate is what benchmarks/migrate_precision.py
counts (arch macros, the wavefront macro, asm, warpSize, feature builtins, `__has_builtin(__builtin_amdgcn_…)`
in sources; gfx names, arch flags, `-amdgpu-` options and target-list variables in CMake lines), plus the
tokens a maintainer greps for first: `gfx…`/`GFX…` anywhere in a source line (project arch macros such as
`ROCWMMA_ARCH_GFX9`), `__AMDGCN…`, `__builtin_amdgcn_…`, wave/warp-size spellings (`WarpSize`,
`WAVE_SIZE`, `wave_size`), and the same CMake grep on Makefiles (`Makefile`, `Makefile.<name>`,
`Makefile_<name>`, `*.mk`). Comments and string literals are blanked first, as in migrate_precision.py.

`score` runs the scan on each extracted tree and counts, per tree, the findings the report lists (not those
it counts as handled or suppressed): a finding is true when its path and
line are a labelled construct's anchor (the line where the tool reports the command or directive that
carries the construct), once per construct; any other finding is false. Recall over the constructs,
false positives as a share of the naive candidates. Writes results/migrate_blind.{json,md} (appending the
run under --label, so a before and an after stay side by side).

`trial` is the regression check for a rule change, never a measurement: it scores every labelled tree (none
of them held out once a rule was fixed against it) and writes each tree's findings and figures to FILE, outside
results/. `diff OLD NEW` names the findings that appeared or went away between two trials and the totals of
each, so "findings on all labelled trees identical" is a command, not a claim.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "data" / "blind_corpus.json"
LABELS = HERE / "data" / "blind_labels.json"
RESULTS = HERE / "results"
RECALL_TARGET = 0.95
FP_TARGET = 0.05


def default_cache() -> Path:
    return Path.home() / ".cache" / "rocm-spirv" / "benchmarks" / "blind"


def _mirror(upstream: str, mirrors: dict[str, Path]) -> Path:
    repo = mirrors.get(upstream, Path("/work/.mirror") / upstream.replace("/", "+") / "repo")
    return repo / ".git" if (repo / ".git").is_dir() else repo  # a snapshot with a work tree keeps its git dir in .git


def extract(cache: Path, mirrors: dict[str, Path], only: str | None = None) -> int:
    data = json.loads(MANIFEST.read_text())
    for tree in data["trees"]:
        if only not in (None, tree["name"]):
            continue
        git = _mirror(tree["upstream"], mirrors)
        root = cache / tree["name"]
        for f in tree["files"]:
            proc = subprocess.run(["git", "--git-dir", str(git), "show", f"{tree['commit']}:{f['path']}"],
                                  capture_output=True, check=False)
            if proc.returncode != 0:
                print(f"blind_corpus: {tree['upstream']}@{tree['commit'][:12]}:{f['path']} is not in {git}; "
                      f"clone https://github.com/{tree['upstream']} and pass --mirror "
                      f"{tree['upstream']}=<its .git>", file=sys.stderr)
                return 2
            got = hashlib.sha256(proc.stdout).hexdigest()
            if got != f["sha256"]:
                print(f"blind_corpus: {f['path']}: sha256 {got} is not the pinned {f['sha256']}", file=sys.stderr)
                return 2
            out = root / f["path"]
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(proc.stdout)
        print(f"{tree['name']}: {len(tree['files'])} files in {root}")
    return 0


# --- the naive scanner ------------------------------------------------------------------------------------

def _naive_source() -> list[re.Pattern[str]]:
    from rocm_spirv.migrate.pp import ARCH_MACRO
    from rocm_spirv.migrate.source_checks.amdgcn_builtins import FEATURE_BUILTIN, HAS_BUILTIN
    from rocm_spirv.migrate.source_checks.asm import INLINE_ASM
    from rocm_spirv.migrate.source_checks.wave_size import WAVEFRONT
    extra = re.compile(r"gfx[0-9]|GFX[0-9]|__AMDGCN|__builtin_amdgcn_"
                       r"|\b\w*(?:[Ww]arp|[Ww]ave|WARP|WAVE)_?(?:[Ff]ront_?)?(?:[Ss]ize|SIZE)\w*\b")
    return [ARCH_MACRO, WAVEFRONT, INLINE_ASM, re.compile(r"\bwarpSize\b"), FEATURE_BUILTIN, HAS_BUILTIN, extra]


NAIVE_CMAKE = re.compile(
    r"gfx[0-9]|--offload-arch|--cuda-gpu-arch|--?amdgpu-target|-mcpu=|-amdgpu-"
    r"|\b(GPU_TARGETS|AMDGPU_TARGETS|CMAKE_HIP_ARCHITECTURES|HIP_ARCHITECTURES|HCC_AMDGPU_TARGET|GPU_ARCHS"
    r"|PYTORCH_ROCM_ARCH)\b|\w*(SUPPORTED|VALID|ALLOWED|KNOWN)\w*", re.IGNORECASE)


def kind_of(name: str) -> str | None:
    from rocm_spirv.migrate.walk import CMAKELISTS_VARIANT, classify
    if name.startswith("Makefile.") or name.endswith(".mk"):
        return "make"
    if name != "CMakeLists.txt" and name.startswith(CMAKELISTS_VARIANT):
        # The naive grep keeps the file names it had when the trees were labelled: a CMakeLists_<name>.txt the
        # scan reads since batch 178 is labelled by extra labels, so labelled trees keep their candidates.
        return None
    return classify(name)


def candidates(root: Path) -> list[tuple[str, int, str]]:
    """(path, line, text) of every naive candidate under root, in path order."""
    from rocm_spirv.migrate.source_rules import strip
    from rocm_spirv.migrate.walk import SCRIPT_KINDS
    source = _naive_source()
    out: list[tuple[str, int, str]] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        kind = kind_of(path.name)
        text = path.read_text(errors="replace")
        raw = text.splitlines()
        if kind == "source":
            for i, line in enumerate(strip(text).splitlines()):
                if any(rx.search(line) for rx in source):
                    out.append((rel, i + 1, raw[i].strip()))
        elif kind in ("cmake", "make") or kind in SCRIPT_KINDS:
            for i, line in enumerate(raw):
                if NAIVE_CMAKE.search(line.split("#", 1)[0]):
                    out.append((rel, i + 1, line.strip()))
    return out


# --- scoring ------------------------------------------------------------------------------------------------

def score_tree(name: str, root: Path, labels: dict[str, Any]) -> dict[str, Any]:
    from rocm_spirv.migrate.scan import scan
    cands = candidates(root)
    labelled = {(c["path"], c["line"]) for c in labels["candidates"]}
    unlabelled = [f"{p}:{n}" for p, n, _ in cands if (p, n) not in labelled]
    truth: dict[tuple[str, int], str] = {}
    for c in labels["candidates"]:
        if c["yes"]:
            truth.setdefault((c["path"], c.get("anchor", c["line"])), c["why"])
    # What the report lists (text, table, SARIF): findings the scan marks handled or suppressed are only
    # counted there, so they are neither true nor false here. (Until 2026-12-04 every finding was scored;
    # batches 3 to 5 held no handled or suppressed finding at the rules of that day, so their figures do
    # not move.)
    findings = [(f.path, f.line, f.rule.id) for f in scan(root, []).result.remaining]
    seen: set[tuple[str, int]] = set()
    fp: list[str] = []
    for p, n, rule in findings:
        if (p, n) in truth and (p, n) not in seen:
            seen.add((p, n))
        else:
            fp.append(f"{p}:{n} {rule}")
    missed = [f"{p}:{n} ({why})" for (p, n), why in sorted(truth.items()) if (p, n) not in seen]
    return {
        "tree": name, "naive_candidates": len(cands), "unlabelled_candidates": unlabelled,
        "constructs": len(truth), "findings": len(findings), "true_positives": len(seen),
        "false_positives": len(fp), "missed": len(missed),
        "recall": len(seen) / len(truth) if truth else 1.0,
        "false_positive_share_of_naive": len(fp) / len(cands) if cands else 0.0,
        "false_positive_list": fp, "missed_list": missed,
        "finding_list": [f"{p}:{n} {rule}" for p, n, rule in findings],  # trial keeps it; score drops it
    }


def trial(cache: Path, out: Path, only: set[str] | None = None) -> int:
    data = json.loads(MANIFEST.read_text())
    labels = json.loads(LABELS.read_text())["trees"]
    rows = []
    for tree in data["trees"]:
        root = cache / tree["name"]
        if tree["name"] not in labels or (only is not None and tree["name"] not in only):
            continue
        if not root.is_dir():
            print(f"blind_corpus: {root} is missing; run `blind_corpus.py extract` first", file=sys.stderr)
            return 2
        rows.append(score_tree(tree["name"], root, labels[tree["name"]]))
    total = _total(rows)
    out.write_text(json.dumps({"trees": rows, "total": total}, indent=1) + "\n")
    print(f"{len(rows)} trees: recall {total['recall']:.1%} ({total['true_positives']} of {total['constructs']}), "
          f"false positives {total['false_positive_share_of_naive']:.1%} ({total['false_positives']} of "
          f"{total['naive_candidates']}); written to {out}")
    return 0


def diff(old: Path, new: Path) -> int:
    """Exit 0 when every tree's findings are the same in both trials, 1 when any differ."""
    a = {r["tree"]: r for r in json.loads(old.read_text())["trees"]}
    b = {r["tree"]: r for r in json.loads(new.read_text())["trees"]}
    changed = 0
    for name in sorted(a.keys() | b.keys()):
        fa = set(a.get(name, {}).get("finding_list", []))
        fb = set(b.get(name, {}).get("finding_list", []))
        if name not in a or name not in b:
            print(f"{name}: only in {'new' if name in b else 'old'}")
            changed += 1
            continue
        if fa != fb:
            changed += 1
            ta, tb = a[name], b[name]
            print(f"{name}: true {ta['true_positives']} -> {tb['true_positives']}, "
                  f"false {ta['false_positives']} -> {tb['false_positives']}")
            for f in sorted(fa - fb):
                print(f"  - {f}")
            for f in sorted(fb - fa):
                print(f"  + {f}")
    for label, path in (("old", old), ("new", new)):
        t = json.loads(path.read_text())["total"]
        print(f"{label}: recall {t['recall']:.1%} ({t['true_positives']} of {t['constructs']}), false positives "
              f"{t['false_positive_share_of_naive']:.1%} ({t['false_positives']} of {t['naive_candidates']})")
    print(f"{changed} tree{'s' if changed != 1 else ''} changed")
    return 1 if changed else 0


def _total(rows: list[dict[str, Any]]) -> dict[str, Any]:
    t: dict[str, Any] = {"tree": "all"}
    for k in ("naive_candidates", "constructs", "findings", "true_positives", "false_positives", "missed"):
        t[k] = sum(r[k] for r in rows)
    t["recall"] = t["true_positives"] / t["constructs"] if t["constructs"] else 1.0
    t["false_positive_share_of_naive"] = t["false_positives"] / t["naive_candidates"] if t["naive_candidates"] else 0
    t["met"] = all(r["recall"] >= RECALL_TARGET and r["false_positive_share_of_naive"] <= FP_TARGET
                   for r in [*rows, t])
    return t


def _row(r: dict[str, Any]) -> str:
    return (f"| {r['tree']} | {r['naive_candidates']} | {r['constructs']} | {r['findings']} | {r['true_positives']} "
            f"| {r['false_positives']} | {r['missed']} | {r['recall']:.1%} "
            f"| {r['false_positive_share_of_naive']:.1%} |")


NOTE_RULES = ("RSM120",)  # a note that a HIP target is not yet handed to rocm_spirv_target(): no per-arch claim


def _without_notes(run: dict[str, Any]) -> list[str]:
    """A second view of a run's false positives, the RSM120 notes left out. The scored figure above counts
    them (as every finding the report lists); this line says how much of it they are, so a thin tree failing
    on one note reads as that."""
    def notes(r: dict[str, Any]) -> int:
        return sum(fp.rsplit(" ", 1)[-1] in NOTE_RULES for fp in r["false_positive_list"])
    total = sum(notes(r) for r in run["trees"])
    if not total:
        return []
    def share(r: dict[str, Any], n: int) -> float:
        return (r["false_positives"] - n) / r["naive_candidates"] if r["naive_candidates"] else 0.0
    met = all(r["recall"] >= RECALL_TARGET and share(r, notes(r)) <= FP_TARGET for r in run["trees"]) and \
        run["total"]["recall"] >= RECALL_TARGET and share(run["total"], total) <= FP_TARGET
    return [f"Without the {total} RSM120 note{'s' if total > 1 else ''} among them (a HIP target not yet handed to "
            f"rocm_spirv_target(), no per-arch claim), false positives are {share(run['total'], total):.1%} of "
            f"the naive candidates; targets met per tree and overall that way: {'yes' if met else 'no'}. The "
            "scored figure is the one above.", ""]


def _on_trap_lines(run: dict[str, Any], labels: dict[str, Any]) -> list[str]:
    """A third view: the false positives on trap lines (naive candidates labelled no), the measure issue 29
    describes ("of its findings on trap lines, how many are false"). Findings on lines no naive grep flags (an
    RSM120 note at add_executable) are left out of it; the scored figure above counts them. Read with the labels
    as they stand now."""
    counts = {r["tree"]: _trap_fps(r, labels) for r in run["trees"]}
    total = sum(counts.values())
    if total == run["total"]["false_positives"]:
        return []
    def share(n: int, r: dict[str, Any]) -> float:
        return n / r["naive_candidates"] if r["naive_candidates"] else 0.0
    met = all(r["recall"] >= RECALL_TARGET and share(counts[r["tree"]], r) <= FP_TARGET for r in run["trees"]) and \
        run["total"]["recall"] >= RECALL_TARGET and share(total, run["total"]) <= FP_TARGET
    return [f"On trap lines (naive candidates labelled no: the measure issue 29 describes) the scan made {total} of "
            f"these false positives, {share(total, run['total']):.1%} of the naive candidates; targets met per tree "
            f"and overall that way: {'yes' if met else 'no'}. The scored figure is the one above.", ""]


# A batch's one blind run: "blind batch 41 (…), rules at …" (early runs: "blind batch 2: …", "batch 8 blind (…)")
FIRST_SCORE = re.compile(r"^(?:blind batch (\d+)\b|batch (\d+) blind\b)")


def _trap_fps(r: dict[str, Any], labels: dict[str, Any]) -> int:
    no = {(c["path"], c["line"]) for c in labels.get(r["tree"], {}).get("candidates", []) if not c["yes"]}
    return sum((fp.rsplit(":", 1)[0], int(fp.rsplit(":", 1)[1].split()[0])) in no for fp in r["false_positive_list"])


def pooled(runs: list[dict[str, Any]], labels: dict[str, Any]) -> list[str]:
    """Each batch's first (blind) score pooled over windows of batches: thin batches swing one construct or one
    note from met to not met, so the pooled figures say what the per-batch rows average to. Later rescoring of a
    batch (after fixes) is never pooled here."""
    first: dict[int, dict[str, Any]] = {}
    for run in runs:
        m = FIRST_SCORE.match(run["label"])
        if m is not None:
            first.setdefault(int(m.group(1) or m.group(2)), run)
    if not first:
        return []
    last = max(first)
    out = ["## Pooled blind first scores", "",
           "Each batch's one blind run (labels committed before migrate ran on it), summed over its trees; "
           "rescoring after fixes is not pooled.", "",
           "| batches | batches scored | trees | constructs | recall | naive candidates | false positives | "
           "on trap lines | met overall (batches) |", "|---|---|---|---|---|---|---|---|---|"]
    for lo, hi in dict.fromkeys(((min(first), last), (max(41, min(first)), last), (max(last - 9, min(first)), last))):
        sel = [first[b] for b in sorted(first) if lo <= b <= hi]
        if not sel:
            continue
        rows = [r for run in sel for r in run["trees"]]
        t = _total(rows)
        traps = sum(_trap_fps(r, labels) for r in rows)
        met = sum(run["total"]["recall"] >= RECALL_TARGET and
                  run["total"]["false_positive_share_of_naive"] <= FP_TARGET for run in sel)
        out.append(f"| {lo}-{hi} | {len(sel)} | {len(rows)} | {t['constructs']} | {t['recall']:.1%} "
                   f"({t['true_positives']}) | {t['naive_candidates']} | {t['false_positive_share_of_naive']:.1%} "
                   f"({t['false_positives']}) | {traps / t['naive_candidates'] if t['naive_candidates'] else 0:.1%} "
                   f"({traps}) | {met} of {len(sel)} |")
    return [*out, "", f"Targets: recall >= {RECALL_TARGET:.0%}, false positives <= {FP_TARGET:.0%} of the naive "
            "candidates. Trap lines: naive candidates labelled no, read with the labels as they stand now.", ""]


def markdown(runs: list[dict[str, Any]], data: dict[str, Any]) -> str:
    labels = json.loads(LABELS.read_text())["trees"] if LABELS.is_file() else {}
    out = ["# migrate static scan on a blind corpus", "",
           "`PYTHONPATH=plugin python benchmarks/blind_corpus.py score --label …`; files in "
           "`benchmarks/data/blind_corpus.json` (upstream, commit, sha256), labels in "
           "`benchmarks/data/blind_labels.json` (every naive candidate yes/no with a reason).", "",
           data.get("about", ""), ""]
    out += pooled(runs, labels)
    for run in runs:
        out += [f"## {run['label']}", "", run.get("held_out", ""), "",
                "| tree | naive candidates | constructs | findings | true | false | missed | recall | FP / naive |",
                "|---|---|---|---|---|---|---|---|---|",
                *(_row(r) for r in [*run["trees"], run["total"]]), "",
                f"Targets: recall >= {RECALL_TARGET:.0%}, false positives <= {FP_TARGET:.0%} of the naive "
                f"candidates, per tree and overall. Met: {'yes' if run['total']['met'] else 'no'}.", ""]
        out += _without_notes(run)
        out += _on_trap_lines(run, labels)
        by_rule: dict[str, int] = {}
        for r in run["trees"]:
            for fp in r["false_positive_list"]:
                by_rule[fp.rsplit(" ", 1)[-1]] = by_rule.get(fp.rsplit(" ", 1)[-1], 0) + 1
        if by_rule:
            out += ["False positives by rule: " + ", ".join(f"{k} {v}" for k, v in sorted(by_rule.items())) + ". "
                    "(RSM120 is a note and RSM103 at find_package(hip) is handled by the toolchain file: retargeting "
                    "bookkeeping on lines no naive grep flags, not per-arch constructs by the labels' definition.)", ""]
        for r in run["trees"]:
            for label, key in (("false positives", "false_positive_list"), ("missed", "missed_list")):
                if r[key]:
                    out.append(f"- {r['tree']}, {label}: {'; '.join(r[key])}")
        out.append("")
    return "\n".join(out) + "\n"


def score(cache: Path, label: str, held_out: str, only: set[str] | None = None) -> int:
    data = json.loads(MANIFEST.read_text())
    labels = json.loads(LABELS.read_text())
    rows = []
    for tree in data["trees"]:
        root = cache / tree["name"]
        if only is not None and tree["name"] not in only:
            continue
        if not root.is_dir():
            print(f"blind_corpus: {root} is missing; run `blind_corpus.py extract` first", file=sys.stderr)
            return 2
        if tree["name"] not in labels["trees"]:
            continue  # extracted but not labelled yet: never scored before its labels are committed
        rows.append(score_tree(tree["name"], root, labels["trees"][tree["name"]]))
    for r in rows:
        del r["finding_list"]
        if r["unlabelled_candidates"]:
            print(f"blind_corpus: {r['tree']}: {len(r['unlabelled_candidates'])} candidates are not labelled "
                  f"(first {r['unlabelled_candidates'][0]})", file=sys.stderr)
            return 2
    run = {"label": label, "held_out": held_out, "trees": rows, "total": _total(rows)}
    out = RESULTS / "migrate_blind.json"
    runs = json.loads(out.read_text())["runs"] if out.is_file() else []
    runs = [r for r in runs if r["label"] != label] + [run]
    RESULTS.mkdir(exist_ok=True)
    out.write_text(json.dumps({"runs": runs}, indent=2) + "\n")
    md = markdown(runs, data)
    (RESULTS / "migrate_blind.md").write_text(md)
    print(md)
    return 0 if run["total"]["met"] else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("extract", "candidates", "score", "trial", "diff"))
    parser.add_argument("files", nargs="*", type=Path, help="diff: OLD NEW trial files")
    parser.add_argument("--out", type=Path, help="trial: where to write the findings")
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--mirror", action="append", default=[], help="OWNER/NAME=GIT_DIR")
    parser.add_argument("--tree", help="extract, candidates: only this tree")
    parser.add_argument("--label", default="current rules", help="score: the run's name in the results")
    parser.add_argument("--held-out", default="", help="score: how the labels relate to the rules measured")
    parser.add_argument("--trees", help="score, trial: only these trees (comma-separated names)")
    args = parser.parse_args()
    if args.action == "extract":
        return extract(args.cache, dict((m.split("=", 1)[0], Path(m.split("=", 1)[1])) for m in args.mirror),
                       args.tree)
    if args.action == "candidates":
        for tree in json.loads(MANIFEST.read_text())["trees"]:
            if args.tree in (None, tree["name"]):
                for p, n, text in candidates(args.cache / tree["name"]):
                    print(f"{tree['name']}\t{p}\t{n}\t{text}")
        return 0
    if args.action == "trial":
        if args.out is None:
            parser.error("trial needs --out FILE")
        return trial(args.cache, args.out, set(args.trees.split(",")) if args.trees else None)
    if args.action == "diff":
        if len(args.files) != 2:
            parser.error("diff needs OLD NEW")
        return diff(*args.files)
    return score(args.cache, args.label, args.held_out, set(args.trees.split(",")) if args.trees else None)


if __name__ == "__main__":
    sys.exit(main())
