"""Upstream example trees that are never committed here: a manifest records them, this script re-extracts them.

A manifest (benchmarks/data/<name>_manifest.json) names the upstream repository, the commit, the project
folders the real-project matrix builds, the support folders they include (`Common/`), and the sha256 of
every file under those paths at that commit. `extract` takes the files out of a git directory holding that
commit (`git --git-dir DIR archive COMMIT PATHS`; a bare clone of the upstream repository is enough) and
checks every file against the manifest: a missing, extra or changed file stops it, so a build never runs
on a tree other than the recorded one.

    python benchmarks/upstream_trees.py extract benchmarks/data/rocm_examples_manifest.json \
        --git-dir rocm-examples.git --dest /tmp/trees/rocm_examples
    python benchmarks/upstream_trees.py manifest --git-dir DIR --repo OWNER/NAME --name NAME \
        --project PATH… [--support PATH…] [--commit COMMIT]   # writes data/<name>_manifest.json

Exit 2 when the git directory lacks the commit or a file does not match.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv.fsutil import write_atomic

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"


class Mismatch(Exception):
    """The git directory does not hold the recorded tree."""


@dataclass(frozen=True)
class Project:
    name: str  # unique in the manifest: the path unless two share one
    path: str  # folder inside the upstream tree, its own CMake project
    group: str  # "HIP-Basic", "Applications", ... for the tables


@dataclass(frozen=True)
class Manifest:
    name: str
    repo: str  # owner/name
    commit: str
    projects: tuple[Project, ...]
    support: tuple[str, ...]
    files: dict[str, str]  # path -> sha256

    @property
    def paths(self) -> list[str]:
        return [*(p.path for p in self.projects), *self.support]


def load(path: Path) -> Manifest:
    d = json.loads(path.read_text())
    return Manifest(d["name"], d["repo"], d["commit"],
                    tuple(Project(p["name"], p["path"], p["group"]) for p in d["projects"]),
                    tuple(d["support"]), dict(d["files"]))


def _git(git_dir: Path, *args: str) -> bytes:
    proc = subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, check=False)
    if proc.returncode != 0:
        raise Mismatch(f"git {' '.join(args[:2])} in {git_dir}: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def _archive(git_dir: Path, commit: str, paths: list[str]) -> dict[str, tuple[bytes, int]]:
    """Every regular file under paths at commit: path -> (bytes, mode)."""
    raw = _git(git_dir, "archive", "--format=tar", commit, "--", *paths)
    out: dict[str, tuple[bytes, int]] = {}
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        for m in tar.getmembers():
            if m.isfile():
                f = tar.extractfile(m)
                assert f is not None
                out[m.name] = (f.read(), m.mode)
    return out


def make(git_dir: Path, repo: str, name: str, projects: list[str], support: list[str],
         commit: str) -> dict[str, object]:
    full = _git(git_dir, "rev-parse", f"{commit}^{{commit}}").decode().strip()
    files = _archive(git_dir, full, [*projects, *support])
    return {
        "name": name, "repo": repo, "source": f"github:{repo}", "commit": full,
        "projects": [{"name": p, "path": p, "group": p.split("/")[0]} for p in projects],
        "support": support,
        "files": {k: hashlib.sha256(v).hexdigest() for k, (v, _) in sorted(files.items())},
    }


def extract(manifest: Manifest, git_dir: Path, dest: Path) -> Path:
    """The tree at dest, extracted and checked; an earlier extraction that still matches is kept."""
    stamp = dest / ".manifest-sha256"
    want = hashlib.sha256(json.dumps(manifest.files, sort_keys=True).encode()).hexdigest()
    if stamp.is_file() and stamp.read_text().strip() == want and _matches(manifest, dest):
        return dest
    files = _archive(git_dir, manifest.commit, manifest.paths)
    got = {k: hashlib.sha256(v).hexdigest() for k, (v, _) in files.items()}
    if got != manifest.files:
        missing = sorted(set(manifest.files) - set(got))
        extra = sorted(set(got) - set(manifest.files))
        changed = sorted(k for k in set(got) & set(manifest.files) if got[k] != manifest.files[k])
        raise Mismatch(f"{manifest.repo}@{manifest.commit[:12]}: {len(missing)} missing, {len(extra)} extra, "
                       f"{len(changed)} changed files (first: {(missing + extra + changed)[0]})")
    for rel, (data, mode) in files.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, data, mode=mode & 0o777)
    write_atomic(stamp, want + "\n")
    return dest


def _matches(manifest: Manifest, dest: Path) -> bool:
    for rel, sha in manifest.files.items():
        p = dest / rel
        if not p.is_file() or hashlib.sha256(p.read_bytes()).hexdigest() != sha:
            return False
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("extract")
    ex.add_argument("manifest", type=Path)
    ex.add_argument("--git-dir", type=Path, required=True)
    ex.add_argument("--dest", type=Path, required=True)
    mk = sub.add_parser("manifest")
    mk.add_argument("--git-dir", type=Path, required=True)
    mk.add_argument("--repo", required=True)
    mk.add_argument("--name", required=True)
    mk.add_argument("--project", nargs="+", required=True)
    mk.add_argument("--support", nargs="*", default=[])
    mk.add_argument("--commit", default="HEAD")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "extract":
            print(extract(load(a.manifest), a.git_dir, a.dest))
        else:
            out = DATA / f"{a.name}_manifest.json"
            write_atomic(out, json.dumps(make(a.git_dir, a.repo, a.name, a.project, a.support, a.commit), indent=1)
                         + "\n")
            print(out)
    except Mismatch as err:
        print(f"upstream_trees: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
