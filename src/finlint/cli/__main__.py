"""``python -m finlint.cli``: the same command line as ``finlint``."""

from finlint.cli.commands import main

if __name__ == "__main__":
    main(prog_name="finlint")
