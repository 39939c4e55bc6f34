#!/bin/sh
echo "rocm-spirv: coverage tools are an offline stand-in; bazel coverage is unavailable" >&2
exit 1
