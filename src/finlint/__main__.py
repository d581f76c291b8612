"""``python -m finlint``: the same command line as the ``finlint`` script."""

from finlint.entry import main

if __name__ == "__main__":
    main()
