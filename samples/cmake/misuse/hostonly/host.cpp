int host_only() { return 1; }
