"""Run `rocm-spirv migrate --check --json` on whole public repositories, one process each, and record what a
maintainer would hit: exit status, tracebacks, time, memory, files the scan refused.

The blind corpus (blind_corpus.py) scores picked files against labels; this sweep takes every file of each
repository's HEAD as it is (vendored copies, test data, odd encodings, symlinks, huge files), with no labels, so
it measures robustness and speed only: no figure here says whether a finding is right. Each repository is
`git archive`d from a local bare mirror (the search tool's `fetch` puts them under /work/.mirror/OWNER+NAME/repo;
CI cannot fetch, so this is a benchmark, not a test) into a scratch directory that is removed afterwards.

Targets: every run exits 0 or 1 (2 only with its one line, never a traceback), within the timeout, with a
peak RSS under 1 GiB.

    PYTHONPATH=plugin python benchmarks/migrate_sweep.py [--mirrors DIR] [--limit N] [--timeout S] [--report-only]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import rocm_spirv
from rocm_spirv.fsutil import write_atomic

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
TIMEOUT_S = 300.0
RSS_TARGET_MIB = 1024.0  # bounded memory: a whole repository, findings kept, under 1 GiB


def repositories(mirrors: Path) -> list[tuple[str, Path]]:
    """(owner/name, bare git dir) of every mirror, by name."""
    out = []
    for d in sorted(mirrors.iterdir()):
        git = d / "repo"
        if (git / "HEAD").is_file() and "+" in d.name:
            out.append((d.name.replace("+", "/", 1), git))
    return out


def extract(git: Path, dest: Path) -> tuple[str, int, int]:
    """HEAD of git into dest: (commit, files, bytes). Entries tar cannot create here are skipped, not fatal."""
    commit = subprocess.run(["git", "--git-dir", str(git), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    archive = subprocess.Popen(["git", "--git-dir", str(git), "archive", "--format=tar", commit],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    subprocess.run(["tar", "-x", "-C", str(dest), "--no-same-owner", "--warning=none"], stdin=archive.stdout,
                   stderr=subprocess.DEVNULL, check=False)
    assert archive.stdout is not None
    archive.stdout.close()
    archive.wait()
    files = size = 0
    for root, _dirs, names in os.walk(dest):
        for n in names:
            p = os.path.join(root, n)
            if not os.path.islink(p):
                files += 1
                size += os.path.getsize(p)
    return commit, files, size


def run_scan(root: Path, timeout: float, plugin: Path) -> dict[str, Any]:
    """One `rocm-spirv migrate ROOT --check --json` process with the plugin copied to `plugin` at the start (an
    edit to the checkout during the hour-long run does not mix two versions): exit, wall, CPU (user + system),
    peak RSS, and what its JSON says."""
    t0 = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(plugin)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen([sys.executable, "-m", "rocm_spirv", "migrate", str(root), "--check", "--json"],
                                 stdout=out, stderr=err, start_new_session=True, env=env)
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                os.killpg(child.pid, 9)
                _, status, usage = os.wait4(child.pid, 0)
                break
            time.sleep(0.05)
        wall = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    row: dict[str, Any] = {"exit": code, "wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
                           "maxrss_mib": round(usage.ru_maxrss / 1024, 1), "timed_out": wall > timeout,
                           "traceback": "Traceback" in stderr,
                           "stderr_last": (stderr.strip().splitlines() or [""])[-1]}
    try:
        doc = json.loads(stdout)
    except ValueError:
        row.update(findings=None, errors=None, scanned=None)
        return row
    summary = doc.get("summary", {})
    errors = doc.get("errors", [])
    row.update(findings=len(doc.get("findings", [])), scanned=summary.get("files_scanned"),
               errors=len(errors), error_kinds=sorted({_kind(e) for e in errors}))
    return row


def _kind(error: Any) -> str:
    """An error's message without its path and numbers: the kind of refusal (size cap, nesting, decoding)."""
    text = error.get("message", str(error)) if isinstance(error, dict) else str(error)
    return "".join(c for c in text.split(": ", 1)[-1] if not c.isdigit())[:80]


