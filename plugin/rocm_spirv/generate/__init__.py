"""Files rocm-spirv writes into users' builds: CMake toolchain files and presets."""
