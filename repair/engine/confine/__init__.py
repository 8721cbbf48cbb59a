"""Confinement of a sandboxed process: its resource limits, capabilities, Landlock domain and seccomp filter."""
