"""[tool.rocm-spirv] / rocm-spirv.toml: settings take effect, the nearest file wins, flags win over
files, bad settings are one line (exit 2), and `rocm-spirv config` says where each value came from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from jsoncheck import conforms

CMAKE = ("cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX HIP)\n"
         "set(CMAKE_HIP_ARCHITECTURES gfx90a gfx942)\nadd_library(k k.hip)\n")


def cli(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rocm_spirv", *argv], capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(REPO / "plugin"), "PATH": "/usr/bin:/bin"}, check=False, timeout=120)


def project(root: Path, settings: str | None = None, name: str = "pyproject.toml") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "CMakeLists.txt").write_text(CMAKE)
    (root / "k.hip").write_text("__global__ void k() {}\n")
    if settings is not None:
        (root / name).write_text(settings)
    return root


def test_migrate_takes_its_settings_from_pyproject_and_flags_win(tmp_path: Path) -> None:
    plain = project(tmp_path / "plain")
    assert cli("migrate", str(plain), "--check").returncode == 1  # RSM101 is a warning: fails by default
    p = project(tmp_path / "p", '[project]\nname = "p"\n[tool.rocm-spirv.migrate]\nfail-on = "error"\n')
    assert cli("migrate", str(p), "--check").returncode == 0
    assert cli("migrate", str(p), "--check", "--fail-on", "warning").returncode == 1
    ignored = project(tmp_path / "i", '[tool.rocm-spirv.migrate]\nignore = ["RSM101"]\nexclude = ["*.hip"]\n')
    doc = json.loads(cli("migrate", str(ignored), "--json").stdout)
    # CMakeLists.txt and pyproject.toml (a build description); the .hip source is excluded
    assert "RSM101" not in doc["summary"]["by_rule"] and doc["summary"]["files_scanned"] == 2
    doc = json.loads(cli("migrate", str(ignored), "--json", "--ignore", "RSM102").stdout)
    assert "RSM101" in doc["summary"]["by_rule"]  # the flag replaces the file's list, as ruff's does


def test_the_nearest_file_wins_and_rocm_spirv_toml_before_pyproject(tmp_path: Path) -> None:
    top = tmp_path / "top"
    top.mkdir()
    (top / "pyproject.toml").write_text('[tool.rocm-spirv.migrate]\nfail-on = "error"\n')
    sub = project(top / "sub")
    assert cli("migrate", str(sub), "--check").returncode == 0  # the parent's file applies
    (sub / "pyproject.toml").write_text('[project]\nname = "sub"\n')  # no rocm-spirv table: passed over
    assert cli("migrate", str(sub), "--check").returncode == 0
    (sub / "rocm-spirv.toml").write_text('[migrate]\nfail-on = "warning"\n')
    assert cli("migrate", str(sub), "--check").returncode == 1
    shown = cli("config", str(sub))
    assert shown.returncode == 0 and f"settings file: {sub / 'rocm-spirv.toml'}" in shown.stdout
    assert 'migrate.fail-on = "warning"  (from rocm-spirv.toml; --fail-on wins)' in shown.stdout


def test_a_baseline_path_is_relative_to_the_settings_file(tmp_path: Path) -> None:
    p = project(tmp_path / "p", '[tool.rocm-spirv.migrate]\nbaseline = "ci/baseline.json"\n')
    (p / "ci").mkdir()
    assert cli("migrate", str(p), "--write-baseline", str(p / "ci" / "baseline.json")).returncode == 0
    assert cli("migrate", str(p), "--check").returncode == 0  # every finding is in the baseline
    doc = conforms(json.loads(cli("config", str(p), "--json").stdout))
    (row,) = [s for s in doc["settings"] if s["key"] == "migrate.baseline"]
    assert row == {"key": "migrate.baseline", "value": str(p / "ci" / "baseline.json"), "source": "file",
                   "flag": "--baseline", "help": row["help"]}


@pytest.mark.slow
def test_bad_settings_are_one_line_exit_2(tmp_path: Path) -> None:
    cases = {
        '[tool.rocm-spirv.migrate]\nfail_on = "error"\n': "unknown key migrate.fail_on; did you mean fail-on?",
        '[tool.rocm-spirv.migrat]\nselect = []\n': "unknown section or key migrat; did you mean migrate?",
        '[tool.rocm-spirv.migrate]\nfail-on = "fatal"\n': "migrate.fail-on = 'fatal' is not valid; it takes "
                                                         "'error' or 'warning' or 'note'",
        '[tool.rocm-spirv.migrate]\nselect = [1]\n': "it takes a string or a list of strings",
        '[tool.rocm-spirv]\nmigrate = 3\n': "migrate is not a table",
        '[tool.rocm-spirv\n': "is not valid TOML",
    }
    for n, (text, expected) in enumerate(cases.items()):
        p = project(tmp_path / str(n), text)
        for argv in (("migrate", str(p)), ("config", str(p))):
            done = cli(*argv)
            assert done.returncode == 2 and done.stdout == "", (text, done)
            assert done.stderr.count("\n") == 1 and expected in done.stderr, (text, done.stderr)


def test_no_settings_file_means_defaults(tmp_path: Path) -> None:
    doc = conforms(json.loads(cli("config", str(tmp_path), "--json").stdout))
    assert doc["file"] is None and {s["source"] for s in doc["settings"]} == {"default"}


def test_the_example_on_the_cli_page_is_read_as_written(tmp_path: Path) -> None:
    import re

    (block,) = re.findall(r"^```toml\n(\[tool\.rocm-spirv.*?)^```", (REPO / "docs" / "cli.md").read_text(), re.S | re.M)
    p = project(tmp_path / "p", block)
    doc = conforms(json.loads(cli("config", str(p), "--json").stdout))
    values = {s["key"]: s["value"] for s in doc["settings"] if s["source"] == "file"}
    assert values == {"migrate.fail-on": "error", "migrate.select": ["RSM1", "RSM204"], "migrate.ignore": ["RSM120"],
                      "migrate.exclude": ["third_party/*"], "migrate.preview": False,
                      "migrate.baseline": str(p / "ci" / "migrate-baseline.json"),
                      "compare.archs": "gfx90a,gfx942,gfx1100", "compare.reference-arch": "gfx942",
                      "compare.jit-targets": "gfx1100", "compare.repeat": 5, "compare.compress": True}


@pytest.mark.slow
def test_compare_takes_its_settings_and_flags_win(toolchain: Path, tmp_path: Path) -> None:
    import shutil

    from conftest import SAMPLES

    project = tmp_path / "kernels"
    shutil.copytree(SAMPLES / "kernels", project)
    (project / "rocm-spirv.toml").write_text('[compare]\narchs = ["gfx90a", "gfx1100"]\nreference-arch = "gfx90a"\n'
                                             "repeat = 2\ncompress = false\n")

    def run(*argv: str) -> dict[str, Any]:
        done = subprocess.run([sys.executable, "-m", "rocm_spirv", "compare", str(project), "--compiler",
                               str(toolchain / "bin" / "clang++"), "--no-jit", "--json", "-q", *argv],
                              capture_output=True, text=True, check=False, timeout=1200,
                              env={**os.environ, "PYTHONPATH": str(REPO / "plugin")})
        assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]  # -q: no progress lines
        doc: dict[str, Any] = json.loads(done.stdout)
        return doc

    doc = run()
    by_name = {r["variant"]["name"]: r for r in doc["results"]}
    assert set(by_name) == {"native", "native-1", "spirv"}  # compress = false: no +compress variants
    assert by_name["native"]["offload_archs"] == ["gfx90a", "gfx1100"]
    assert by_name["native-1"]["offload_archs"] == ["gfx90a"]
    assert all(len(r["runs"]) == 2 for r in doc["results"])
    doc = run("--repeat", "1", "--reference-arch", "gfx1100")
    by_name = {r["variant"]["name"]: r for r in doc["results"]}
    assert by_name["native-1"]["offload_archs"] == ["gfx1100"] and all(len(r["runs"]) == 1 for r in doc["results"])


def test_top_level_settings_reach_toolchain_generate_and_the_wheel_provider(
        toolchain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rocm_spirv.wheel import provider

    p = tmp_path / "p"
    p.mkdir()
    (p / "pyproject.toml").write_text('[build-system]\nrequires = ["scikit-build-core", "rocm-spirv"]\n'
                                      '[tool.rocm-spirv]\noffload = "hybrid"\nnative-archs = ["gfx942", "gfx1100"]\n')
    cxx = str(toolchain / "bin" / "clang++")

    def generate(*argv: str) -> dict[str, Any]:
        done = cli("toolchain", "generate", "--compiler", cxx, "--output", str(tmp_path / "tc.cmake"), "--json",
                   "--force", *argv, cwd=p)
        assert done.returncode == 0, done.stderr
        doc: dict[str, Any] = json.loads(done.stdout)
        return doc

    doc = generate()
    assert doc["offload"] == "hybrid" and doc["native_archs"] == ["gfx942", "gfx1100"]
    doc = generate("--offload", "native", "--native-archs", "gfx90a")
    assert doc["offload"] == "native" and doc["native_archs"] == ["gfx90a"]
    monkeypatch.chdir(p)
    monkeypatch.setattr(provider, "toolchain_file", lambda env, launcher="": tmp_path / "tc.cmake")
    assert provider.defaults(state="wheel", env={})["cmake"]["define"] == {
        "ROCM_SPIRV_OFFLOAD": "hybrid", "ROCM_SPIRV_NATIVE_ARCHS": "gfx942;gfx1100"}
    (p / "pyproject.toml").write_text('[build-system]\nrequires = ["rocm-spirv"]\n[tool.rocm-spirv]\noflload = "x"\n')
    with pytest.raises(SystemExit, match="unknown section or key oflload; did you mean offload"):
        provider.defaults(state="wheel", env={})
    shown = cli("config", str(p))
    assert shown.returncode == 2 and "did you mean offload?" in shown.stderr
