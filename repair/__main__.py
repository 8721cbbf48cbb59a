"""`python -m repair`: the `repair` command, for a checkout that is on PYTHONPATH but not installed."""
from repair.cli import main

main()
