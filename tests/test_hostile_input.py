"""Hostile input through the commands' human output and readers: markup in names, FIFOs and devices,
decompression bombs, sparse sections, SPIR-V that spirv-val rejects, odd files in a compare build tree.

Each input is a real artifact (built by the inspect tests' compiler) or a real special file.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from bundles import _elf_fatbins
from hostile import (
    PEAK_KIB,
    bsd_ar,
    ccob_zstd,
    padded_bundle,
    plain_bundle,
    sparse_archive,
    sparse_fatbin,
    wheel,
    zlib_ratio_limit,
)
from inspect_artifacts import build_all, find_compiler
from rich.console import Console
from rocm_spirv.cli import main
from rocm_spirv.compare.model import Comparison, Variant, VariantResult
from rocm_spirv.compare.sizes import find_artifacts
from rocm_spirv.compare.view import print_human as print_compare
from rocm_spirv.errors import UserError
from rocm_spirv.inspect import bundle
from rocm_spirv.inspect.base import MAX_RATIO, FormatError
from rocm_spirv.inspect.scan import inspect_buffer
from rocm_spirv.term import esc

REPO = Path(__file__).resolve().parent.parent
# Each of these is a rich markup error or a style change when printed unescaped.
MARKUP = "[/x][bold]"
MARK = "[/x]"
ONE = "[bold]"  # markup a single path component can hold (no '/')


@pytest.fixture(scope="module")
def art(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("hostile")
    comp, why = find_compiler(tmp)
    if comp is None:
        pytest.skip(why)
    return build_all(comp, tmp / "out")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_cli(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The real command line in a child: a hang is a timeout, not a stuck test session."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "plugin")}
    return subprocess.run([sys.executable, "-m", "rocm_spirv", *argv], capture_output=True, text=True,
                          timeout=timeout, env=env, check=False)


def markup_dir(base: Path) -> Path:
    """A folder whose path contains "[/x]" (a "[" folder holding an "x]" folder)."""
    d = base / "[" / "x]"
    d.mkdir(parents=True)
    return d




def code_object(art: dict[str, Path], arch: str) -> bytes:
    plain = art["native.fb"].read_bytes()
    raw = next(r for r in bundle.find_bundles(plain, 0, len(plain))[0].entries if r.id.endswith(arch))
    return plain[raw.offset : raw.offset + raw.size]


def spirv_module(art: dict[str, Path]) -> bytes:
    blob = _elf_fatbins(art["spv.o"].read_bytes())[0]
    (raw,) = [r for r in bundle.find_bundles(blob, 0, len(blob))[0].entries if r.size]
    return blob[raw.offset : raw.offset + raw.size]



# --- 1. markup in user text ---------------------------------------------------------------------

def test_esc_shows_markup_and_hides_terminal_escapes() -> None:
    con = Console(file=io.StringIO(), width=200, emoji=False)
    hostile = MARKUP + "a:smile:b" + chr(27) + "[2J" + chr(92)  # ends in a backslash
    con.print(f"[red]{esc(hostile)}[/red]")
    assert con.file.getvalue().rstrip("\n") == MARKUP + "a:smile:b?[2J\\"  # type: ignore[attr-defined]


def test_inspect_human_output_with_markup_names(art: dict[str, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    where = markup_dir(tmp_path)
    gfx90a = code_object(art, "gfx90a")
    spv_id = f"hip-spirv64-amd-amdhsa--amdgcnspirv{MARKUP}"
    inputs = {
        "archive": (where / "lib.a", bsd_ar({f"{MARKUP}k.o": art["native.o"].read_bytes()}), f"{MARKUP}k.o"),
        "bundle": (where / "k.fb", plain_bundle([(f"host-x86_64-unknown-linux-gnu-{MARK}", b""),
                                                 (f"hip-amdgcn-amd-amdhsa--gfx90a{MARKUP}", gfx90a),
                                                 (spv_id, spirv_module(art))]), f"gfx90a{MARKUP}"),
        "wheel": (where / "p-1-py3-none-any.whl", wheel({f"pkg/{MARKUP}lib.so": art["lib.so"].read_bytes()}),
                  f"pkg/{MARKUP}lib.so"),
        "path": (where / f"{ONE}spv.o", art["spv.o"].read_bytes(), str(where / f"{ONE}spv.o")),
    }
    for kind, (path, data, name) in inputs.items():
        path.write_bytes(data)
        for extra in ([], ["--require", "native:gfx942", "--validate"]):
            code, out, err = cli(capsys, "inspect", str(path), *extra)
            assert code in (0, 1), (kind, err)
            assert name in out, (kind, out)
            assert "Traceback" not in err
    code, out, _ = cli(capsys, "inspect", str(inputs["bundle"][0]), "--require", "spirv-only")
    # The ids' own text reaches the failure list and the problem column unchanged.
    assert code == 1 and f"id names gfx90a{MARKUP}, e_flags say gfx90a" in out.replace("\n", "")


def test_inspect_error_with_markup_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = markup_dir(tmp_path) / f"{ONE}.o"
    bad.write_bytes(b"\x7fELF" + b"\xff" * 60)
    code, _, err = cli(capsys, "inspect", str(bad))
    assert code == 2 and str(bad) in err and len(err.strip().splitlines()) == 1


def test_migrate_text_output_with_markup_paths(tmp_path: Path) -> None:
    proj = markup_dir(tmp_path)
    (proj / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX HIP)\n"
                                         "set(CMAKE_HIP_ARCHITECTURES gfx90a gfx942)\n"
                                         f"add_library(k {ONE}k.hip)\n")
    (proj / f"{ONE}k.hip").write_text("__global__ void k(int* p) {\n#if defined(__gfx90a__)\n  *p = 1;\n"
                                         "#endif\n}\n")
    os.mkfifo(proj / f"{ONE}pipe.hip")
    done = run_cli("migrate", str(proj), timeout=30)
    flat = done.stdout.replace("\n", "")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    # Compiler-style lines name files relative to the project, markup and all.
    assert f"{ONE}k.hip:2:" in done.stdout, done.stdout
    assert f"{ONE}pipe.hip: error: is a FIFO" in flat


def test_compare_report_with_markup_project_and_error() -> None:
    failed = VariantResult(Variant("spirv", "spirv", ()), error=f"{MARKUP} error: in {MARK}k.hip")
    c = Comparison(f"/src/{MARKUP}proj", {}, {}, [failed])
    con = Console(file=io.StringIO(), width=300, emoji=False)
    print_compare(c, con)
    out = con.file.getvalue()  # type: ignore[attr-defined]
    assert f"/src/{MARKUP}proj" in out and f"{MARKUP} error: in {MARK}k.hip" in out


# --- 2. only regular files ------------------------------------------------------------------------

def test_fifo_and_devices_are_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "k.o"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "FIFO"), (Path("/dev/null"), "character device"),
                       (Path("/dev/zero"), "character device")):
        done = run_cli("inspect", str(path), timeout=30)
        assert done.returncode == 2, done.stderr
        assert kind in done.stderr and len(done.stderr.strip().splitlines()) == 1
    done = run_cli("migrate", str(fifo), timeout=30)
    assert done.returncode == 2 and "FIFO" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_every_input_file_option_refuses_fifos_and_devices(tmp_path: Path) -> None:
    (tmp_path / "CMakeLists.txt").write_text("project(p LANGUAGES CXX)\n")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for argv, word in (
        (["wheel", "metadata", "--targets", str(fifo), "--output", str(tmp_path / "r.json")], "FIFO"),
        (["wheel", "metadata", "--targets", "/dev/zero", "--output", str(tmp_path / "r.json")], "character device"),
        (["migrate", str(tmp_path), "--check", "--baseline", str(fifo)], "FIFO"),
        (["migrate", str(tmp_path), "--check", "--baseline", "/dev/zero"], "character device"),
    ):
        done = run_cli(*argv, timeout=30)
        assert done.returncode == 2 and word in done.stderr, (argv, done.stderr)
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "r.json").exists()


def test_wheel_metadata_output_never_replaces_a_users_file(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    targets = tmp_path / "targets.txt"
    targets.write_text("")
    done = run_cli("wheel", "metadata", "--targets", str(targets), "--output", str(notes))
    assert done.returncode == 2 and "refusing to replace it" in done.stderr and done.stderr.count("\n") == 1
    assert notes.read_text() == "my notes\n"
    record = tmp_path / "rocm_spirv.json"
    assert run_cli("wheel", "metadata", "--targets", str(targets), "--output", str(record)).returncode == 0
    assert run_cli("wheel", "metadata", "--targets", str(targets), "--output", str(record)).returncode == 0, \
        "its own record is rewritten at every install"


def test_migrate_skips_a_fifo_in_the_project(tmp_path: Path) -> None:
    (tmp_path / "CMakeLists.txt").write_text("project(p LANGUAGES CXX)\n")
    os.mkfifo(tmp_path / "kernels.hip")
    done = run_cli("migrate", str(tmp_path), "--format", "json", timeout=30)
    assert done.returncode == 0, done.stderr
    assert "kernels.hip" in done.stdout and "is a FIFO (named pipe), not a regular file" in done.stdout


# --- 3. one decompression budget --------------------------------------------------------------------

def test_zip_bomb_stops_at_the_budget(art: dict[str, Path], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    # A real ELF header and 24 MiB of zeros: ~1000:1, as much as DEFLATE can reach.
    bomb = tmp_path / "bomb.whl"
    bomb.write_bytes(wheel({"pkg/lib.so": art["spv.o"].read_bytes()[:64] + bytes(24 << 20)}))
    assert bomb.stat().st_size < 64 << 10
    code, _, err = cli(capsys, "inspect", str(bomb), "--max-decompressed", "8M")
    assert code == 2 and "budget of 8.0 MiB" in err and "--max-decompressed" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = cli(capsys, "inspect", str(bomb), "--max-decompressed", "32M")
    assert "budget" not in err  # under budget: read in full (an ELF header on zeros has no device code)


def test_zstd_bundle_bomb_stops_at_the_default_budget(art: dict[str, Path], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("zstandard")
    chunks, size = padded_bundle("hip-amdgcn-amd-amdhsa--gfx90a", code_object(art, "gfx90a"), 300 << 20)
    (tmp_path / "bomb.fb").write_bytes(ccob_zstd(chunks, size))
    assert (tmp_path / "bomb.fb").stat().st_size < 1 << 20
    code, _, err = cli(capsys, "inspect", str(tmp_path / "bomb.fb"))
    assert code == 2 and "budget of 256.0 MiB" in err and "--max-decompressed" in err


def test_valid_bundle_under_a_memory_limit_is_not_called_corrupt(art: dict[str, Path], tmp_path: Path) -> None:
    """A budget raised past what the process may allocate: out of memory, said so, never 'corrupt'."""
    pytest.importorskip("zstandard")
    chunks, size = padded_bundle("hip-amdgcn-amd-amdhsa--gfx90a", code_object(art, "gfx90a"), 600 << 20)
    (tmp_path / "big.fb").write_bytes(ccob_zstd(chunks, size))
    code = ("import resource, sys\nfrom rocm_spirv.cli import main\n"
            "vm = int(next(l for l in open('/proc/self/status') if l.startswith('VmSize')).split()[1]) << 10\n"
            "resource.setrlimit(resource.RLIMIT_AS, (vm + (300 << 20),) * 2)\n"
            "sys.exit(main(sys.argv[1:]))\n")
    env = {**os.environ, "PYTHONPATH": str(REPO / "plugin")}
    done = subprocess.run([sys.executable, "-c", code, "inspect", str(tmp_path / "big.fb"), "--max-decompressed", "1G"],
                          capture_output=True, text=True, timeout=60, env=env, check=False)
    assert done.returncode == 2 and "out of memory" in done.stderr and "corrupt" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_sparse_archive_member_is_budgeted(art: dict[str, Path], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = sparse_archive(art["native.o"], tmp_path / "big.a", 1 << 30)
    code, _, err = cli(capsys, "inspect", str(path))
    assert code == 2 and "big.a(big.o)" in err and "--max-decompressed" in err


def test_zlib_bundle_inflates_in_chunks_to_exactly_its_size(art: dict[str, Path]) -> None:
    """Several MiB through the chunked zlib path: exact size reads, one byte more or less is refused."""
    plain = plain_bundle([("hip-amdgcn-amd-amdhsa--gfx90a", code_object(art, "gfx90a") + bytes(5 << 20))])
    for extra, ok in ((b"", True), (b"x", False)):
        body = zlib.compress(plain + extra, 9)
        for declared in (len(plain), len(plain) - 1) if ok else (len(plain),):
            blob = b"CCOB" + struct.pack("<HHIIQ", 2, 0, 24 + len(body), declared, 0) + body
            if ok and declared == len(plain):
                (f,) = inspect_buffer("z", blob)
                assert [e.target for e in f.entries] == ["gfx90a"] and f.bundles[0].size == len(plain)
            else:
                with pytest.raises(FormatError, match="header says"):
                    inspect_buffer("z", blob)


def test_deflate_ratio_is_calibrated() -> None:
    """The zip and zlib ratio check sits just above what DEFLATE really reaches, so it can fire."""
    assert 1000 < zlib_ratio_limit() <= MAX_RATIO["deflate"]


def test_one_budget_across_inputs(art: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """Each compressed bundle fits; two of them in one run do not."""
    blob = _elf_fatbins(art["hybridz.o"].read_bytes())[0]
    (one,) = bundle.find_bundles(blob, 0, len(blob))
    budget = str(one.size + one.size // 2)
    code, _, err = cli(capsys, "inspect", str(art["hybridz.o"]), "--max-decompressed", budget)
    assert code == 0, err
    code, _, err = cli(capsys, "inspect", str(art["hybridz.o"]), str(art["hybridz.o"]), "--max-decompressed", budget)
    assert code == 2 and "budget" in err


def test_bad_budget_value(art: dict[str, Path]) -> None:
    done = run_cli("inspect", str(art["spv.o"]), "--max-decompressed", "lots")
    assert done.returncode == 2 and "512M or 2G" in done.stderr



def test_a_childs_peak_rss_is_its_own() -> None:
    """The measure the RSS bounds here use: a child of a big process reports its own peak, not the parent's."""
    held = bytearray(256 << 20)
    held[:: 4096] = b"\1" * len(range(0, len(held), 4096))  # resident, not only reserved
    done = subprocess.run([sys.executable, "-c", f"print({PEAK_KIB})"], capture_output=True, text=True,
                          timeout=60, check=True)
    del held
    assert 1 << 10 < int(done.stdout) < 128 << 10


