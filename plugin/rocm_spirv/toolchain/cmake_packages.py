"""The prefix's own `hip` and `hip-lang` CMake packages, in `<prefix>/lib/cmake/{hip,hip-lang}`.

`find_package(hip)` and CMake's HIP language (`find_package(hip-lang)` under the
ROCm root clang reports) find the prefix's HIP headers and link-only
`libamdhip64` through them, with no other package, no absolute path (they locate
the prefix from their own place) and no `cmake_minimum_required`, so CMake 3.21
to 4.x load them without `CMAKE_POLICY_VERSION_MINIMUM`. The templates are in
`templates/prefix/cmake/`.
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2

from rocm_spirv import __version__
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import write_atomic
from rocm_spirv.resources import templates_dir

# package -> the files it consists of; each renders templates/prefix/cmake/<file>.j2.
PACKAGES: dict[str, tuple[str, ...]] = {
    "hip": ("hip-config.cmake", "hip-config-version.cmake"),
    "hip-lang": ("hip-lang-config.cmake", "hip-lang-config-version.cmake"),
}

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def _package_dir(root: Path, package: str) -> Path:
    """`root/lib/cmake/<package>` as a real folder inside root, never through a link out of it.

    Earlier prefixes linked lib/cmake/hip-lang to a system HIP package: writing
    through that link would overwrite another installation's files, so the link
    itself is replaced.
    """
    cmake = root / "lib" / "cmake"
    cmake.mkdir(parents=True, exist_ok=True)
    if not cmake.resolve().is_relative_to(root.resolve()):
        raise UserError(f"{cmake} leads out of the prefix, to {cmake.resolve()}",
                        f"make {cmake} a folder of {root}, then run `rocm-spirv toolchain provision` again")
    folder = cmake / package
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        folder.unlink()
    folder.mkdir(exist_ok=True)
    return folder


def write_cmake_packages(root: Path, hip_version: str) -> list[Path]:
    """Write the `hip` and `hip-lang` config and version files for HIP `hip_version` (e.g. 7.1.25424).

    Returns the files written, hip's first. Rewriting gives the same files.
    """
    match = _VERSION.fullmatch(hip_version.strip())
    if match is None:
        raise UserError(f"HIP version {hip_version!r} is not MAJOR.MINOR.PATCH",
                        "pass the version of the prefix's include/hip/hip_version.h, e.g. 7.1.25424")
    major, minor, patch = (int(part) for part in match.groups())
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, autoescape=False)
    written: list[Path] = []
    for package, files in PACKAGES.items():
        folder = _package_dir(root, package)
        for name in files:
            text = env.get_template(f"prefix/cmake/{name}.j2").render(
                package=package,
                ident=package.replace("-", "_"),
                hip_version=f"{major}.{minor}.{patch}",
                major=major,
                minor=minor,
                patch=patch,
                next_major=major + 1,
                tool_version=__version__,
            )
            path = folder / name
            write_atomic(path, text, mode=0o644)
            written.append(path)
    return written
