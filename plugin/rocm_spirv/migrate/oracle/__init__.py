"""`migrate --configure`: the real CMake (its trace) and the real clang (preprocessor and device compile) as
the oracle of what retargeting reaches. cmake_oracle.py and device.py read; run.py runs the tools."""
