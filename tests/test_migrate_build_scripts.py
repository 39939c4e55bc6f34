"""Python and Bazel build descriptions (migrate/build_scripts.py): setup.py, pyproject.toml, BUILD, .bzl, .bazelrc."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rocm_spirv.migrate.scan import scan
from rocm_spirv.migrate.walk import classify

CLI = [sys.executable, "-m", "rocm_spirv"]

SETUP = '''\
"""Builds the kernels for gfx90a and gfx942 (a docstring names them: no finding)."""
import os
import torch

# the default list gfx90a (a comment: no finding)
archs = os.environ.get("PYTORCH_ROCM_ARCH", "gfx90a;gfx942")
allowed_archs = [
    "native",
    "gfx90a",
    "gfx942",
]
user = os.getenv("GPU_ARCHS", "native").split(";")
flags = [f"--offload-arch={a}" for a in user]
for a in user:
    if a not in allowed_archs:
        raise ValueError(f"arch {a} unsupported; supported: gfx90a, gfx942")
if "gfx942" in archs:
    sources = ["fp8.hip"]
    flags.append("--offload-arch=gfx942")
elif archs.startswith("gfx11"):
    sources = []
else:
    sources = ["gfx_generic.hip"]
print("building for gfx90a")
arch = torch.cuda.get_device_properties(0).gcnArchName
ext = dict(extra_compile_args={"nvcc": ["-O3", "--offload-arch=gfx90a"],
                               "cxx": ["-O3"]})
try:
    import hip
except ImportError:
    os.environ["PYTORCH_ROCM_ARCH"] = "gfx1100"
cuda = ["-gencode", "arch=compute_80,code=sm_80"]
host = {"cxx": ["-O3", "-mcpu=native"]}
'''


def _found(root: Path) -> list[tuple[str, int, str]]:
    return sorted((f.path, f.line, f.rule.id) for f in scan(root).result.findings)


def test_build_descriptions_are_walked() -> None:
    assert classify("setup.py") == "python" and classify("setup_rocm.py") == "python"
    assert classify("pyproject.toml") == "pyproject"
    assert {classify(n) for n in ("BUILD", "BUILD.bazel", "rocm.bzl", ".bazelrc", "ci.bazelrc")} == {"bazel"}
    # other Python is runtime code, not a build description
    assert classify("kernels.py") is None and classify("setup.cfg") is None


def test_setup_py_statements(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(SETUP)
    assert _found(tmp_path) == [
        ("setup.py", 6, "RSM303"),   # PYTORCH_ROCM_ARCH's default
        ("setup.py", 7, "RSM303"),   # the allow-list, one finding at its first line
        ("setup.py", 12, "RSM303"),  # a default of "native": the build machine's GPU (gcnArchName at 25 resolves it)
        ("setup.py", 17, "RSM303"),  # a branch on a gfx name: its body (the flag at 19) is part of it
        ("setup.py", 20, "RSM303"),  # an elif is a test of its own
        ("setup.py", 26, "RSM304"),  # a literal flag in a two-line statement, at its first line
        ("setup.py", 31, "RSM303"),  # in an except handler's body
    ]
    messages = {f.line: f.message for f in scan(tmp_path).result.findings}
    assert messages[7].startswith("names gfx90a gfx942:")  # in the order written
    assert messages[26].startswith("--offload-arch=gfx90a: a hard-coded per-arch flag in a Python build script")


def test_python2_setup_falls_back_to_the_tokenizer(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text('print "building for gfx90a"\n"""gfx90a"""\nARCHS = ["gfx90a",\n'
                                       '  "gfx942"]\nflag = "--offload-arch=gfx908"\n')
    assert _found(tmp_path) == [("setup.py", 3, "RSM303"), ("setup.py", 5, "RSM304")]


def test_unreadable_python_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text('ARCHS = """gfx90a\n')  # an unterminated string: not even tokens
    report = scan(tmp_path).result
    assert [f.error for f in report.files if f.error] == [
        "not readable as Python: ('EOF in multi-line string', (1, 8)); its gfx lists were not checked"]