def markdown(result: dict[str, Any]) -> str:
    rows = [r for r in result["repositories"] if "extract_error" not in r]
    unextracted = [r for r in result["repositories"] if "extract_error" in r]
    ok = [r for r in rows if r.get("exit") in (0, 1)]
    rate = [r["scanned"] / r["wall_s"] for r in ok if r.get("scanned") and r["wall_s"] > 0]
    bad = [r for r in rows if r.get("exit") not in (0, 1) or r.get("traceback") or r.get("timed_out")
           or r.get("findings") is None]
    s = result["summary"]
    md = ["# migrate on whole repositories (robustness and speed, no labels)", "",
          "`PYTHONPATH=plugin python benchmarks/migrate_sweep.py` with the plugin of "
          f"{result.get('plugin', '(not recorded)')}: each mirrored repository's HEAD, every file, one "
          "`rocm-spirv migrate ROOT --check --json` process each (exit 1 = findings, expected). Nothing here says "
          "whether a finding is right; the blind corpus (migrate_blind.md) measures that.", "",
          f"- repositories: {s['repositories']} ({s['files']:,} files, {s['bytes'] / 2**30:.1f} GiB extracted); "
          f"files the scan read (its `files_scanned`): {s['scanned']:,}",
          f"- exit 0/1: {len(ok)}; exit 2, traceback or timeout ({result['timeout_s']:.0f} s): {len(bad)}",
          f"- files the scan refused with one line each (syntax error, size cap, nesting, unreadable): "
          f"{s['refused']} in {s['repositories_with_refusals']} repositories",
          f"- wall per repository: median {s['wall_median_s']} s, range {s['wall_min_s']}-{s['wall_max_s']} s; "
          f"CPU median {s['cpu_median_s']} s, range {s['cpu_min_s']}-{s['cpu_max_s']} s",
          f"- scanned files per wall second: median {statistics.median(rate):,.0f}, range {min(rate):,.0f}-"
          f"{max(rate):,.0f} (small repositories are dominated by the interpreter's start, ~0.3 s)" if rate else "",
          f"- peak RSS: median {s['rss_median_mib']} MiB, largest {s['rss_max_mib']} MiB (target < "
          f"{RSS_TARGET_MIB:.0f} MiB)", ""]
    if bad:
        md += ["## Runs that did not exit 0 or 1 cleanly (or printed no JSON)", "", "| repository | exit | traceback | "
               "timed out | last stderr line |", "|---|---:|---|---|---|"]
        md += [f"| {r['repository']} | {r['exit']} | {r['traceback']} | {r['timed_out']} | "
               f"{r['stderr_last'].replace('|', '/')} |" for r in bad]
        md.append("")
    if unextracted:
        md += ["## Mirrors that could not be extracted (not scanned)", ""]
        md += [f"- {r['repository']}: {r['extract_error']}" for r in unextracted]
        md.append("")
    md += ["## The slowest 15 (CPU)", "", "| repository | commit | files | scanned | findings | refused | wall s | "
           "CPU s | peak RSS MiB |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in sorted(ok, key=lambda r: -r["cpu_s"])[:15]:
        md.append(f"| {r['repository']} | {r['commit'][:12]} | {r['files']:,} | {r.get('scanned') or 0:,} | "
                  f"{r['findings']} | {r['errors']} | {r['wall_s']} | {r['cpu_s']} | {r['maxrss_mib']} |")
    kinds: dict[str, int] = {}
    for r in rows:
        for k in r.get("error_kinds") or ():
            kinds[k] = kinds.get(k, 0) + 1
    if kinds:
        md += ["", "## Kinds of refusal (repositories with at least one)", "", "| kind | repositories |", "|---|---:|"]
        md += [f"| {k.replace('|', '/')} | {n} |" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1])]
    m = result["machine"]
    md += ["", f"Python {m['python']} on {m['platform']}, {m['cpus']} CPUs; load average {m['load_average_1m']} "
           "(1 min) at the end. The machine is shared: wall includes waiting for a core, CPU does not.", ""]
    return "\n".join(md)


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in rows if r.get("exit") in (0, 1)]
    walls, cpus, rss = [r["wall_s"] for r in ok], [r["cpu_s"] for r in ok], [r["maxrss_mib"] for r in ok]
    refused = [r for r in rows if r.get("errors")]

    def med(v: list[float]) -> float:
        return round(statistics.median(v), 2) if v else 0.0
    return {"repositories": len(rows), "files": sum(r["files"] for r in rows), "bytes": sum(r["bytes"] for r in rows),
            "scanned": sum(r.get("scanned") or 0 for r in rows), "refused": sum(r.get("errors") or 0 for r in rows),
            "repositories_with_refusals": len(refused),
            "wall_median_s": med(walls), "wall_min_s": min(walls, default=0), "wall_max_s": max(walls, default=0),
            "cpu_median_s": med(cpus), "cpu_min_s": min(cpus, default=0), "cpu_max_s": max(cpus, default=0),
            "rss_median_mib": med(rss), "rss_max_mib": max(rss, default=0)}


