"""Fork-server preload, imported first: the campaign's multiprocessing fork server holds the user's keys (its runs,
the engines, need them for a model), and it is started by exec, which makes a process dumpable again. Not dumpable,
no other process of this user (an unconfined candidate) can read its /proc/PID/environ, and every run forked from it
inherits that."""
from provenance.runtime import hide_environment

hide_environment()
