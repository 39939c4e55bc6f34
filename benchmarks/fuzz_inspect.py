"""Fuzz `rocm-spirv inspect` with mutated real artifacts: crashes (must be 0) and the slowest case.

    PYTHONPATH=plugin:tests python benchmarks/fuzz_inspect.py [--cases 100000] [--seed 1]

Builds the test artifacts (objects, compressed bundles, a linked library, an archive, a wheel) with
the same compiler the tests use, mutates them (bytes, interesting words, truncation, insertion,
deletion) and runs the in-memory inspector on each. Any exception other than FormatError is a
crash. Writes benchmarks/results/fuzz_inspect.json and .md.
"""

from __future__ import annotations

import os
import sys

# This folder stays off sys.path: only plugin/ and tests/ are imported from.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "plugin"), str(ROOT / "tests")]

from inspect_artifacts import build_all, find_compiler  # noqa: E402
from rocm_spirv.inspect.base import FormatError, Limits  # noqa: E402
from rocm_spirv.inspect.scan import inspect_data  # noqa: E402

SEEDS = ["spv.o", "native.o", "hybrid.o", "hybridz.o", "generic.o", "lib.so", "native.fb", "libk.a", "pkg.whl"]
INTERESTING = [0, 1, 7, 0x7F, 0xFF, 0xFFFF, 0xFFFFFFFF, 1 << 31, 1 << 40, (1 << 64) - 1]
LIMITS = Limits(max_decompressed=64 << 20)


def mutate(rng: random.Random, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(rng.randint(1, 8)):
        op = rng.choice(("byte", "byte", "word", "word", "truncate", "insert", "delete"))
        pos = rng.randrange(max(len(data), 1))
        if op == "byte" and data:
            data[pos] = rng.randrange(256)
        elif op == "word":
            width = rng.choice((2, 4, 8))
            value = rng.choice([*INTERESTING, len(data), rng.randrange(1 << 32)]) & ((1 << (8 * width)) - 1)
            data[pos : pos + width] = value.to_bytes(width, "little")
        elif op == "truncate":
            del data[pos:]
        elif op == "insert":
            data[pos:pos] = rng.randbytes(rng.randint(1, 64))
        else:
            del data[pos : pos + rng.randint(1, 64)]
    return bytes(data)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        comp, why = find_compiler(Path(tmp))
        if comp is None:
            print(f"fuzz_inspect: cannot build seeds: {why}", file=sys.stderr)
            return 2
        art = build_all(comp, Path(tmp) / "out")
        seeds = {n: art[n].read_bytes() for n in SEEDS}
    rng = random.Random(args.seed)
    crashes: list[dict[str, str]] = []
    outcomes = {"report": 0, "format_error": 0}
    slowest = (0.0, "", 0)
    start = time.perf_counter()
    for i in range(args.cases):
        name = SEEDS[i % len(SEEDS)]
        data = mutate(rng, seeds[name])
        t0 = time.perf_counter()
        try:
            inspect_data("fuzz", data, LIMITS)
            outcomes["report"] += 1
        except FormatError as err:
            outcomes["format_error"] += 1
            if "\n" in str(err):
                crashes.append({"case": str(i), "seed": name, "error": "multi-line message: " + repr(str(err))})
        except Exception:  # anything else is a crash
            crashes.append({"case": str(i), "seed": name, "error": traceback.format_exc(limit=3)})
        took = time.perf_counter() - t0
        if took > slowest[0]:
            slowest = (took, name, i)
    total = time.perf_counter() - start
    result = {
        "cases": args.cases, "rng_seed": args.seed, "crashes": len(crashes), "crash_samples": crashes[:20],
        "outcomes": outcomes, "slowest_case_s": round(slowest[0], 4), "slowest_seed": slowest[1],
        "slowest_index": slowest[2], "total_s": round(total, 1), "passed": not crashes and slowest[0] < 1.0,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fuzz_inspect.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "fuzz_inspect.md").write_text(
        "# inspect fuzzing\n\n| cases | crashes | reports | format errors | slowest case | total |\n"
        "|---|---|---|---|---|---|\n"
        f"| {args.cases} | {len(crashes)} | {outcomes['report']} | {outcomes['format_error']} | "
        f"{slowest[0]:.3f} s ({slowest[1]}) | {total:.0f} s |\n")
    print(json.dumps({k: v for k, v in result.items() if k != "crash_samples"}))
    for c in crashes[:3]:
        print(c["error"], file=sys.stderr)
    return 0 if result["passed"] else 1
if __name__ == "__main__":
    raise SystemExit(main())
