from __future__ import annotations

import sys

from rocm_spirv.cli import main

if __name__ == "__main__":
    sys.exit(main())
