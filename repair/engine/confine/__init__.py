"""Confinement of a sandboxed process: the C library calls, Landlock and seccomp."""
