"""The ``linkwise`` command: a thin shell over the library.

Each verb lives next to the library code it calls and is imported only when
invoked, so ``linkwise datasets`` does not load the web server or Dask.
"""

import importlib

import click

# verb -> "module:attribute" of a click command
_COMMANDS = {
    "bench": "linkwise.bench.command:bench",
    "cluster": "linkwise.session.command:cluster",
    "datasets": "linkwise.cli:datasets",
    "demo": "linkwise.demo:demo",
    "export": "linkwise.session.command:export",
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(_COMMANDS)

    def get_command(self, ctx, name):
        if name not in _COMMANDS:
            return None
        module, attr = _COMMANDS[name].split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="linkwise")
def main():
    """Active semi-supervised clustering with pairwise constraints."""


@click.command()
@click.option("--data-dir", type=click.Path(file_okay=False), help="Also list <name>.csv.gz files in this directory.")
def datasets(data_dir):
    """List the datasets with their size (n), features (d) and classes (k)."""
    from rich.console import Console
    from rich.table import Table

    from linkwise import datasets as ds

    table = Table("name", "n", "d", "k", "source")
    for name in ds.names(data_dir):
        meta = ds.info(name, data_dir)
        table.add_row(name, str(meta["n"]), str(meta["d"]), str(meta["k"]), meta["source"] or "(your file)")
    Console().print(table)
