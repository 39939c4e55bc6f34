"""`rocm-spirv inspect` on real builds: entries match clang-offload-bundler, requirements, bad input."""

from __future__ import annotations

import io
import json
import shutil
import struct
import subprocess
import zipfile
import zlib
from pathlib import Path

import pytest
from bundles import _ar_members, _elf_fatbins, bundle_entries
from inspect_artifacts import build_all, find_bundler, find_compiler, find_tool
from rocm_spirv.cli import main
from rocm_spirv.inspect import bundle
from rocm_spirv.inspect.base import FormatError, Limits
from rocm_spirv.inspect.scan import inspect_buffer, inspect_path
from rocm_spirv.inspect.spirv_grammar import capability_spellings
from rocm_spirv.inspect.targetid import parse_entry_id


@pytest.fixture(scope="session")
def art(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("inspect")
    comp, why = find_compiler(tmp)
    if comp is None:
        pytest.skip(why)
    return build_all(comp, tmp / "out")


@pytest.fixture(scope="session")
def bundler() -> Path:
    found = find_bundler()
    if found is None:
        pytest.skip("clang-offload-bundler not found")
    return found


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["inspect", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def split_all(blob: bytes) -> list[bytes]:
    """Plain and compressed bundles of one .hip_fatbin, found independently of inspect's reader."""
    out, pos = [], 0
    while True:
        hits = [p for p in (blob.find(b"__CLANG_OFFLOAD_BUNDLE__", pos), blob.find(b"CCOB", pos)) if p >= 0]
        if not hits:
            return out
        at = min(hits)
        if blob[at : at + 4] == b"CCOB":
            total = struct.unpack_from("<I", blob, at + 8)[0]  # CCOB v2 total size
        else:
            n = struct.unpack_from("<Q", blob, at + 24)[0]
            p, total = at + 32, 32
            for _ in range(n):
                off, size, idl = struct.unpack_from("<QQQ", blob, p)
                p += 24 + idl
                total = max(total, p - at, off + size)
        out.append(blob[at : at + total])
        pos = at + total


def reference_ids(bundler: Path, path: Path) -> list[str]:
    data = path.read_bytes()
    elves = _ar_members(data) if data.startswith(b"!<arch>\n") else [data]
    blobs = [data] if data.startswith(b"__CLANG") else [s for e in elves for s in _elf_fatbins(e)]
    return sorted(i for blob in blobs for b in split_all(blob) for i in bundle_entries(bundler, b))


ALL = ["spv.o", "native.o", "hybrid.o", "hybridz.o", "generic.o", "lib.so", "spv.so", "native.fb", "libk.a"]


@pytest.mark.parametrize("name", ALL)
def test_entries_match_bundler_list(art: dict[str, Path], bundler: Path, name: str) -> None:
    report = inspect_path(art[name])
    ours = sorted(e.id for f in report.files for e in f.entries)
    assert ours == reference_ids(bundler, art[name])
    assert all(not e.problems for f in report.files for e in f.entries)


def test_wheel_lists_every_elf_from_memory(art: dict[str, Path], bundler: Path) -> None:
    report = inspect_path(art["pkg.whl"])
    assert report.format == "wheel"
    paths = [f.path.split("!", 1)[1] for f in report.files]
    assert paths == ["pkg/lib/libk.so", "pkg/lib/libk.a(spv.o)", "pkg/lib/libk.a(native.o)"]
    so = report.files[0]
    assert sorted(e.id for e in so.entries) == reference_ids(bundler, art["lib.so"])


def test_spirv_details_match_spirv_dis(art: dict[str, Path]) -> None:
    (f,) = inspect_path(art["spv.o"]).files
    (e,) = f.device_entries
    assert e.kind == "spirv" and e.target == "amdgcnspirv" and e.spirv is not None
    assert e.spirv.entry_points == ("scale",)
    dis = shutil.which("spirv-dis")
    if dis is None:
        pytest.skip("spirv-dis not on PATH")
    blob = _elf_fatbins(art["spv.o"].read_bytes())[0]
    (raw,) = [r for r in bundle.find_bundles(blob, 0, len(blob))[0].entries if r.size]
    text = subprocess.run([dis, "-"], input=blob[raw.offset : raw.offset + raw.size], capture_output=True,
                          check=True).stdout.decode()
    caps = tuple(line.split()[1] for line in text.splitlines() if line.strip().startswith("OpCapability"))
    exts = tuple(line.split('"')[1] for line in text.splitlines() if line.strip().startswith("OpExtension"))
    # Names from SPIRV-Headers' grammar; a spirv-dis older than it may print an alias (OptNoneINTEL).
    assert len(e.spirv.capabilities) == len(caps)
    assert all(theirs in capability_spellings(ours) for ours, theirs in zip(e.spirv.capabilities, caps, strict=True))
    assert e.spirv.extensions == exts
    assert f"; Version: {e.spirv.version}" in text


def test_code_objects_target_features_kernels(art: dict[str, Path]) -> None:
    (f,) = inspect_path(art["native.o"]).files
    by_target = {e.code_object.target_id: e.code_object for e in f.device_entries if e.code_object}
    assert set(by_target) == {"gfx90a", "gfx942:xnack-", "gfx1100"}
    assert by_target["gfx942:xnack-"].xnack == "off"
    assert all(c.kernels == ("scale_n",) for c in by_target.values())
    (g,) = inspect_path(art["generic.o"]).files
    assert {e.code_object.target for e in g.device_entries if e.code_object} == {"gfx9-4-generic", "gfx11-generic"}
    assert all(e.code_object and e.code_object.generic_version >= 1 for e in g.device_entries)


def test_compressed_bundle_sizes(art: dict[str, Path]) -> None:
    (f,) = inspect_path(art["hybridz.o"]).files
    (b,) = f.bundles
    assert b.container == "ccob-v2-zstd" and b.stored_size < b.size
    assert {e.kind for e in f.device_entries} == {"spirv", "code-object"}
    assert all(e.compressed_size is None for e in f.device_entries)


def _recompress(plain: bytes, version: int, method: int) -> bytes:
    body = zlib.compress(plain) if method == 0 else __import__("zstandard").ZstdCompressor().compress(plain)
    if version == 3:
        head = b"CCOB" + struct.pack("<HHQQQ", 3, method, 32 + len(body), len(plain), 0)
    elif version == 2:
        head = b"CCOB" + struct.pack("<HHIIQ", 2, method, 24 + len(body), len(plain), 0)
    else:
        head = b"CCOB" + struct.pack("<HHIQ", 1, method, len(plain), 0)
    return head + body


@pytest.mark.parametrize(("version", "method"), [(1, 0), (2, 0), (3, 0), (3, 1), (1, 1)])
def test_ccob_versions_and_methods(art: dict[str, Path], version: int, method: int) -> None:
    plain = art["native.fb"].read_bytes()
    want = [e.id for e in inspect_buffer("plain", plain)[0].entries]
    blob = _recompress(plain, version, method)
    (f,) = inspect_buffer("x", blob + b"\0" * 8)
    assert [e.id for e in f.entries] == want
    assert f.bundles[0].container == f"ccob-v{version}-{'zlib' if method == 0 else 'zstd'}"


def test_require_spirv_only(art: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("spv.o", "spv.so"):
        code, out, _ = run(capsys, str(art[name]), "--require", "spirv-only")
        assert code == 0, out
    code, out, _ = run(capsys, str(art["native.o"]), "--require", "spirv-only", "--json")
    assert code == 1
    doc = json.loads(out)
    failed = sorted(f["entry"] for f in doc["requirement"]["failures"])
    assert failed == ["hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a",
                      "hipv4-amdgcn-amd-amdhsa--gfx942:xnack-"]
    code, out, _ = run(capsys, str(art["lib.so"]), "--require", "spirv-only")
    assert code == 1 and "gfx90a" in out and "not met" in out


def test_require_native_and_hybrid(art: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, str(art["native.o"]), "--require", "native:gfx90a,gfx942")[0] == 0
    code, out, _ = run(capsys, str(art["native.o"]), "--require", "native:gfx950")
    assert code == 1 and "gfx950" in out
    assert run(capsys, str(art["hybrid.o"]), "--require", "hybrid:gfx942")[0] == 0
    assert run(capsys, str(art["hybridz.o"]), "--require", "hybrid:gfx942")[0] == 0
    assert run(capsys, str(art["spv.o"]), "--require", "hybrid:gfx942")[0] == 1
    assert run(capsys, str(art["hybrid.o"]), "--require", "native:gfx942")[0] == 1
    # lib.so links a per-arch, a SPIR-V and a hybrid object: each bundle is judged on its own.
    code, out, _ = run(capsys, str(art["lib.so"]), "--require", "hybrid:gfx942")
    assert code == 1 and "bundle 1 of 3: no SPIR-V" in out and "bundle 2 of 3: no native code object for gfx942" in out


def test_bad_require_spec(art: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    for spec in ("everything", "native", "native:zz", "spirv-only:gfx942"):
        code, _, err = run(capsys, str(art["spv.o"]), "--require", spec)
        assert code == 2 and err.count("\n") == 1


def test_validate_without_spirv_val_is_bad_input(art: dict[str, Path], capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A gate that cannot run must not pass silently. No spirv-val anywhere: not on PATH, not from PyPI.
    import rocm_spirv.toolchain.spirv_val as sv
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sv, "_cmeel_dirs", lambda: [tmp_path])
    monkeypatch.setattr(sv, "candidates", lambda prefix=None: [])
    code, out, err = run(capsys, str(art["spv.o"]), "--validate")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "spirv-val" in err and "spirv-tools" in err


@pytest.mark.skipif(shutil.which("spirv-val") is None, reason="spirv-val not on PATH (apt-get install spirv-tools)")
def test_json_and_validate(art: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(art["hybrid.o"]), "--json", "--validate")
    assert code == 0
    doc = json.loads(out)
    (inp,) = doc["inputs"]
    assert inp["totals"]["spirv"] == 1 and inp["totals"]["code_objects"] == 1
    spv = next(e for e in inp["files"][0]["entries"] if e["kind"] == "spirv")
    assert spv["validation"]["ok"] is True
    co = next(e for e in inp["files"][0]["entries"] if e["kind"] == "code-object")
    # The streamed document is the same as the one built in memory.
    from rocm_spirv.inspect.render import to_json

    code, out, _ = run(capsys, str(art["lib.so"]), "--json", "--require", "spirv-only")
    streamed = json.loads(out)
    built = to_json([inspect_path(art["lib.so"])], None, [])
    assert json.loads(json.dumps(built))["inputs"] == streamed["inputs"]
    assert code == 1 and streamed["requirement"]["met"] is False
    assert co["code_object"]["target_id"] == "gfx942" and co["code_object"]["kernels"] == ["scale_h"]


def test_human_output_names_entries(art: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(art["pkg.whl"]))
    assert code == 0
    assert "libk.so" in out and "SPIR-V" in out and "code object" in out


def test_offload_binary(art: dict[str, Path], tmp_path: Path) -> None:
    packager = find_tool("clang-offload-packager") or find_tool("llvm-offload-binary")
    objcopy = find_tool("llvm-objcopy")
    if packager is None or objcopy is None:
        pytest.skip("clang-offload-packager / llvm-objcopy not found")
    plain = art["native.fb"].read_bytes()
    raw = next(r for r in bundle.find_bundles(plain, 0, len(plain))[0].entries if r.id.endswith("gfx90a"))
    img = tmp_path / "gfx90a.o"
    img.write_bytes(plain[raw.offset : raw.offset + raw.size])
    packed = tmp_path / "packed.bin"
    image = f"--image=file={img},triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip"
    subprocess.run([str(packager), "-o", str(packed), image], check=True, capture_output=True)
    (raw_report,) = inspect_buffer("packed", packed.read_bytes())
    (e,) = raw_report.entries
    assert e.id == "hip-amdgcn-amd-amdhsa--gfx90a" and e.kind == "code-object" and e.code_object
    assert e.code_object.target == "gfx90a"
    host = tmp_path / "host.o"
    subprocess.run([str(objcopy), f"--add-section=.llvm.offloading={packed}", str(art["spv.o"]), str(host)],
                   check=True, capture_output=True)
    (hr,) = inspect_path(host).files
    assert sorted(e.id for e in hr.device_entries) == ["hip-amdgcn-amd-amdhsa--gfx90a",
                                                       "hip-spirv64-amd-amdhsa--amdgcnspirv"]


@pytest.mark.parametrize("raw", [
    "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "hip-amdgcn-amd-amdhsa-gfx906",
    "hipv4-amdgcn-amd-amdhsa--gfx9-4-generic", "hip-spirv64-amd-amdhsa--amdgcnspirv",
    "hipv4-spirv64-amd-amdhsa-unknown-amdgcnspirv", "hip-amdgcn-amd-amdhsa-gfx11-generic",
])
def test_entry_id_spellings(raw: str) -> None:
    eid = parse_entry_id(raw)
    assert eid.processor in ("gfx942", "gfx906", "gfx9-4-generic", "amdgcnspirv", "gfx11-generic")
    assert eid.triple.startswith(("amdgcn-amd-amdhsa", "spirv64-amd-amdhsa"))
    if "sramecc+" in raw:
        assert eid.feature("sramecc") == "+" and eid.feature("xnack") == "-"


# ---- bad and hostile input: exit 2, one line on stderr, no traceback ----


def _one_line_error(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    code, _, err = run(capsys, str(path))
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_bad_inputs(art: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = {"empty": b"", "text": b"hello world\n" * 10,
             "truncated.o": art["native.o"].read_bytes()[:3000],
             "truncated.fb": art["native.fb"].read_bytes()[:200]}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        _one_line_error(capsys, tmp_path / name)
    assert "folder" in _one_line_error(capsys, tmp_path)
    _one_line_error(capsys, tmp_path / "missing.o")


def test_lying_bundle_lengths(art: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = bytearray(art["native.fb"].read_bytes())
    lie = bytearray(plain)
    struct.pack_into("<Q", lie, 24, 1 << 40)  # entry count
    (tmp_path / "count.fb").write_bytes(lie)
    assert "entries" in _one_line_error(capsys, tmp_path / "count.fb")
    lie = bytearray(plain)
    struct.pack_into("<Q", lie, 32 + 8, 1 << 50)  # first entry size
    (tmp_path / "size.fb").write_bytes(lie)
    assert "claims" in _one_line_error(capsys, tmp_path / "size.fb")


def test_compressed_bomb_declared_size(art: dict[str, Path]) -> None:
    blob = bytearray(_recompress(art["native.fb"].read_bytes(), 3, 1))
    struct.pack_into("<Q", blob, 16, 1 << 45)
    with pytest.raises(FormatError, match="budget"):
        inspect_buffer("bomb", bytes(blob))
    small = Limits(max_decompressed=1000)
    with pytest.raises(FormatError, match="budget"):
        inspect_buffer("x", _recompress(art["native.fb"].read_bytes(), 2, 0), small)


def test_overlapping_sections(art: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = bytearray(art["spv.o"].read_bytes())
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shnum, = struct.unpack_from("<H", data, 0x3C)
    offsets = [(i, struct.unpack_from("<Q", data, shoff + i * 64 + 24)[0]) for i in range(shnum)]
    (_, off_a), (b, _) = [(i, o) for i, o in offsets if o][:2]
    struct.pack_into("<Q", data, shoff + b * 64 + 24, off_a)  # move section b onto section a
    (tmp_path / "overlap.o").write_bytes(data)
    assert "overlap" in _one_line_error(capsys, tmp_path / "overlap.o")


def _wheel(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_wheel_path_traversal(art: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for i, bad in enumerate(["../evil.so", "/abs/evil.so", "pkg/../../evil.so", "C:\\evil.so"]):
        path = tmp_path / f"t{i}.whl"
        path.write_bytes(_wheel({"pkg/ok.py": b"", bad: art["spv.o"].read_bytes()}))
        assert "traversal" in _one_line_error(capsys, path)


def test_wheel_bomb(art: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = bytearray(_wheel({"pkg/lib.so": art["spv.o"].read_bytes()}))
    cd = data.find(b"PK\x01\x02")
    struct.pack_into("<I", data, cd + 24, 0xFFFFFFF0)  # declared uncompressed size: 4 GiB
    (tmp_path / "bomb.whl").write_bytes(data)
    assert "more than deflate can expand to" in _one_line_error(capsys, tmp_path / "bomb.whl")


def test_bare_code_object_and_spirv(art: dict[str, Path], tmp_path: Path) -> None:
    plain = art["native.fb"].read_bytes()
    raw = next(r for r in bundle.find_bundles(plain, 0, len(plain))[0].entries if r.id.endswith("gfx90a"))
    co = tmp_path / "kernels-hip-amdgcn-amd-amdhsa-gfx90a.o"
    co.write_bytes(plain[raw.offset : raw.offset + raw.size])
    (f,) = inspect_path(co).files
    (e,) = f.entries
    assert e.id == "hip-amdgcn-amd-amdhsa-gfx90a" and e.code_object and e.code_object.target == "gfx90a"
    assert not e.problems
    blob = _elf_fatbins(art["spv.o"].read_bytes())[0]
    (sraw,) = [r for r in bundle.find_bundles(blob, 0, len(blob))[0].entries if r.size]
    spv = tmp_path / "k.spv"
    spv.write_bytes(blob[sraw.offset : sraw.offset + sraw.size])
    (g,) = inspect_path(spv).files
    assert g.entries[0].kind == "spirv" and g.entries[0].spirv and g.entries[0].spirv.entry_points == ("scale",)


def test_id_cross_checked_with_e_flags(art: dict[str, Path], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    data = art["native.fb"].read_bytes()
    head_end = data.find(b"\x7fELF")
    lie = data[:head_end].replace(b"--gfx90a", b"--gfx908") + data[head_end:]  # same length, header only
    (tmp_path / "lie.fb").write_bytes(lie)
    (f,) = inspect_path(tmp_path / "lie.fb").files
    (e,) = [e for e in f.entries if e.id.endswith("gfx908")]
    assert e.problems == ("id names gfx908, e_flags say gfx90a",)
    code, out, _ = run(capsys, str(tmp_path / "lie.fb"), "--require", "native:gfx908")
    assert code == 1 and "e_flags say gfx90a" in out
