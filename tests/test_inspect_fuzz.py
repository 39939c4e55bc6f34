"""Property-based fuzzing of inspect over mutated real bundles, ELFs, archives and wheels.

Whatever the bytes, inspect returns a report or raises FormatError (one line) — never anything
else, and quickly.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_artifacts import build_all, find_compiler
from rocm_spirv.inspect.base import FormatError, Limits
from rocm_spirv.inspect.scan import inspect_data

SEEDS = ["spv.o", "native.o", "hybridz.o", "lib.so", "native.fb", "libk.a", "pkg.whl"]
LIMITS = Limits(max_decompressed=64 << 20)
INTERESTING = [0, 1, 7, 0x7F, 0xFF, 0xFFFF, 0xFFFFFFFF, 1 << 31, 1 << 40, (1 << 64) - 1]


@pytest.fixture(scope="session")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    tmp = tmp_path_factory.mktemp("fuzzseeds")
    comp, why = find_compiler(tmp)
    if comp is None:
        pytest.skip(why)
    art = build_all(comp, tmp / "out")
    return {name: art[name].read_bytes() for name in SEEDS}


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
        inspect_data("fuzz", data, LIMITS)
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