def test_bazel_files(tmp_path: Path) -> None:
    (tmp_path / "BUILD").write_text(
        'load("@rocm_spirv//:defs.bzl", "hip_library")\n'
        'hip_library(name = "k", srcs = ["k.hip"], archs = ["gfx90a"])  # ours: hybrid by choice\n'
        'cc_library(\n    name = "j",\n    copts = ["-O2", "--offload-arch=gfx942"],\n)\n')
    (tmp_path / "rocm.bzl").write_text(
        '_DEFAULT_TARGETS = ["gfx900", "gfx906"]\n'
        'def targets(ctx):\n    """gfx90a in a docstring"""\n    return ctx.os.environ.get("ROCM_TARGETS", "")\n')
    (tmp_path / ".bazelrc").write_text(
        "# build:rocm --action_env=X=gfx900\n"
        "build:rocm --action_env=TF_ROCM_AMDGPU_TARGETS=gfx900,gfx906\n"
        'build:rocm --repo_env=TF_ROCM_AMDGPU_TARGETS="gfx90a,gfx942"\n'
        "build --copt=--offload-arch=gfx1100\n"
        "build --config=gfx\n")
    assert _found(tmp_path) == [(".bazelrc", 2, "RSM303"), (".bazelrc", 3, "RSM303"), (".bazelrc", 4, "RSM304"),
                                ("BUILD", 3, "RSM304"), ("rocm.bzl", 1, "RSM303")]


def test_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\nkeywords = ["gfx90a"]\n\n'
        '[tool.scikit-build]\ncmake.define.GPU_TARGETS = "gfx90a;gfx942"  # "gfx1100"\n'
        'cmake.args = [\n  "-G", "Ninja",\n  "-DAMDGPU_TARGETS=gfx942",\n]\n'
        '# "gfx1030"\n[tool.cibuildwheel.linux]\nenvironment = { PYTORCH_ROCM_ARCH = "gfx90a" }\n')
    assert _found(tmp_path) == [("pyproject.toml", 6, "RSM303"), ("pyproject.toml", 7, "RSM303"),
                                ("pyproject.toml", 13, "RSM303")]


