"""``python -m finlint``: the same command line as the ``finlint`` script."""

from finlint.cli import main

if __name__ == "__main__":
    main(prog_name="finlint")
