"""Read device code out of HIP binaries: bundles, compressed bundles, offload binaries, archives, wheels."""
