"""Property-based fuzzing of inspect over mutated real bundles, ELFs, archives and wheels.

Whatever the bytes, inspect returns a report or raises FormatError (one line) — never anything
else — and the report renders as the human table and as JSON, whatever its names hold (the markup
seeds carry rich markup in archive member names, bundle ids and wheel member names).
"""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import hostile
import pytest
from hostile import MARKUPS, bsd_ar, plain_bundle, wheel
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_artifacts import build_all, find_compiler
from rocm_spirv.inspect import bundle
from rocm_spirv.inspect.base import FormatError, Limits
from rocm_spirv.inspect.render import print_human, write_json
from rocm_spirv.inspect.require import check, parse_requirement
from rocm_spirv.inspect.scan import inspect_data

BUILT = ["spv.o", "native.o", "hybridz.o", "lib.so", "native.fb", "libk.a", "pkg.whl"]
SEEDS = [*BUILT, "markup.a", "markup.fb", "markup.whl"]
REQUIRE = parse_requirement("native:gfx942")
LIMITS = Limits(max_decompressed=64 << 20)
INTERESTING = [0, 1, 7, 0x7F, 0xFF, 0xFFFF, 0xFFFFFFFF, 1 << 31, 1 << 40, (1 << 64) - 1]


@pytest.fixture(scope="session")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    tmp = tmp_path_factory.mktemp("fuzzseeds")
    comp, why = find_compiler(tmp)
    if comp is None:
        pytest.skip(why)
    art = build_all(comp, tmp / "out")
    raw = {name: art[name].read_bytes() for name in BUILT}
    plain = raw["native.fb"]
    ids = [(r.id + MARKUPS[i % len(MARKUPS)], plain[r.offset : r.offset + r.size])
           for i, r in enumerate(bundle.find_bundles(plain, 0, len(plain))[0].entries)]
    return {**raw,
            "markup.a": bsd_ar({f"{MARKUPS[0]}{MARKUPS[1]}k.o": raw["native.o"], f"{MARKUPS[7]}s.o": raw["spv.o"]}),
            "markup.fb": plain_bundle([(f"host-x86_64-unknown-linux-gnu-{MARKUPS[0]}", b""), *ids]),
            "markup.whl": wheel({f"pkg/{MARKUPS[0]}{MARKUPS[3]}lib.so": raw["lib.so"]})}


@st.composite
def mutations(draw: st.DrawFn, seeds: dict[str, bytes]) -> bytes:
    data = bytearray(seeds[draw(st.sampled_from(SEEDS))])
    for _ in range(draw(st.integers(0, 8))):
        op = draw(st.sampled_from(["byte", "word", "truncate", "insert", "delete"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "byte" and data:
            data[pos] = draw(st.integers(0, 255))
        elif op == "word":
            value = draw(st.sampled_from([*INTERESTING, len(data), len(data) + 1]))
            width = draw(st.sampled_from([2, 4, 8]))
            data[pos : pos + width] = (value & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
        elif op == "truncate":
            del data[pos:]
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=64))
        elif op == "delete":
            del data[pos : pos + draw(st.integers(1, 64))]
    return bytes(data)


def check_one(data: bytes) -> float:
    start = time.perf_counter()
    try:
        report = inspect_data(f"fuzz{MARKUPS[0]}", data, LIMITS)
        failures = check(REQUIRE, list(report.files))
        for detail in ("summary", "kernels"):
            print_human([report], REQUIRE, failures, io.StringIO(), detail=detail)
        write_json([report], REQUIRE, failures, io.StringIO())
    except FormatError as err:
        assert "\n" not in str(err)
    return time.perf_counter() - start


def test_fuzz_mutated_real_inputs(seeds: dict[str, bytes]) -> None:
    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(mutations(seeds))
    def prop(data: bytes) -> None:
        assert check_one(data) < 1.0

    prop()


def test_unmutated_seeds_are_clean(seeds: dict[str, bytes]) -> None:
    for name, data in seeds.items():
        report = inspect_data(name, data, LIMITS)
        assert report.files, name


# -- count and string bombs: refused in one line naming the limit and its flag, or read in bounded time --

BOMBS = {  # CI size: each just over the limit its flag lowers (the full size runs in benchmarks/fuzz_inspect.py)
    "kd.co": (lambda: hostile.code_object_kd_symbols(2_001), "--max-symbols", "2000", "kernel symbols"),
    "ids.fb": (lambda: hostile.many_ids_bundle(300, 4096), "--max-strings", "1M", "entry ids"),
    "strings.bin": (lambda: hostile.offload_binary_strings(2_000), "--max-strings", "1M", "strings"),
    "names.a": (lambda: hostile.gnu_ar_long_names(10, 2 << 20), "--max-strings", "1M", "long-name table"),
    "many.a": (lambda: hostile.gnu_ar_long_names(3_001, 64), "--max-entries", "3000", "members"),
    "many.whl": (lambda: wheel({f"pkg/lib{i}.so": b"\x7fELF" + bytes(60) for i in range(3_001)}), "--max-entries",
                 "3000", "members"),
}


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_bombs_are_refused_in_one_line_naming_the_flag(name: str, tmp_path: Path) -> None:
    build, flag, value, words = BOMBS[name]
    path = tmp_path / name
    path.write_bytes(build())
    done = subprocess.run([sys.executable, "-m", "rocm_spirv", "inspect", str(path), flag, value],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and flag in done.stderr and words in done.stderr, done.stderr


def test_a_long_name_table_without_newlines_names_each_member_by_its_offset() -> None:
    from rocm_spirv.inspect import archive
    data = hostile.gnu_ar_long_names(3, 10_000)
    names = [m.name for m in archive.members(data, "t.a")]
    assert len(names) == 3 and all(set(n) <= {"n"} and 0 < len(n) <= archive.MAX_NAME for n in names)


def test_a_code_object_under_the_symbol_limit_lists_its_kernels() -> None:
    report = inspect_data("k.co", hostile.code_object_kd_symbols(50), Limits(max_symbols=50))
    (entry,) = report.files[0].entries
    assert entry.code_object is not None and len(entry.code_object.kernels) == 50


def test_out_of_memory_under_a_memory_limit_is_one_line(tmp_path: Path) -> None:
    """As a constrained CI job runs it (ulimit -v): a bomb let past its limit ends in one line, exit 2."""
    import resource
    path = tmp_path / "kd.co"
    path.write_bytes(hostile.code_object_kd_symbols(720_000))

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (130 << 20, 130 << 20))

    done = subprocess.run([sys.executable, "-m", "rocm_spirv", "inspect", str(path), "--max-symbols", "10000000",
                           "--json"], capture_output=True, text=True, timeout=300, preexec_fn=limit, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and "out of memory" in done.stderr
