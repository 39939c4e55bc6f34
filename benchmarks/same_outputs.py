"""Check a refactor changed no output: `migrate` and `inspect` JSON from two revisions, byte for byte.

    python benchmarks/same_outputs.py --base REV [--head REV] [--keep DIR]

Both revisions' `plugin/` trees are taken out of git (`git archive`, the working tree is never used
for --base; --head defaults to the working tree) and run by the same Python on the same inputs:

- `migrate --json` and `migrate --output-format sarif` on samples/, tests/data/example_collection
  and tests/data/migrate (every rule's cases);
- `inspect --json --validate` and `inspect --json --kernels` on objects compiled here from
  tests/data/inspect_kernel.hip in spirv, native (gfx942) and hybrid mode, once, by the provisioned
  prefix of the working tree (`rocm-spirv toolchain provision` into a scratch folder).

With --compare, also `compare --json` on samples/hip_app (2 targets, 1 repeat): it carries measured
times, which no two runs share, so the base revision runs it twice and the values that differ between
those two runs (times, load, scratch paths) are masked; everything else (structure, sizes to the byte,
kernel lists, labels, notes) must be identical in the head's run. About a minute per run.

Prints one line per output (same / differs, with the first differing line) and exits 1 when any
differs, 0 when all are byte-identical. Writes nothing outside its scratch folder (removed unless
--keep).
"""

from __future__ import annotations

import os
import sys

# Its folder stays off sys.path (earlier scripts here shadowed stdlib modules).
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tarfile  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MIGRATE_INPUTS = ("samples", "tests/data/example_collection", "tests/data/migrate")
KERNEL = ROOT / "tests" / "data" / "inspect_kernel.hip"
MODES = {"spirv": ["--offload-arch=amdgcnspirv"], "native": ["--offload-arch=gfx942"],
         "hybrid": ["--offload-arch=amdgcnspirv", "--offload-arch=gfx942"]}


def plugin_tree(rev: str | None, into: Path) -> Path:
    """The rev's plugin/ folder unpacked under `into` (None: the working tree's own), with the rev's
    cmake/ and templates/ beside it, where the package finds them in a checkout."""
    if rev is None:
        return ROOT / "plugin"
    data = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "plugin", "cmake", "templates"],
                          capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into / "plugin"


def objects(scratch: Path) -> list[Path]:
    """inspect_kernel.hip compiled per mode by a freshly provisioned prefix."""
    prefix = scratch / "prefix"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "plugin")}
    subprocess.run([sys.executable, "-m", "rocm_spirv", "toolchain", "provision", "-q", "--prefix", str(prefix)],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    out = []
    for mode, flags in MODES.items():
        obj = scratch / f"kernel-{mode}.o"
        subprocess.run([str(prefix / "bin" / "clang++"), "-x", "hip", *flags, "-O2", "-c", str(KERNEL),
                        "-o", str(obj)], check=True)
        out.append(obj)
    return out


def run_all(plugin: Path, objs: list[Path]) -> dict[str, bytes]:
    env = {**os.environ, "PYTHONPATH": str(plugin), "NO_COLOR": "1"}
    runs: dict[str, list[str]] = {}
    for rel in MIGRATE_INPUTS:
        runs[f"migrate --json {rel}"] = ["migrate", str(ROOT / rel), "--json"]
        runs[f"migrate sarif {rel}"] = ["migrate", str(ROOT / rel), "--output-format", "sarif"]
    for obj in objs:
        runs[f"inspect --validate {obj.name}"] = ["inspect", "--json", "--validate", str(obj)]
        runs[f"inspect --kernels {obj.name}"] = ["inspect", "--json", "--kernels", str(obj)]
    got = {}
    for name, argv in runs.items():
        done = subprocess.run([sys.executable, "-m", "rocm_spirv", *argv], capture_output=True, env=env,
                              cwd=ROOT, check=False)
        got[name] = b"exit %d\n" % done.returncode + done.stdout
    return got


COMPARE_PROJECT = ROOT / "samples" / "hip_app"
COMPARE_ARGS = ("--archs", "gfx942,gfx1100", "--repeat", "1")
Json = object
Path_ = tuple[object, ...]


def compare_json(plugin: Path, cwd: Path) -> Json:
    cwd.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(plugin), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "rocm_spirv", "compare", str(COMPARE_PROJECT), *COMPARE_ARGS,
                           "--json"], capture_output=True, env=env, cwd=cwd, check=False)
    if done.returncode != 0:
        raise SystemExit(f"compare failed with {plugin}: {done.stderr.decode(errors='replace')[-800:]}")
    return json.loads(done.stdout)


def differing(a: Json, b: Json, at: Path_ = ()) -> set[Path_]:
    """The paths of leaves (or of whole subtrees, where the shapes differ) at which a and b differ."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        return {p for k in a for p in differing(a[k], b[k], (*at, k))}
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return {p for i, (x, y) in enumerate(zip(a, b, strict=True)) for p in differing(x, y, (*at, i))}
    return set() if a == b else {at}


def masked(doc: Json, noise: set[Path_], at: Path_ = ()) -> Json:
    if at in noise:
        return "<measured>"
    if isinstance(doc, dict):
        return {k: masked(v, noise, (*at, k)) for k, v in doc.items()}
    if isinstance(doc, list):
        return [masked(v, noise, (*at, i)) for i, v in enumerate(doc)]
    return doc


def compare_outputs(base: Path, head: Path, scratch: Path) -> tuple[bytes, bytes, int]:
    """compare --json of base (masked by what two base runs disagree on) and of head, and how many
    values were masked."""
    first, second = compare_json(base, scratch / "compare-base-1"), compare_json(base, scratch / "compare-base-2")
    after = compare_json(head, scratch / "compare-head")
    noise = differing(first, second)

    def text(doc: Json) -> bytes:
        return (json.dumps(masked(doc, noise), indent=2, sort_keys=False) + "\n").encode()

    return text(first), text(after), len(noise)


def first_difference(a: bytes, b: bytes) -> str:
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines(), strict=False), 1):
        if x != y:
            before, after = x.decode(errors="replace").strip(), y.decode(errors="replace").strip()
            return f"line {i}: {before!r} -> {after!r}"
    return f"lengths {len(a.splitlines())} -> {len(b.splitlines())} lines"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the revision before the change")
    ap.add_argument("--head", help="the revision after it (default: the working tree)")
    ap.add_argument("--keep", type=Path, help="keep the scratch folder here")
    ap.add_argument("--compare", action="store_true",
                    help="also compare --json on samples/hip_app, measured values masked (three runs, ~3 min)")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="same-outputs-")) if args.keep is None else args.keep
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        objs = objects(scratch)
        base_plugin, head_plugin = plugin_tree(args.base, scratch / "base"), plugin_tree(args.head, scratch / "head")
        before = run_all(base_plugin, objs)
        after = run_all(head_plugin, objs)
        if args.compare:
            name = f"compare --json {COMPARE_PROJECT.relative_to(ROOT)}"
            before[name], after[name], noise = compare_outputs(base_plugin, head_plugin, scratch)
            print(f"compare --json: {noise} values differ between two runs of {args.base} and are masked")
        differs = 0
        for name in before:
            if before[name] == after[name]:
                print(f"same     {name} ({len(after[name])} bytes)")
            else:
                differs += 1
                print(f"differs  {name}: {first_difference(before[name], after[name])}")
        print(f"{len(before) - differs} of {len(before)} outputs byte-identical between {args.base} and "
              f"{args.head or 'the working tree'}")
        return 1 if differs else 0
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