def test_preview_gate_and_apply_leave_them_alone(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(SETUP)
    before = (tmp_path / "setup.py").read_bytes()
    plain = subprocess.run([*CLI, "migrate", str(tmp_path), "--output-format", "json"], capture_output=True,
                           text=True, check=False)
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["findings"] == []  # preview rules: not reported without --preview
    shown = subprocess.run([*CLI, "migrate", str(tmp_path), "--preview", "--check", "--output-format", "json"],
                           capture_output=True, text=True, check=False)
    assert shown.returncode == 1, shown.stderr
    assert {f["rule"] for f in json.loads(shown.stdout)["findings"]} == {"RSM303", "RSM304"}
    applied = subprocess.run([*CLI, "migrate", str(tmp_path), "--preview", "--apply"], capture_output=True,
                             text=True, check=False)
    assert applied.returncode in (0, 1), applied.stderr
    assert (tmp_path / "setup.py").read_bytes() == before


def test_a_file_without_gfx_is_not_parsed(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text("this is not python (\n")  # never parsed: nothing to look for
    assert scan(tmp_path).result.files == []


DETECTOR = """\
import re, subprocess


def _detect_arch():
    out = subprocess.check_output(["rocminfo"], text=True)
    for line in out.splitlines():
        if "gfx" in line and "Name:" in line:
            return line.split()[-1]
    return "native"


def _checked(targets):
    for t in targets:
        if t[:3] != "gfx":
            raise ValueError("not an AMD GPU: %s" % t)
    return targets


arch = _checked([_detect_arch()])[0]
flags = ["-O3", "-mllvm", "-amdgpu-early-inline-all=true", f"--offload-arch={arch}"]
flags += ["-mllvm", "-enable-post-misched=0"]
kernels = [k for k in ["a_gfx11.cpp", "b.cpp"] if re.search(r"_gfx1[12]", k)]
"""


def test_detection_backend_options_and_patterns(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(DETECTOR)
    found = scan(tmp_path).result.findings
    assert [(f.line, f.rule.id) for f in sorted(found, key=lambda f: f.line)] == [
        (14, "RSM303"),  # a "gfx" prefix test that stops the build: an allow-list amdgcnspirv fails
        (19, "RSM303"),  # where the detector's answer becomes the target (its own "gfx" tests are its parsing)
        (20, "RSM105"),  # an AMDGPU backend option; -enable-post-misched at 21 is no AMDGPU option
        (22, "RSM303"),  # a regex over gfx names picks build content
    ]
    by_line = {f.line: f.message for f in found}
    assert by_line[19].startswith("_detect_arch() returns the build machine's GPU: a per-arch target list")
    assert by_line[20] == "backend option -mllvm -amdgpu-early-inline-all=true in a Python build script"


def test_a_detector_nothing_calls_is_reported_where_it_detects(tmp_path: Path) -> None:
    detector = ('import torch\n\n\ndef arch():\n    p = torch.cuda.get_device_properties(0)\n'
                '    return getattr(p, "gcnArchName", "")\n')
    (tmp_path / "setup.py").write_text(detector + "hooks = {'arch': arch}\n")  # named, never called here
    assert _found(tmp_path) == [("setup.py", 6, "RSM303")]
    (tmp_path / "setup.py").write_text(detector)  # never named again: nothing runs it
    assert _found(tmp_path) == []


def test_a_filter_through_a_gfx_list_drops_amdgcnspirv(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(
        'import os\nSUPPORTED = ["gfx942", "gfx950"]\narchs = os.environ["PYTORCH_ROCM_ARCH"].split(";")\n'
        'kept = list(set(SUPPORTED) & set(archs))\nalso = [a for a in archs if a in SUPPORTED]\n'
        'same = set(archs).intersection(SUPPORTED)\nmine = [a for a in archs if a in archs]\n')
    assert _found(tmp_path) == [("setup.py", n, "RSM303") for n in (2, 4, 5, 6)]


PROBES = """\
import os, warnings
if os.environ.get("ROCM"):
    allowed = {"gfx942", "gfx950"}
    archs = os.environ["PYTORCH_ROCM_ARCH"].split(";")
    keep = []
    for a in archs:
        if a in allowed:
            keep.append(f"--offload-arch={a}")
        else:
            print("ignoring", a)
    assert all(a in allowed for a in archs)
    if "gfx950" in archs:
        warnings.warn(f"gfx950 with {sorted(set(archs) & {'gfx942', 'gfx950'})} is slow")
    flags = []
    if check_flag("-mllvm -amdgpu-coerce-illegal-types=1"):
        flags.extend(["-mllvm", "-amdgpu-coerce-illegal-types=1"])
"""


def test_filters_probes_and_warnings(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(PROBES)
    assert _found(tmp_path) == [
        ("setup.py", 3, "RSM303"),  # the list, bound inside a branch
        ("setup.py", 7, "RSM303"),  # a filter keeping members: amdgcnspirv dropped (the assert at 11 is the list's)
        ("setup.py", 16, "RSM105"),  # the option passed; the `if` at 15 only probes it
    ]  # the branch at 12 only warns: no build content


FALLBACKS = """\
import os, re, subprocess


def rocm_arch():
    try:
        out = subprocess.run(["rocminfo"], capture_output=True, text=True).stdout
        m = re.search(r"Name:\\\\s+(gfx[0-9a-z]+)", out)
        if m:
            return m.group(1)
        return "gfx942"
    except FileNotFoundError:
        return "gfx942"


def targets():
    env = os.environ.get("TARGETS")
    if not env:
        env = ",".join(t for t in subprocess.check_output(["rocm_agent_enumerator"]).split() if t != "gfx000")
    return env.split(",")


flags = [f"--offload-arch={rocm_arch()}"]
archs = targets()
"""


def test_a_detector_with_fallbacks_and_one_that_falls_back_to_detection(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(FALLBACKS)
    assert _found(tmp_path) == [
        ("setup.py", 10, "RSM303"),  # rocm_arch()'s hard-coded fallbacks; the regex at 7 parses rocminfo's output
        ("setup.py", 12, "RSM303"),
        ("setup.py", 18, "RSM303"),  # targets() detects only when the user's TARGETS is unset: reported inside
        ("setup.py", 22, "RSM303"),  # where rocm_arch()'s answer becomes the target
    ]  # archs = targets() at 23 is the user's setting or that fallback: no construct of its own


def test_per_arch_defines_choices_and_dead_functions(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(
        'PREBUILT = ["gfx942"]\n'
        'cxx_flags = ["-O3",\n    "-DGGML_HIP_GFX906"]\n'
        'def target(t):\n'
        '    if t in PREBUILT:\n        return "prebuilt/" + t\n    else:\n        return build(t)\n'
        'def old_flags():\n    return ["--offload-arch=gfx936"]\n'
        'objs = [target(t) for t in targets]\n')
    (tmp_path / ".bazelrc").write_text("build:rocm_gfx950 --copt=-DROCM_GFX950=1\n"
                                       "build:rocm_gfx950 --define=gfx950=true\nbuild --copt=-DUSE_ROCM=1\n")
    assert _found(tmp_path) == [
        (".bazelrc", 1, "RSM303"), (".bazelrc", 2, "RSM303"),  # a per-arch macro, a per-arch config switch
        ("setup.py", 1, "RSM303"),  # the list; `if t in PREBUILT: … else: build` chooses a way to build, no filter
        ("setup.py", 2, "RSM303"),  # -DGGML_HIP_GFX906: a per-arch macro every compile gets
    ]  # old_flags() is never named again: dead, its flag is no construct


def test_a_native_constant_fed_to_offload_arch_and_per_target_arch_macros(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(
        'import os\n__ARCH__ = "native"\nMODE = "native"\nflags = [f"--offload-arch={__ARCH__}"]\n'
        'archs = os.environ["GPU_ARCHS"].split(";")\ndefs = [f"-D__{a}__" for a in archs]\n')
    assert _found(tmp_path) == [
        ("setup.py", 2, "RSM303"),  # the build machine's GPU, where the constant is bound
        ("setup.py", 6, "RSM303"),  # -D__gfx942__ in every pass: code testing __gfx942__ sees it on the host
    ]  # MODE = "native" feeds no --offload-arch


def test_f_string_arch_flags_in_every_spelling_the_compiler_takes(tmp_path: Path) -> None:
    # the option names come from offload.ARCH_FLAG_OPTIONS (hipcc's old -amdgpu-target= too), whole options only
    (tmp_path / "setup.py").write_text(
        'import os\nARCH = "native"\nflags = [f"-amdgpu-target={ARCH}"]\n'
        'n = os.environ["N"]\nold = [f"--amdgpu-target=gfx{n}"]\nhost = [f"-Xarch-mcpu=gfx{n}"]\n')
    assert _found(tmp_path) == [
        ("setup.py", 2, "RSM303"),  # the build machine's GPU through hipcc's old spelling
        ("setup.py", 5, "RSM304"),  # a template that can only name gfx targets
    ]  # -Xarch-mcpu= is no arch flag


def test_a_generated_size_build_script_is_not_parsed(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text('ARCHS = ["gfx90a"]\n' + "x = 1\n" * 200_000)  # 1.2 MB
    report = scan(tmp_path).result
    assert [(f.path, f.error) for f in report.files if f.error] == [
        ("setup.py", "larger than 1 MiB, which no hand-written build description is; not parsed")]


CHECKS = '''\
import os, subprocess
SUPPORTED = ["gfx942", "gfx90a"]


def pick():
    if env := os.environ.get("MY_ARCH"):
        if env not in SUPPORTED:
            raise ValueError(env)
        return env
    out = subprocess.run(["rocminfo"], capture_output=True, text=True).stdout
    for name in SUPPORTED:
        if name in out:
            return name
    return "gfx942"


def flags():
    local = ["gfx90a"]
    assert os.environ["A"] in local
    for a in SUPPORTED:
        yield f"--offload-arch={a}"


arch = pick()
f = list(flags())
'''


def test_checks_elsewhere_detector_matches_and_distribution_defaults(tmp_path: Path) -> None:
    """A module's gfx list enforced in another function (where an environment value is read) is a check of its
    own; one beside its list is part of it. A detector matching the tool's answer against the list is reported
    there (not where it is called); a loop over the list elsewhere only makes flags. A Starlark constant naming a
    gfx build of ROCm is a per-arch default; a string inside a rule's implementation is not."""
    (tmp_path / "setup.py").write_text(CHECKS)
    assert _found(tmp_path) == [("setup.py", n, "RSM303") for n in (2, 7, 11, 14, 18)]
    messages = {f.line: f.message for f in scan(tmp_path).result.findings}
    assert messages[7].startswith("an allow-list check against a gfx list (amdgcnspirv is rejected):")
    assert messages[11].startswith("the build machine's GPU matched against SUPPORTED:")
    (tmp_path / "setup.py").unlink()
    (tmp_path / "rocm.bzl").write_text(
        'ROCM_URL = "https://example.org/rocm-dist-linux-gfx110X-7.0.tar.gz"\nDISTRO = "rocm_7.0_gfx94X"\n'
        'VERSION = "7.0.2"\n\n\ndef _impl(ctx):\n    url = "https://example.org/dist-gfx942.tar.gz"\n'
        '    return url\n')
    assert _found(tmp_path) == [("rocm.bzl", 1, "RSM303"), ("rocm.bzl", 2, "RSM303")]
