"""``python -m linkwise``: the same as the ``linkwise`` command."""

from linkwise.cli import main

main()
