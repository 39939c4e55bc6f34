"""Every `--json` document names its schema (`rocm-spirv/<command>/<major>`) and validates against the
JSON Schema shipped for it; the ids, the files and docs/cli.md agree. compare and wheel repair are
validated where their tests already run them (test_compare.py, test_wheel.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO, SAMPLES
from jsoncheck import conforms
from rocm_spirv.jsondoc import SCHEMA_IDS, load_schema, schema_file

SCHEMAS = REPO / "plugin" / "rocm_spirv" / "schemas"


def test_one_schema_file_per_id_and_each_is_valid() -> None:
    assert sorted(schema_file(s) for s in SCHEMA_IDS.values()) == sorted(p.name for p in SCHEMAS.iterdir())
    for command, sid in SCHEMA_IDS.items():
        schema = load_schema(sid)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$id"] == sid and schema["properties"]["schema"] == {"const": sid}, command
        assert sid.startswith("rocm-spirv/") and sid.rsplit("/", 1)[1].isdigit()


def test_the_ids_are_on_the_cli_page() -> None:
    page = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    for command, sid in SCHEMA_IDS.items():
        assert f"| `{command}` | `{sid}` |" in page, command


def test_a_document_that_breaks_its_contract_fails() -> None:
    with pytest.raises(jsonschema.ValidationError):
        conforms({"schema": SCHEMA_IDS["toolchain generate"], "path": 1})


def cli(*argv: str, cwd: Path | None = None) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "rocm_spirv", *argv, "--json"], capture_output=True, text=True,
                          check=False, cwd=cwd, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    doc: dict[str, object] = json.loads(done.stdout)
    return doc


def test_every_quick_command_conforms(toolchain: Path, tmp_path: Path) -> None:
    cxx = str(toolchain / "bin" / "clang++")
    seen = set()
    for argv in (
        ("toolchain", "list", "--compiler", cxx),
        ("toolchain", "provision", "--prefix", str(toolchain)),
        ("toolchain", "generate", "--compiler", cxx, "--output", str(tmp_path / "tc.cmake")),
        ("doctor", "--no-build", "--compiler", cxx),
        ("bazel", "generate", "--compiler", cxx, "--output", str(tmp_path / "bazel")),
        ("migrate", str(REPO / "tests" / "data" / "example_collection")),
    ):
        doc = conforms(cli(*argv))
        seen.add(doc["schema"])
    project = tmp_path / "project"
    shutil.copytree(SAMPLES / "hip_library", project)
    seen.add(conforms(cli("presets", "generate", "--compiler", cxx, cwd=project))["schema"])
    src = tmp_path / "k.hip"
    src.write_text("#include <hip/hip_runtime.h>\n__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n")
    obj = tmp_path / "k.o"
    subprocess.run([cxx, "-x", "hip", "--offload-arch=amdgcnspirv", "--offload-arch=gfx942", "-c", str(src),
                    "-o", str(obj)], check=True, capture_output=True)
    doc = conforms(cli("inspect", str(obj), "--require", "hybrid:gfx942", "--validate"))
    assert doc["requirement"] is not None and doc["validation"] is not None
    seen.add(doc["schema"])
    assert seen == {SCHEMA_IDS[c] for c in ("toolchain list", "toolchain provision", "toolchain generate",
                                            "doctor", "bazel generate", "migrate", "presets generate", "inspect")}


def test_wheel_metadata_conforms(tmp_path: Path) -> None:
    import zipfile

    record = {"schema": 1, "project": "demo", "default_offload": "spirv", "shared_objects": []}
    wheel = tmp_path / "demo-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("demo-0.1.0.dist-info/rocm_spirv.json", json.dumps(record))
    doc = conforms(cli("wheel", "metadata", str(wheel)))
    assert doc["wheels"] == [{"wheel": str(wheel), "record": record}]