def plugin_commit() -> str:
    """The commit of the plugin the runs used, `+edits` when the checkout's plugin differs from it."""
    top = HERE.parent
    head = subprocess.run(["git", "-C", str(top), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(top), "diff", "--quiet", "HEAD", "--", "plugin"]).returncode != 0
    return f"{head}+edits" if dirty else head


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--limit", type=int, default=0, help="the first N repositories only (0: all)")
    ap.add_argument("--timeout", type=float, default=TIMEOUT_S)
    ap.add_argument("--scratch", type=Path, default=None, help="where to extract (default: the temp directory)")
    ap.add_argument("--report-only", action="store_true", help="write the Markdown again from the recorded JSON")
    args = ap.parse_args()
    if args.report_only:
        md = markdown(json.loads((RESULTS / "migrate_sweep.json").read_text()))
        write_atomic(RESULTS / "migrate_sweep.md", md)
        print(md)
        return 0
    repos = repositories(args.mirrors)
    if not repos:
        print(f"migrate_sweep: no mirrors under {args.mirrors}; fetch repositories first", file=sys.stderr)
        return 2
    repos = repos[:args.limit] if args.limit else repos
    rows: list[dict[str, Any]] = []
    plugin = Path(tempfile.mkdtemp(prefix="migrate-sweep-plugin-"))
    # with its __pycache__ (copy2 keeps the mtimes the .pyc files are checked against): children may not write
    # bytecode (PYTHONDONTWRITEBYTECODE), and compiling the plugin in each would add ~0.2 s CPU per repository
    shutil.copytree(Path(rocm_spirv.__file__).parent, plugin / "rocm_spirv")
    plugin_at = plugin_commit()
    for i, (name, git) in enumerate(repos, 1):
        scratch = Path(tempfile.mkdtemp(prefix="migrate-sweep-", dir=args.scratch))
        try:
            commit, files, size = extract(git, scratch)
            row = {"repository": name, "commit": commit, "files": files, "bytes": size}
            row.update(run_scan(scratch, args.timeout, plugin))
        except (OSError, subprocess.CalledProcessError) as err:
            row = {"repository": name, "commit": "", "files": 0, "bytes": 0, "exit": None, "extract_error": str(err)}
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        rows.append(row)
        print(f"[{i}/{len(repos)}] {name}: exit {row.get('exit')}, {row.get('files')} files, "
              f"{row.get('cpu_s')} s CPU, {row.get('maxrss_mib')} MiB", file=sys.stderr, flush=True)
    shutil.rmtree(plugin, ignore_errors=True)
    result = {"plugin": plugin_at, "timeout_s": args.timeout,
              "summary": summarize([r for r in rows if "extract_error" not in r]),
              "repositories": rows,
              "machine": {"python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count(),
                          "load_average_1m": round(os.getloadavg()[0], 2)}}
    write_atomic(RESULTS / "migrate_sweep.json", json.dumps(result, indent=1) + "\n")
    md = markdown(result)
    write_atomic(RESULTS / "migrate_sweep.md", md)
    print(md)
    clean = all(r.get("exit") in (0, 1) and not r.get("traceback") and not r.get("timed_out")
                and r.get("findings") is not None and r.get("maxrss_mib", 0) < RSS_TARGET_MIB for r in rows)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