def test_sparse_fatbin_is_read_lazily(art: dict[str, Path], tmp_path: Path) -> None:
    """A 1 GiB section, a few KB on disk: listed without touching the hole (peak RSS of the child)."""
    path = sparse_fatbin(art["spv.o"], tmp_path / "sparse.o", 1 << 30)
    assert path.stat().st_blocks * 512 < 1 << 20  # really sparse on this file system
    code = ("import sys\nfrom rocm_spirv.cli import main\ncode = main(sys.argv[1:])\n"
            f"print('peak_kib', {PEAK_KIB}, file=sys.stderr)\n"
            "sys.exit(code)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO / "plugin")}
    done = subprocess.run([sys.executable, "-c", code, "inspect", "--json", str(path)], capture_output=True,
                          text=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert '"amdgcnspirv"' in done.stdout
    peak_kib = int(done.stderr.split("peak_kib")[1].split()[0])
    assert peak_kib < 200 << 10  # the hole is 1 GiB; reading it would show up here


# --- 4. --validate is a gate ------------------------------------------------------------------------

def test_validate_rejected_module_fails_the_gate(art: dict[str, Path], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    if shutil.which("spirv-val") is None:
        pytest.skip("spirv-val is not on PATH")
    good = spirv_module(art)
    bad = bytearray(good)
    struct.pack_into("<I", bad, 12, 10)  # id bound 10: the module uses far more ids
    (tmp_path / "bad.spv").write_bytes(bad)
    fb = tmp_path / "two.fb"
    fb.write_bytes(plain_bundle([("hip-spirv64-amd-amdhsa--amdgcnspirv", bytes(bad)),
                                 ("hip-amdgcn-amd-amdhsa--gfx90a", code_object(art, "gfx90a"))]))
    assert subprocess.run(["spirv-val", str(tmp_path / "bad.spv")], capture_output=True).returncode != 0
    code, out, _ = cli(capsys, "inspect", "--validate", str(art["spv.o"]))
    assert code == 0, out
    for extra in ([], ["--require", "hybrid:gfx90a"]):
        code, out, _ = cli(capsys, "inspect", "--validate", str(art["spv.o"]), str(fb), *extra)
        assert code == 1
        assert f"{fb}: hip-spirv64-amd-amdhsa--amdgcnspirv: spirv-val: error" in out
    code, out, _ = cli(capsys, "inspect", "--validate", "--json", str(art["spv.o"]), str(fb))
    doc = json.loads(out)
    assert code == 1 and doc["validation"]["passed"] is False
    assert [(f["path"], f["entry"]) for f in doc["validation"]["failures"]] == [
        (str(fb), "hip-spirv64-amd-amdhsa--amdgcnspirv")]
    code, _, _ = cli(capsys, "inspect", "--json", str(fb))
    assert code == 0  # without --validate nothing runs spirv-val


def count_spirv_val_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The payload sizes of the spirv-val runs inspect --validate makes from here on."""
    from rocm_spirv.inspect import validate as val
    runs: list[int] = []
    real = val.validate_payload

    def counted(t: str, payload: bytes, timeout: float = 60.0) -> object:
        runs.append(len(payload))
        return real(t, payload, timeout)

    monkeypatch.setattr(val, "validate_payload", counted)
    return runs


def test_validate_runs_spirv_val_once_per_distinct_module(art: dict[str, Path], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """2,000 copies of two modules (one rejected): two spirv-val runs, and every entry gets its verdict."""
    from rocm_spirv.inspect import validate as val
    tool = val.spirv_val()
    if tool is None:
        pytest.skip("spirv-val was not found (pip install the dev extra, or apt-get install spirv-tools)")
    good = spirv_module(art)
    bad = bytearray(good)
    struct.pack_into("<I", bad, 12, 10)
    fb = tmp_path / "many.fb"
    fb.write_bytes(plain_bundle([("hip-spirv64-amd-amdhsa--amdgcnspirv", good if i % 2 else bytes(bad))
                                 for i in range(2_000)]))
    runs = count_spirv_val_runs(monkeypatch)
    code, out, _ = cli(capsys, "inspect", "--validate", "--json", str(fb))
    doc = json.loads(out)
    assert code == 1 and len(runs) == 2, runs
    assert len(doc["validation"]["failures"]) == 1_000


def test_validate_refuses_more_distinct_modules_than_its_limit(art: dict[str, Path], tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """One spirv-val process per distinct module: 20,000 distinct modules took 32 s. Over --max-validate, the
    run is refused in one line naming the flag before any spirv-val runs."""
    from rocm_spirv.inspect import validate as val
    tool = val.spirv_val()
    if tool is None:
        pytest.skip("spirv-val was not found (pip install the dev extra, or apt-get install spirv-tools)")
    good = spirv_module(art)
    modules = []
    for generator in range(3):  # the header's generator word: three distinct, valid modules
        module = bytearray(good)
        struct.pack_into("<I", module, 8, generator)
        modules.append(bytes(module))
    fb = tmp_path / "three.fb"
    fb.write_bytes(plain_bundle([("hip-spirv64-amd-amdhsa--amdgcnspirv", m) for m in modules * 50]))
    runs = count_spirv_val_runs(monkeypatch)
    code, _, err = cli(capsys, "inspect", "--validate", "--max-validate", "2", str(fb))
    assert code == 2 and err.count("\n") == 1 and "--max-validate N" in err and "3 or more" in err, err
    assert runs == []
    code, _, err = cli(capsys, "inspect", "--validate", "--max-validate", "3", str(fb))
    assert code == 0 and len(runs) == 3, (err, runs)


# --- 5. compare: files in a build tree that are not binaries --------------------------------------

def test_compare_skips_scripts_and_thin_archives(art: dict[str, Path], tmp_path: Path) -> None:
    build = tmp_path / "build"
    build.mkdir()
    shutil.copy(art["lib.so"], build / "libk.so")
    (build / "run.sh").write_text("#!/bin/sh\nexec ./app \"$@\"\n")
    (build / "run.sh").chmod(0o755)
    (build / "libthin.a").write_bytes(b"!<thin>\n")
    os.mkfifo(build / "pipe")
    found = find_artifacts(build)
    assert [Path(a.path).name for a in found] == ["libk.so"] and found[0].entries
    (build / "broken.so").write_bytes(art["lib.so"].read_bytes()[:2000])
    with pytest.raises(UserError, match=r"broken\.so"):
        find_artifacts(build)


@pytest.mark.parametrize("mode", [[], ["--check"], ["--json"], ["--format", "sarif"], ["--apply"]])
def test_migrate_fingerprints_hash_bytes_not_text(tmp_path: Path, mode: list[str]) -> None:
    """A Latin-1 byte in a finding's construct, and a source that is not UTF-8 at all."""
    (tmp_path / "CMakeLists.txt").write_bytes(b'project(p)\nset(GPU_TARGETS gfx90a gfx942 "caf\xe9")\n')
    (tmp_path / "k.cu").write_bytes(b"#if __gfx942__ // \xff\xfe\nint x;\n#endif\n")
    done = subprocess.run([sys.executable, "-m", "rocm_spirv", "migrate", str(tmp_path), *mode,
                           "--write-baseline", str(tmp_path / "b.json")], capture_output=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO / "plugin")}, check=False)
    assert b"Traceback" not in done.stderr and done.returncode == (1 if mode == ["--check"] else 0), done.stderr
    again = run_cli("migrate", str(tmp_path), "--check", "--baseline", str(tmp_path / "b.json"))
    assert again.returncode == 0, again.stdout + again.stderr


@pytest.mark.parametrize(("sig", "code"), [(2, 130), (15, 143)])
def test_a_signal_in_the_first_second_is_one_line(tmp_path: Path, sig: int, code: int) -> None:
    """Ctrl-C or SIGTERM while the command line is still importing its commands: no traceback, no raw death."""
    import signal
    import time
    (tmp_path / "CMakeLists.txt").write_text("project(p)\nset(GPU_TARGETS gfx90a)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO / "plugin")}
    # Python itself needs some time to start before any code of ours can run: the child says when main()
    # has installed its handler (the first thing it does), and the signal comes 0 to 0.5 s later.
    probe = ("import sys, signal, os\n"
             "import rocm_spirv.cli\n"
             "real = signal.signal\n"
             "def spy(sig, handler):\n"
             "    old = real(sig, handler)\n"
             "    if sig == signal.SIGTERM and handler is not old:\n"
             "        os.write(1, b'r')\n"
             "    return old\n"
             "signal.signal = spy\n"
             "sys.argv = ['rocm-spirv', 'migrate', sys.argv[1]]\n"
             "sys.exit(rocm_spirv.cli.main())\n")
    for delay in (0.0, 0.05, 0.2, 0.5):
        proc = subprocess.Popen([sys.executable, "-c", probe, str(tmp_path)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env)
        assert proc.stdout is not None and proc.stdout.read(1) == b"r"
        time.sleep(delay)
        proc.send_signal(signal.Signals(sig))
        out, err = proc.communicate(timeout=60)
        if proc.returncode == 0:
            continue  # finished before the signal came
        if proc.returncode == -sig and b" scanned" in out and not err:
            # The report was printed and main() had returned: the signal came while the interpreter was
            # exiting, after it gave the default handler back (a small project now scans in ~0.2 s).
            continue
        assert proc.returncode == code and b"Traceback" not in err, (delay, proc.returncode, err)
        assert err.count(b"\n") == 1, err


def test_deep_nesting_is_refused_per_file_in_one_line(tmp_path: Path) -> None:
    """if() and #if nested beyond 1000 levels: the file is reported as not analyzed (quadratic otherwise)."""
    n = 1_500
    (tmp_path / "CMakeLists.txt").write_text("project(p)\n" + "if(A)\n" * n + "set(GPU_TARGETS gfx90a)\n"
                                             + "endif()\n" * n)
    (tmp_path / "k.hip").write_text("#if A\n" * n + "#if __gfx942__\nint x;\n#endif\n" + "#endif\n" * n)
    (tmp_path / "ok.hip").write_text("#if A\n" * 900 + "#if __gfx942__\nint x;\n#endif\n" + "#endif\n" * 900)
    done = run_cli("migrate", str(tmp_path), "--check", timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "CMakeLists.txt: error: blocks nested more than 1000 deep; skipped" in done.stdout, done.stdout
    assert "k.hip: error: #if nested more than 1000 deep; skipped" in done.stdout
    assert "ok.hip:901:" in done.stdout, "900 levels are still analyzed"


def test_the_top_level_file_is_analyzed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file needs the top-level CMakeLists.txt's policy and scope first; the walk reuses that analysis
    (a second one doubled the time of a 4 MiB CMakeLists.txt: benchmarks/results/migrate_large_file.md)."""
    from rocm_spirv.migrate import cmake_rules
    from rocm_spirv.migrate.scan import scan

    (tmp_path / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.21)\nproject(p)\n"
                                             "set(GPU_TARGETS gfx90a)\nadd_subdirectory(sub)\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "CMakeLists.txt").write_text("set(GPU_TARGETS gfx942)\n")
    seen: list[str] = []
    real = cmake_rules.analyze

    def spy(path: str, src: str, ctx: cmake_rules.Context | None = None) -> tuple[object, cmake_rules.CMakeFacts]:
        seen.append(path)
        return real(path, src, ctx)

    monkeypatch.setattr(cmake_rules, "analyze", spy)
    result = scan(tmp_path).result
    assert sorted(seen) == ["CMakeLists.txt", "sub/CMakeLists.txt"], seen
    assert {f.path for f in result.files if f.findings} == {"CMakeLists.txt", "sub/CMakeLists.txt"}
