"""Finding, probing and provisioning HIP-capable clang compilers."""
